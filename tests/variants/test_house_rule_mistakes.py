"""A house rule's mistakes are clear errors naming its file, the hook and what is wrong
(docs/variant-authoring.md: ``tonk variants --variant-file`` says whether a file is well
formed; a hook that raises or answers what its spec does not allow stops the command with
one ``error:`` line, exit 2, no traceback), never a crash deep in the engine or a game
stored with a ledger no rule gives."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.core import Game, RulesetError
from tonk.core.errors import VariantFault
from tonk.variants import load_ruleset
from tonk.variants.registry import default_registry
from variant_helpers import ROOT

HEAD = "from tonk.variants import VariantInfo, hookimpl\nVARIANT = VariantInfo(name='house', summary='a house rule')\n"


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def house_file(tmp_path, body: str):
    f = tmp_path / "house.py"
    f.write_text(HEAD + body)
    return f


def play_a_hand(f, players=("a", "b", "c")):
    """A hand under the file's rule, each player drawing from the stock and discarding
    the card drawn until it ends (or 60 actions), the legal actions listed at each step."""
    rs = load_ruleset(["house"], registry=default_registry().with_files([f]))
    game = Game.new(list(players), ruleset=rs, dealer=players[-1], seed=1)
    game.deal(seed=3)
    for _ in range(60):
        if not game.state.in_hand:
            break
        game.legal_actions()
        if game.state.drew:
            game.act("discard", card=game.state.drawn_card)
        else:
            game.act("draw_stock")
    return game


# a hook that raises: named with the file and the line
def test_a_hook_that_raises_is_a_variant_fault_naming_the_file_the_hook_and_the_line(tmp_path):
    f = house_file(tmp_path, "@hookimpl\ndef tonk_veto(state, command, ruleset):\n    raise RuntimeError('veto exploded')\n")
    with pytest.raises(VariantFault, match=re.escape(f"variant 'house' (file:{f}): tonk_veto raised RuntimeError at line 5: veto exploded")):
        play_a_hand(f)


def test_a_wrapper_that_raises_is_a_variant_fault(tmp_path):
    f = house_file(tmp_path, "@hookimpl(wrapper=True)\ndef tonk_deck(ruleset):\n    deck = yield\n    return deck[1000]\n")
    with pytest.raises(VariantFault, match="tonk_deck raised IndexError at line 6"):
        play_a_hand(f)


@pytest.mark.parametrize(
    "body, message",
    [
        ("def tonk_card_points(card, ruleset):\n    return '0'", "tonk_card_points answered '0', not a whole number of points"),
        ("def tonk_player_range(ruleset):\n    return 3", "tonk_player_range answered 3, not a pair of whole numbers"),
        ("def tonk_deal_size(num_players, ruleset):\n    return '6'", "tonk_deal_size answered '6', not a positive whole number of cards"),
        ("def tonk_upcard(ruleset):\n    return 'no'", "tonk_upcard answered 'no', not True or False"),
        ("def tonk_wild_cards(ruleset):\n    return 'JS'", "tonk_wild_cards answered 'JS', not a list of cards"),
        ("def tonk_initial_tonks(hands, totals, ruleset):\n    return 'a'", "tonk_initial_tonks answered 'a', not a list of players"),
        ("def tonk_veto(state, command, ruleset):\n    return True", "tonk_veto answered True, not None or an IllegalAction"),
        ("def tonk_turn_end(state, player, ruleset):\n    return 'stop'", "tonk_turn_end answered 'stop', not None or an Ending"),
        ("def tonk_knock_outcome(knocker, totals, ruleset):\n    return 'maybe'", "tonk_knock_outcome answered 'maybe', not 'knocker_won' or 'knocker_caught'"),
        ("def tonk_settle(ending, state, ruleset):\n    return 5", "tonk_settle answered 5, not a list of Payment"),
        (
            "def tonk_settle(ending, ruleset):\n    from tonk.core.events import Payment\n    return [Payment(ending.seats[0], 'nobody', 3, 'x')]",
            "not payments between two different seats of ['a', 'b', 'c']",
        ),
        (
            "def tonk_settle(ending, ruleset):\n    from tonk.core.events import Payment\n    return [Payment(ending.seats[0], ending.seats[1], -4, 'x')]",
            "not payments of a positive whole amount",
        ),
        ("def tonk_check_options(options, variants):\n    return 42", "tonk_check_options answered 42, not None or a sentence"),
        ("def tonk_spread_candidates(hand, ruleset):\n    return 7", "tonk_spread_candidates answered 7, not a list of SpreadShape"),
        (
            "(wrapper=True)\ndef tonk_veto(state, command, ruleset):\n    said = yield\n    return said + [True]",
            "tonk_veto answered [True], not a list, each of its answers None or an IllegalAction",
        ),
    ],
)
def test_an_answer_the_spec_does_not_allow_is_a_variant_fault(tmp_path, body, message):
    f = house_file(tmp_path, "@hookimpl" + ("" if body.startswith("(") else "\n") + body + "\n")
    with pytest.raises(VariantFault, match=re.escape(f"variant 'house' (file:{f}): ") + ".*" + re.escape(message)):
        game = play_a_hand(f)
        game.act("knock")  # a hand that has not ended yet: the knock asks the outcome and the ledger


def test_a_well_formed_house_rule_is_not_disturbed_by_the_checks(tmp_path):
    f = house_file(
        tmp_path,
        "@hookimpl\ndef tonk_card_points(card, ruleset):\n    return 0 if card.startswith('7') else None\n"
        "@hookimpl(wrapper=True)\ndef tonk_settle(ending, state, ruleset):\n"
        "    ledger = yield\n    return [type(p)(p.from_, p.to, p.amount * 3, p.reason) for p in ledger]\n"
        "@hookimpl(wrapper=True)\ndef tonk_veto(state, command, ruleset):\n    said = yield\n    return said\n",
    )
    game = play_a_hand(f)
    assert game.ruleset.hand_total(["7S", "7H", "AS"]) == 1
    if game.state.in_hand:
        game.act("knock")
    ending = game.state.last_ending
    assert ending is not None and ending.ledger and all(p.amount % 3 == 0 for p in ending.ledger)


@pytest.mark.parametrize(
    "body, message",
    [
        ("@hookimpl\ndef tonk_veto(state, cmd, ruleset):\n    return None\n", "Argument(s) {'cmd'} are declared in the hookimpl but can not be found in the hookspec"),
        ("@hookimpl(wrapper=True)\ndef tonk_veto(state, command, ruleset):\n    return None\n", "Declared as wrapper=True or hookwrapper=True but function is not a generator"),
        ("@hookimpl\ndef tonk_vet(state, command, ruleset):\n    return None\n", "tonk_vet is marked @hookimpl but tonk has no hook 'tonk_vet'"),
    ],
)
def test_a_malformed_hook_is_refused_when_the_file_is_loaded(tmp_path, body, message):
    """``tonk variants --variant-file F`` answers "is it well formed?" (the guide, section 2)."""
    f = house_file(tmp_path, body)
    with pytest.raises(RulesetError, match=re.escape(f"variant 'house' (file:{f})") + ".*" + re.escape(message)):
        default_registry().with_files([f])
    res = run("variants", "--variant-file", str(f))
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert message in res.output.replace("\n", " ").replace("  ", " ") or message in res.output


def test_a_file_that_exits_while_imported_is_an_error_not_an_exit(tmp_path):
    f = tmp_path / "house.py"
    f.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(RulesetError, match=re.escape(f"variant file {str(f)!r} failed to import: SystemExit: 3")):
        default_registry().with_files([f])


def test_a_file_without_a_variant_is_named_by_its_path(tmp_path):
    f = tmp_path / "house.py"
    f.write_text("X = 1\n")
    with pytest.raises(RulesetError) as exc:
        default_registry().with_files([f])
    assert str(exc.value) == f"variant file {str(f)!r} has no VARIANT = VariantInfo(...) attribute, so it is not a tonk variant"


def test_simulate_with_a_hook_that_raises_is_one_error_line_and_exit_2(tmp_path):
    f = house_file(tmp_path, "@hookimpl\ndef tonk_settle(ending, state, ruleset):\n    return {s.id: s for s in state.table}['x']\n")
    try:
        res = run("simulate", "-n", "5", "--no-store", "--variant-file", str(f), "-v", "house")
    finally:
        default_registry.cache_clear()  # simulate loads the file into the process's registry
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    assert f"variant 'house' (file:{f}): tonk_settle raised KeyError at line 5: 'x'" in res.output.replace("\n", "")


def test_a_card_no_variant_values_is_refused_when_the_ruleset_is_built(tmp_path):
    """A deck wrapper that adds jokers without saying what they count: the ruleset says so,
    instead of a TypeError when the first hand is totalled."""
    f = house_file(tmp_path, "@hookimpl(wrapper=True)\ndef tonk_deck(ruleset):\n    deck = yield\n    return deck + ['X1', 'X2']\n")
    with pytest.raises(RulesetError, match=re.escape("no variant says what X1 X2 count in a hand total")):
        load_ruleset(["house"], {"jokers": 2}, registry=default_registry().with_files([f]))


def test_audit_under_a_house_rule_that_raises_cannot_audit_rather_than_blame_the_game(tmp_path):
    """A game played under a file's rule, audited with a file of the same name and version
    whose veto raises: the audit cannot be run (exit 2, the fault named); the game is not
    given a finding (a finding says the recorded game is wrong)."""
    from tonk.storage import EventStore

    good = tmp_path / "good" / "house.py"
    good.parent.mkdir()
    good.write_text(HEAD + "@hookimpl\ndef tonk_veto(state, command, ruleset):\n    return None\n")
    game = play_a_hand(good)
    db = tmp_path / "games.db"
    with EventStore.open(db, create=True) as store:
        store.append(game.game_id, list(game.events), 0)
    broken = house_file(tmp_path, "@hookimpl\ndef tonk_veto(state, command, ruleset):\n    return 1 // 0\n")
    res = run("--db", str(db), "audit", game.game_id, "--variant-file", str(broken))
    assert res.exit_code == 2, res.output
    assert "finding" not in res.output and "Traceback" not in res.output
    assert f"cannot audit: variant 'house' (file:{broken}): tonk_veto raised ZeroDivisionError at line 5" in res.output.replace("\n", "")
    assert f"{game.game_id}  {len(game.events)} events" in res.output and "hand(s)" not in res.output  # no hand was re-run: none counted


def test_a_hand_record_on_which_a_house_rule_raises_is_that_cases_error(tmp_path):
    """The case cannot be judged (status error, the fault named, as a ruleset the case cannot
    build is); the other cases of the file still are."""
    import json

    from tonk.application.adjudicate import ruleset_loader
    from tonk.core.adjudication import adjudicate

    f = house_file(tmp_path, "@hookimpl\ndef tonk_veto(state, command, ruleset):\n    return 1 // 0 if command.player == 'P1' else None\n")
    example = json.loads((ROOT / "examples" / "tonk-variant-example" / "cases.json").read_text())["cases"][0]
    case = {**example, "id": "H1", "ruleset": {"variants": ["house"], "options": {}}, "expected": {}}
    case["actions"] = [{k: v for k, v in a.items() if k != "expect"} for a in example["actions"]]
    verdict = adjudicate(case, load_ruleset=ruleset_loader(default_registry().with_files([f])))
    assert verdict["status"] == "error", verdict
    assert verdict["message"] == f"case H1: variant 'house' (file:{f}): tonk_veto raised ZeroDivisionError at line 5: integer division or modulo by zero"


@pytest.mark.parametrize(
    "body, message",
    [
        (  # once: a card of the stock goes missing
            "def tonk_veto(state, command, ruleset, done=[]):\n    if not done:\n        done.append(state.stock.pop())",
            "tonk_veto changed the state it was given",
        ),
        ("def tonk_spread_candidates(hand, ruleset):\n    hand.sort()", "tonk_spread_candidates changed the hand it was given"),
        ("def tonk_knock_outcome(knocker, totals, ruleset):\n    totals[knocker] = 0", "tonk_knock_outcome changed the totals it was given"),
    ],
)
def test_a_hook_that_changes_what_it_is_given_is_a_variant_fault(tmp_path, body, message):
    """Section 4 of the guide: a hook never changes what it is given; a file's hook that does
    would leave the engine's position other than its events say (and store that game)."""
    f = house_file(tmp_path, "@hookimpl\n" + body + "\n")
    with pytest.raises(VariantFault, match=re.escape(f"variant 'house' (file:{f}): {message}")):
        game = play_a_hand(f)
        game.act("knock")


@pytest.mark.parametrize(
    "declaration, message",
    [
        ("VariantInfo(name=5, summary='x')", "its VARIANT = VariantInfo(...) is malformed: Expected `str`, got `int` - at `$.name`"),
        ("VariantInfo(name='house', summary='x', options=({'name': 'n'},))", "is malformed: Object missing required field `type` - at `$.options[0]`"),
        ("VariantInfo(name='house', summary='x', options=(OptionSpec('ratio', 'float', 1.5),))", "option ratio has the type 'float'; an option's type is one of"),
        ("VariantInfo(name='house', summary='x', options=(OptionSpec('n', 'int', 'abc'),))", "option n must be a whole number, not 'abc'"),
    ],
)
def test_a_malformed_declaration_is_refused_when_the_file_is_loaded(tmp_path, declaration, message):
    f = tmp_path / "house.py"
    f.write_text(f"from tonk.variants import OptionSpec, VariantInfo\nVARIANT = {declaration}\n")
    with pytest.raises(RulesetError, match=re.escape(f"variant file {str(f)!r}: ") + ".*" + re.escape(message)):
        default_registry().with_files([f])


def test_a_redeclared_option_keeps_its_type(tmp_path):
    """A preset may change a base option's default, choices, range or requiredness; as text,
    ``cards_per_player`` would reach the deal as 'five' (a ValueError traceback)."""
    f = tmp_path / "house.py"
    f.write_text(
        "from tonk.variants import OptionSpec, VariantInfo\n"
        "VARIANT = VariantInfo(name='house', summary='x', options=(OptionSpec('cards_per_player', 'str', 'five'),))\n"
    )
    with pytest.raises(RulesetError, match=re.escape("variant house redeclares the option cards_per_player of classic as str, but it is int")):
        load_ruleset(["house"], registry=default_registry().with_files([f]))


def test_auditing_a_game_of_a_file_without_the_file_says_how_to_give_it(tmp_path):
    from tonk.storage import EventStore

    f = house_file(tmp_path, "")
    game = play_a_hand(f)
    db = tmp_path / "games.db"
    with EventStore.open(db, create=True) as store:
        store.append(game.game_id, list(game.events), 0)
    res = run("--db", str(db), "audit", game.game_id)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert (
        "the game was recorded with variant 'house' (recorded from file 0), which is not installed;"
        " it was a one-off file: give it with --variant-file FILE"
    ) in " ".join(res.output.split())


def test_a_file_named_as_a_catalogue_alias_is_refused(tmp_path):
    """``mandatory-ace-laydown`` names the catalogue's ``mandatory-laydown``: a file taking
    that name would silently judge every record naming the alias under the file's rule."""
    f = tmp_path / "house.py"
    f.write_text("from tonk.variants import VariantInfo\nVARIANT = VariantInfo(name='mandatory-ace-laydown', summary='x')\n")
    with pytest.raises(RulesetError, match=re.escape(f"variant 'mandatory-ace-laydown' (file:{f}) takes a name that is already an alias of variant 'mandatory-laydown'")):
        default_registry().with_files([f])
