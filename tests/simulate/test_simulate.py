"""Simulation invariants: clean audits, determinism per seed and across workers, the report."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tonk.application.audit import audit_pinned
from tonk.core.errors import SetupError
from tonk.core.events import encode
from tonk.application.simulate import (
    SimConfig,
    SimulationError,
    Tally,
    compare_rulesets,
    play_game,
    report,
    run,
    run_games,
    shuffle_deck,
    simulate,
)
from sim_helpers import required_options
from variant_helpers import no_ace_discard_ruleset
from tonk.variants import load_ruleset
from tonk.variants.registry import default_registry

CONFIGS = [
    SimConfig(hands=30, players=3, bots=("greedy", "random"), seed=1, hands_per_game=10),
    SimConfig(hands=30, players=2, bots=("random",), seed=2, hands_per_game=10),
    SimConfig(hands=30, players=3, bots=("greedy",), seed=3, hands_per_game=10, options={"knock_timing": "before_discard"}),
]


def _variant_configs():
    out = []
    for name in default_registry().names():
        if name == "classic":
            continue
        out.append(SimConfig(hands=12, players=3, bots=("greedy", "random"), seed=4, hands_per_game=6, variants=(name,), options=required_options(name)))
    return out


def _encoded(events):
    return [encode(e) for e in events]


@pytest.mark.parametrize("config", CONFIGS + _variant_configs(), ids=lambda c: "+".join(c.variants) or f"classic-{c.players}p-{'-'.join(c.bots)}")
def test_every_simulated_game_audits_clean(config):
    try:
        ruleset = config.check()
    except SetupError as exc:  # a variant that does not seat this many players (a broken one fails)
        pytest.skip(f"{config.variants}: {exc}")
    for index in range(config.games):
        events = play_game(config, ruleset, index)
        rep = audit_pinned(events)
        assert rep.clean, rep.findings
        assert rep.hands == config.hands_in_game(index)


def test_the_same_seed_gives_the_same_events_and_another_seed_other_events():
    config = CONFIGS[0]
    ruleset = config.ruleset()
    first = _encoded(play_game(config, ruleset, 0))
    again = _encoded(play_game(config, config.ruleset(), 0))
    assert first == again
    other = SimConfig(hands=30, players=3, bots=("greedy", "random"), seed=99, hands_per_game=10)
    assert _encoded(play_game(other, other.ruleset(), 0)) != first
    assert _encoded(play_game(config, ruleset, 1)) != first  # games of one seed differ too


def test_a_tally_is_the_sum_of_its_games_in_any_split():
    config = SimConfig(hands=60, players=3, bots=("greedy", "random"), seed=5, hands_per_game=10)
    whole, _ = run(config)
    parts = run_games(config, [0, 2, 4]).add(run_games(config, [5, 3, 1]))
    assert parts.to_dict() == whole.to_dict()


def test_report_figures_add_up():
    rep = simulate(SimConfig(hands=300, players=3, bots=("greedy", "random", "random"), seed=6, hands_per_game=25))
    assert rep["hands"] == 300 and rep["games"] == 12
    assert sum(e["count"] for e in rep["endings"].values()) == 300
    assert sum(s["net"] for s in rep["seats"]) == 0  # every ledger is zero-sum
    assert sum(s["knocks"] for s in rep["seats"]) == rep["knocks"]["total"] == rep["knocks"]["won"] + rep["knocks"]["caught"]
    assert rep["endings"]["knock"]["count"] == rep["knocks"]["total"]
    assert rep["tonk_out_rate"] == rep["endings"].get("tonk_out", {"share": 0.0})["share"]
    assert rep["bots"]["random"]["seats"] == 2 and rep["bots"]["random"]["seat_hands"] == 600
    assert rep["bots"]["random"]["net"] == rep["seats"][1]["net"] + rep["seats"][2]["net"]
    assert rep["mean_hand_actions"] == rep["actions"] / 300
    assert rep["hands_per_second"] > 0 and rep["actions_per_second"] > 0


def _store_contents(path):
    from tonk.storage import EventStore

    with EventStore.open(path, create=False) as store:
        assert not store.verify()
        return {gid: _encoded(events) for gid, events in store.iter_games()}


def test_two_workers_store_the_same_games_as_one(tmp_path):
    config = SimConfig(hands=120, players=3, bots=("greedy", "random"), seed=7, hands_per_game=10)
    one = simulate(config, str(tmp_path / "one.db"))
    two = simulate(replace(config, workers=2), str(tmp_path / "two.db"))
    stored_one = _store_contents(tmp_path / "one.db")
    assert len(stored_one) == 12
    assert stored_one == _store_contents(tmp_path / "two.db")
    for r in (one, two):
        for k in ("seconds", "hands_per_second", "actions_per_second"):
            r.pop(k)
        r["config"].pop("workers")
    assert one == two


def test_simulating_the_same_seed_into_the_same_store_again_changes_nothing(tmp_path):
    config = SimConfig(hands=10, players=2, bots=("random",), seed=8, hands_per_game=5)
    simulate(config, str(tmp_path / "s.db"))
    before = _store_contents(tmp_path / "s.db")
    simulate(config, str(tmp_path / "s.db"))
    assert _store_contents(tmp_path / "s.db") == before


def test_a_stored_game_with_the_same_id_but_other_events_is_refused(tmp_path):
    import msgspec

    from tonk.storage import EventStore

    config = SimConfig(hands=5, players=2, bots=("random",), seed=8, hands_per_game=5)
    simulate(config, str(tmp_path / "a.db"))
    with EventStore.open(tmp_path / "a.db", create=False) as store:
        ((gid, events),) = list(store.iter_games())
    other = SimConfig(hands=5, players=2, bots=("random",), seed=9, hands_per_game=5)
    simulate(other, str(tmp_path / "b.db"))
    with EventStore.open(tmp_path / "b.db", create=False) as store:
        ((_, foreign),) = list(store.iter_games())
    with EventStore.open(tmp_path / "c.db") as store:
        store.append(gid, [msgspec.structs.replace(foreign[0], game_id=gid)] + foreign[1:], 0)
    with pytest.raises(SimulationError, match="already in the store with other events"):
        simulate(config, str(tmp_path / "c.db"))


def test_compare_runs_the_same_decks_under_two_rulesets():
    a = SimConfig(hands=200, players=3, bots=("greedy",), seed=9, hands_per_game=20)
    same = compare_rulesets(a, a)
    assert all(row["diff"] == 0 for row in same["rows"])
    b = SimConfig(hands=200, players=3, bots=("greedy",), seed=9, hands_per_game=20, options={"caught_scheme": "dropper_pays_all_stakes"})
    res = compare_rulesets(a, b)
    assert res["a"]["config"]["options"] == {} and res["b"]["config"]["options"] == {"caught_scheme": "dropper_pays_all_stakes"}
    # only the payments differ: the same decks and choices give the same endings
    assert res["a"]["endings"] == res["b"]["endings"]
    assert [s["net"] for s in res["a"]["seats"]] != [s["net"] for s in res["b"]["seats"]]
    metrics = {row["metric"] for row in res["rows"]}
    assert {"tonk-out rate", "knocks won (share)", "mean hand length (actions)"} <= metrics
    with pytest.raises(SimulationError):
        compare_rulesets(a, SimConfig(hands=100, players=3, bots=("greedy",), seed=9))


def test_bad_configurations_are_refused():
    from tonk.core.errors import TonkError

    with pytest.raises(TonkError, match="unknown bot"):
        SimConfig(hands=10, bots=("nope",)).check()
    with pytest.raises(SimulationError, match="3 bots named for 2 seats"):
        SimConfig(hands=10, players=2, bots=("random", "random", "greedy")).check()
    with pytest.raises(TonkError, match="seats 2 to 3"):
        SimConfig(hands=10, players=5).check()
    with pytest.raises(SimulationError):
        SimConfig(hands=0).check()


class StubbornBot:
    """Never ends a hand: takes the discard top and throws it back."""

    name = "stubborn"
    uses_view = False

    def __init__(self, points=None):
        pass

    def choose(self, view, legal, rng):
        for kind in ("DrawDiscard", "Discard"):
            for a in legal:
                if type(a).__name__ == kind:
                    return a
        return next(a for a in legal if type(a).__name__ != "Knock")


def test_a_runaway_hand_is_an_error_not_a_hang(monkeypatch):
    from tonk.application import simulate as sim
    from tonk.core import bots

    monkeypatch.setitem(bots.BOTS, "stubborn", StubbornBot)
    monkeypatch.setattr(sim, "MAX_ACTIONS_PER_HAND", 300)
    with pytest.raises(SimulationError, match="ran past 300 actions"):
        simulate(SimConfig(hands=1, players=2, bots=("stubborn",), seed=1))
    # the host safeguard (B-31) ends such hands
    rep = simulate(SimConfig(hands=3, players=2, bots=("stubborn",), seed=1, options={"max_turns_per_hand": 20}))
    assert rep["endings"]["turn_cap"]["count"] == 3




def test_a_player_the_house_rules_leave_no_legal_action_is_an_error_naming_the_hand(tmp_path):
    # holding only aces after the draw, a player has nothing this rule lets it do: the run
    # stops with an error naming the hand and the rules (it was an IndexError in the bot)
    rules = no_ace_discard_ruleset(tmp_path)
    config = SimConfig(hands=20000, players=2, bots=("random",), seed=0, hands_per_game=50)
    with pytest.raises(SimulationError, match=r"^hand 27 of game 398: P2 has no legal action at turn 5 \(the rules no-ace-discard refuse every command open to the player\), so the hand cannot go on$"):
        run_games(config, range(398, 399), None, None, rules)


def test_shuffle_deck_is_a_permutation_and_seeded():
    import random

    deck = tuple(f"{r}S" for r in "A23456789") + ("10S", "JS", "QS", "KS")
    a = shuffle_deck(deck, random.Random(3))
    assert sorted(a) == sorted(deck) and a != deck
    assert shuffle_deck(deck, random.Random(3)) == a


def test_empty_tally_report():
    config = SimConfig(hands=1, players=2, bots=("random",))
    rep = report(config, Tally(2))
    assert rep["hands"] == 0 and rep["tonk_out_rate"] == 0.0 and "seconds" not in rep


def test_shuffle_deck_sorts_by_successive_random_draws():
    """The shuffle's definition: card ``i`` (deck order) is keyed by the ``i``-th ``random()``
    of the source, and the deck is sorted by key, stably; the source then stands after
    exactly one draw per card.  (The order a seed gives is what every simulated game's
    decks follow: changing it changes every simulation of that seed.)"""
    import random


    deck = load_ruleset().deck
    for seed in range(20):
        rng, ref = random.Random(seed), random.Random(seed)
        keys = [ref.random() for _ in deck]
        want = tuple(card for _, _, card in sorted(zip(keys, range(len(deck)), deck)))
        assert shuffle_deck(deck, rng) == want
        assert rng.random() == ref.random()


@pytest.mark.parametrize(
    "variants, options",
    [
        ((), {}),
        (("multiple-initial-tonks-all-paid", "low-initial-tonk"), {}),
        (("caught-scheme",), {"caught_scheme": "double_to_low_plus_others_base"}),
        (("stock-tie",), {"stock_tie": "draw"}),
    ],
)
def test_tally_counts_each_hands_net_and_winners_from_its_ledger(variants, options):
    """Per seat, the tally's net, squared net and wins are those of the recorded hands'
    ledgers (a hand's winners: the highest net of the hand, if positive)."""
    from tonk.core.events import HandEnded
    from tonk.core.settlement import net_of

    config = SimConfig(hands=300, players=3, bots=("greedy", "random"), variants=variants, options=options, seed=4, hands_per_game=25)
    ruleset = config.ruleset()
    seats = config.seats()
    tally = Tally(config.players)
    want = [dict.fromkeys(("wins", "net", "net_sq"), 0) for _ in seats]
    for index in range(config.games):
        for e in play_game(config, ruleset, index, tally):
            if type(e) is HandEnded:
                net = net_of(seats, e.ledger)
                best = max(net.values())
                for i, p in enumerate(seats):
                    want[i]["net"] += net[p]
                    want[i]["net_sq"] += net[p] ** 2
                    want[i]["wins"] += net[p] == best > 0
    assert tally.hands == 300
    assert [{k: row[k] for k in ("wins", "net", "net_sq")} for row in tally.seat] == want
    assert sum(row["wins"] for row in want) > 0 and any(row["net_sq"] for row in want)


def _count_hand(tally: Tally, ended, seat_of: dict[str, int], actions: int, turns: int, net) -> None:
    """The reference: one hand's counts, branch by branch (what ``Tally.record_hands`` must add up to)."""
    tally.hands += 1
    tally.actions += actions
    tally.actions_sq += actions * actions
    tally.turns += turns
    tally.turns_sq += turns * turns
    tally.lengths[turns] += 1
    tally.endings[ended.end] += 1
    if ended.ledger:  # an empty ledger changes no net and makes no winner
        best = max(net)
        for i, n in enumerate(net):
            row = tally.seat[i]
            row["net"] += n
            row["net_sq"] += n * n
            if n == best and n > 0:
                row["wins"] += 1
    who = ended.player
    if who is None:  # a draw of initial tonks, a turn cap: no one to count
        return
    if ended.end == "knock" and who in seat_of:
        row = tally.seat[seat_of[who]]
        row["knocks"] += 1
        row["knocks_won" if ended.outcome == "knocker_won" else "knocks_caught"] += 1
    elif ended.end == "tonk_out":
        tally.seat[seat_of[who]]["tonk_outs"] += 1
    elif ended.end == "out_by_discard":
        tally.seat[seat_of[who]]["went_out"] += 1


@pytest.mark.parametrize(
    "variants, options",
    [
        ((), {}),
        (("multiple-initial-tonks-all-paid", "low-initial-tonk"), {}),
        (("caught-scheme",), {"caught_scheme": "double_to_low_plus_others_base"}),
        (("stock-tie",), {"stock_tie": "draw"}),
    ],
)
def test_a_batch_of_hands_counts_as_each_hand_counted_in_turn(variants, options):
    """``Tally.record_hands`` (a game's hands at once, what play_game calls) counts exactly
    what counting each hand in turn counts (:func:`_count_hand`): recorded hands of every ending, their nets from
    their ledgers, and random action and turn counts, in batches of random sizes."""
    import random

    from tonk.core.events import HandEnded
    from tonk.core.settlement import net_of

    config = SimConfig(hands=400, players=3, bots=("greedy", "random"), variants=variants, options=options, seed=6, hands_per_game=40)
    ruleset = config.ruleset()
    seats = config.seats()
    seat_of = {p: i for i, p in enumerate(seats)}
    rng = random.Random(1)
    hands = []
    for index in range(config.games):
        for e in play_game(config, ruleset, index):
            if type(e) is HandEnded:
                net = net_of(seats, e.ledger)
                hands.append((e, rng.randrange(60), rng.randrange(1, 30), [net[p] for p in seats]))
    # hands with a ledger and no positive net (no winner, though a seat holds the highest net)
    settled = next(e for e, *_ in hands if e.ledger)
    hands[5:5] = [(settled, 3, 2, [0, 0, 0]), (settled, 4, 2, [0, -2, -1])]
    one_by_one, batched = Tally(3), Tally(3)
    for ended, actions, turns, net in hands:
        _count_hand(one_by_one, ended, seat_of, actions, turns, net)
    i = 0
    while i < len(hands):
        size = rng.randrange(0, 50)
        batched.record_hands(hands[i : i + size], seat_of)
        i += size
    assert batched.to_dict() == one_by_one.to_dict()
    ends = {ended.end for ended, *_ in hands}
    assert "knock" in ends and len(ends) >= 3  # several kinds of ending were counted
    assert sum(row["wins"] for row in one_by_one.seat) > 0


def test_a_game_played_without_keeping_its_events_counts_every_one_it_played():
    """``keep=False`` counts a hand's events once the hand is over; the count is that of the
    events a kept game returns, whatever ended its hands (knocks, outs, initial tonks, turn caps)."""
    config = SimConfig(hands=240, players=3, bots=("random", "greedy"), seed=9, hands_per_game=40, options={"max_turns_per_hand": 6})
    ruleset = config.check()
    counted = Tally(3)
    for index in range(config.games):
        kept = play_game(config, ruleset, index)
        before = counted.events
        assert play_game(config, ruleset, index, counted, keep=False) == []
        assert counted.events - before == len(kept)
    assert set(counted.endings) >= {"knock", "turn_cap"}
