"""``tonk replay GAME --html FILE``: the viewer as one self-contained page."""

from __future__ import annotations

import json
import re

from tonk.application.replay_document import replay_document
from tonk.application.replay_html import embedded_json, replay_html
from tonk.storage import EventStore

DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.DOTALL)


def embedded(page: str) -> dict:
    (data,) = DATA.findall(page)
    return json.loads(data)


def test_the_page_embeds_the_document_and_inlines_every_asset(tmp_path, record, tonk_cli):
    db = tmp_path / "g.db"
    game = record(db, seed=11, hands=2)
    out = tmp_path / "replay.html"
    result = tonk_cli(db, "replay", game.game_id[:8], "--html", str(out))
    assert result.exit_code == 0, result.stderr
    page = out.read_text()
    with EventStore.open(db, create=False) as store:
        events = store.read(game.game_id)
    doc = embedded(page)
    assert doc["steps"] == json.loads(json.dumps(replay_document(game.game_id, events)["steps"]))
    assert doc["audit"]["verdict"] == "clean"
    # nothing to fetch: no src=, no href= to a file, no stylesheet link, no module import
    assert not re.search(r'\ssrc=|<link\b|\bimport\s*\{|\bfetch\(\s*["\']http', page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page and "connect-src 'none'" in page


def test_as_player_writes_only_their_perspective(tmp_path, record, tonk_cli, never_seen):
    db = tmp_path / "g.db"
    game = record(db, seed=12, hands=1, stop_after=14, finish=False)
    out = tmp_path / "ann.html"
    assert tonk_cli(db, "replay", game.game_id, "--as", "ann", "--html", str(out)).exit_code == 0
    page = out.read_bytes().decode()
    with EventStore.open(db, create=False) as store:
        hidden = never_seen(store.read(game.game_id), "ann")
    assert hidden and not [c for c in hidden if re.search(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])", DATA.findall(page)[0])]
    assert embedded(page)["perspectives"] == ["ann"]


def test_record_text_cannot_close_the_script_element(tmp_path, record):
    db = tmp_path / "g.db"
    game = record(db, seed=13, players=("</script><b>x</b>", "bo&b", "cy"), hands=1)
    with EventStore.open(db, create=False) as store:
        events = store.read(game.game_id)
    page = replay_html(replay_document(game.game_id, events))
    assert "</script><b>" not in page and page.count("</script>") == 2
    assert embedded(page)["players"] == ["</script><b>x</b>", "bo&b", "cy"]
    assert "<" not in embedded_json({"x": "<!--"})


def test_bad_input_is_one_error_line_and_no_file(tmp_path, record, tonk_cli, clean_failure):
    db = tmp_path / "g.db"
    game = record(db, seed=14, hands=1)
    out = tmp_path / "x.html"
    clean_failure(tonk_cli(db, "replay", game.game_id, "--as", "zed", "--html", str(out)), 2, "'zed' is not a player of this game")
    clean_failure(tonk_cli(db, "replay", game.game_id, "--html", str(out), "--json"), 2, "cannot be combined with --json, --at, --hand or --summary")
    clean_failure(tonk_cli(db, "replay", "nosuchgame", "--html", str(out)), 2, "nosuchgame")
    assert not out.exists()
    clean_failure(tonk_cli(db, "replay", game.game_id, "--html", str(tmp_path / "missing" / "x.html")), 2, "cannot write the HTML file")
