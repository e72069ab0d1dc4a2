"""``tonk games`` and ``tonk replay``: listing and replaying recorded games."""

from __future__ import annotations

import json

from tonk.core.events import CardDrawn, HandDealt
from tonk.core.views import HIDDEN

GAME_KEYS = {"game_id", "started_at", "ended_at", "players", "variants", "options", "hands", "net", "status", "events"}


# --- tonk games -----------------------------------------------------------------------------


def test_games_lists_each_game_with_players_net_rules_and_hands(tonk, db, record_game):
    a = record_game(db, seed=1, hands=2)
    b = record_game(db, seed=2, players=("ann", "dan"), hands=1, options={"base_stake": 5}, finish=False)
    result = tonk("games")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    row_a = next(line for line in lines if line.strip().startswith(a.game_id[:8]))
    row_b = next(line for line in lines if line.strip().startswith(b.game_id[:8]))
    assert "ended" in row_a and "classic" in row_a
    assert "open" in row_b and "\u00d75" in row_b
    assert all(f"{p} {n:+d}" in result.stdout for p, n in a.net.items())
    assert max(len(line) for line in lines) <= 80
    assert "2 game(s)" in result.stdout


def test_games_json_shape_and_filters(tonk, db, record_game):
    a = record_game(db, seed=1, hands=2)
    record_game(db, seed=2, players=("ann", "dan"), hands=1)
    data = json.loads(tonk("games", "--json").stdout)
    assert set(data) == {"games"} and len(data["games"]) == 2
    for g in data["games"]:
        assert set(g) == GAME_KEYS
    first = next(g for g in data["games"] if g["game_id"] == a.game_id)
    assert first["players"] == ["ann", "bob", "cy"] and first["hands"] == 2
    assert first["net"] == a.net and first["status"] == "ended" and first["variants"] == []
    assert first["events"] == len(a.events)
    only_dan = json.loads(tonk("games", "--player", "dan", "--json").stdout)["games"]
    assert [g["players"] for g in only_dan] == [["ann", "dan"]]
    assert json.loads(tonk("games", "--variant", "jokers-wild", "--json").stdout) == {"games": []}
    assert "no games matching the filter" in tonk("games", "--player", "zed").stdout


def test_games_without_a_database_is_one_error_line(tonk, clean_failure):
    clean_failure(tonk("games"), 2, "no tonk database at")


def test_a_file_that_is_not_a_store_is_refused(runner, tmp_path, clean_failure):
    from tonk.cli.app import app

    bogus = tmp_path / "notes.db"
    bogus.write_text("this is not sqlite\n" * 20)
    result = runner.invoke(app, ["--db", str(bogus), "games"])
    clean_failure(result, 2, str(bogus))


# --- tonk replay -----------------------------------------------------------------------------


def test_replay_as_the_auditor_shows_every_event_and_every_hand(tonk, db, record_game):
    game = record_game(db, seed=3, hands=1)
    result = tonk("replay", game.game_id[:10])
    assert result.exit_code == 0, result.stderr
    n = len(game.events)
    for seq in range(1, n + 1):
        assert f"#{seq}/{n} " in result.stdout
    assert "view: auditor (everything)" in result.stdout
    assert "stock, top first:" in result.stdout


def test_replay_at_shows_one_step(tonk, db, record_game):
    game = record_game(db, seed=3, hands=1)
    result = tonk("replay", game.game_id, "--at", "3")
    assert result.exit_code == 0
    assert result.stdout.startswith("#3/")
    assert "#2/" not in result.stdout and "#4/" not in result.stdout


def test_replay_json_as_a_player_never_shows_hidden_cards(tonk, db, record_game):
    game = record_game(db, seed=4, hands=1)
    dealt = next(e for e in game.events if isinstance(e, HandDealt))
    data = json.loads(tonk("replay", game.game_id, "--as", "bob", "--json").stdout)
    assert set(data) == {"game_id", "viewer", "events", "steps"}
    assert data["viewer"] == "bob" and data["events"] == len(game.events) == len(data["steps"])
    step = data["steps"][1]
    assert set(step) == {"seq", "event", "view"} and step["seq"] == 2
    assert step["event"]["hands"]["bob"] == list(dealt.hands["bob"])
    assert step["event"]["hands"]["ann"] == [HIDDEN] * 5
    assert step["view"]["stock"] is None and step["view"]["hand"] == list(dealt.hands["bob"])
    for s, event in zip(data["steps"], game.events):
        if isinstance(event, CardDrawn) and event.source == "stock" and event.player != "bob":
            assert s["event"]["card"] == HIDDEN
    auditor = json.loads(tonk("replay", game.game_id, "--json", "--at", "2").stdout)
    assert auditor["viewer"] == "*" and [s["seq"] for s in auditor["steps"]] == [2]
    assert auditor["steps"][0]["view"]["stock"] == list(dealt.stock)


def test_replay_bad_input_is_one_error_line(tonk, db, record_game, clean_failure):
    game = record_game(db, seed=5, hands=1)
    clean_failure(tonk("replay", "nope"), 2, "no game 'nope'")
    clean_failure(tonk("replay", game.game_id, "--as", "eve"), 2, "'eve' is not a player of this game")
    clean_failure(tonk("replay", game.game_id, "--at", "999"), 2, "--at 999 is out of range")


def test_an_ambiguous_prefix_is_refused(tonk, db, record_game, clean_failure):
    ids = {record_game(db, seed=s, hands=1).game_id for s in range(20)}
    firsts = [g[0] for g in ids]
    common = next(c for c in firsts if firsts.count(c) > 1)
    clean_failure(tonk("replay", common), 2, "is ambiguous")
