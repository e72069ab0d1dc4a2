# `make run`: set up .venv, install tonk, adjudicate the example hand records.
# `make test`: set up .venv with the test extras and run the test suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/tonk adjudicate examples/disputed-hands.json

test: $(VENV)/.installed
	$(BIN)/pytest -q

bench: $(VENV)/.installed
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) build *.egg-info
