# `make run`: set up .venv, install tonk, adjudicate the example hand records, simulate
#             300 hands into ./tonk.db (or $$TONK_DB) and audit every game stored there.
# `make test`: set up .venv with the test and postgres extras (and Debian's PostgreSQL server
#             where it is missing: .ci/setup-postgres) and run the test suite.
#             Also the browser extra and Debian's Chromium (.ci/setup-browser) for the browser tests.
# `make screenshots`: run the browser tests and copy their screenshots to docs/screenshots/.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test test-quick lint typecheck bench install clean browser screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,evidence,serve,postgres]'
	touch $@

$(VENV)/.browser: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,evidence,serve,postgres,browser]'
	touch $@

install: $(VENV)/.installed

# the browser tests' Playwright (extra 'browser') and Debian's Chromium
browser: $(VENV)/.browser
	bash .ci/setup-browser

run: $(VENV)/.installed
	$(BIN)/tonk adjudicate examples/disputed-hands.json
	$(BIN)/tonk simulate --hands 300 --players 3 --bot greedy --bot random --seed 1
	$(BIN)/tonk audit --all

test: lint typecheck browser
	.ci/setup-postgres
	$(BIN)/pytest -q

screenshots: browser
	rm -rf build/screenshots
	TONK_SCREENSHOTS=$(CURDIR)/build/screenshots $(BIN)/pytest -q -m browser
	mkdir -p docs/screenshots
	cp build/screenshots/*.png docs/screenshots/

# the quick loop: everything but the tests marked slow
test-quick: $(VENV)/.installed
	$(BIN)/pytest -q -m "not slow"

lint: $(VENV)/.installed
	$(BIN)/ruff check .

# mypy on the tonk packages, through symlinks that give the bare folders their package names,
# with every error code on (pyproject.toml's [tool.mypy] disables none)
typecheck: $(VENV)/.installed
	mkdir -p .typecheck/tonk
	for d in core variants storage application web cli service; do ln -sfn ../../$$d .typecheck/tonk/$$d; done
	MYPYPATH=.typecheck $(BIN)/mypy -p tonk.core -p tonk.variants -p tonk.storage -p tonk.application -p tonk.web -p tonk.cli -p tonk.service

bench: $(VENV)/.installed
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) build *.egg-info .typecheck
