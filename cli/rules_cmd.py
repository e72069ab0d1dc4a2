"""``tonk rules [ID]``: the one-line statement of every rule id a verdict can cite."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

# the statements are imported when the command runs (`tonk --help` loads no engine module)
from .app import app, reported
from .render import console, print_json, safe

if TYPE_CHECKING:
    from ..core.rule_statements import RuleStatement


def find_rule(rule_id: str) -> RuleStatement:
    """The rule a user names: its id as verdicts print it (``A7.4``, ``V:knock-limit``), in
    any case, or a house rule's bare name (``knock-limit``) or alias (``mandatory-ace-laydown``
    names ``V:mandatory-laydown``, B-24)."""
    from ..core.rule_statements import RULES, UnknownRule, rule
    from ..variants.registry import default_registry

    by_folded = {r.id.casefold(): r.id for r in RULES}
    for candidate in (rule_id, f"V:{rule_id}"):
        known = by_folded.get(candidate.casefold())
        if known is not None:
            return rule(known)
    name = rule_id[2:] if rule_id[:2].casefold() == "v:" else rule_id
    registry = default_registry()
    if name in registry:  # an alias: verdicts cite the variant by its own name
        known = by_folded.get(f"V:{registry.canonical(name)}".casefold())
        if known is not None:
            return rule(known)
    raise UnknownRule(rule_id)


def _json_of(r: RuleStatement) -> dict[str, Any]:
    return {"id": r.id, "section": r.section, "statement": r.text}


def _print_plain(rules: list[RuleStatement]) -> None:
    """Off a terminal: one line a rule, the statements aligned after the ids."""
    width = max(len(r.id) for r in rules)
    out = console()
    for r in rules:
        out.print(f"{r.id:<{width}}  {r.text}", markup=False, highlight=False)


def _print_table(rules: list[RuleStatement]) -> None:
    """On a terminal: a table of id and statement, one section heading above each group."""
    from rich.table import Table

    t = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
    t.add_column("rule", no_wrap=True)
    t.add_column("statement")
    section = None
    for r in rules:
        if r.section != section:
            section = r.section
            t.add_row("", f"[dim]{safe(section)}[/dim]")
        t.add_row(f"[bold]{safe(r.id)}[/bold]", safe(r.text))
    console().print(t)


@app.command("rules")
def rules_cmd(
    rule_id: str = typer.Argument(None, metavar="ID", hidden=True),
    json_out: bool = typer.Option(False, "--json", help='Print {"rules": [{"id", "section", "statement"}]} as JSON.'),
) -> None:
    """List every rule id a verdict or an audit finding can cite, with its one-line statement
    (written from rules.md).

    ID: show one rule (A7.4, V:knock-limit, knock-limit or an alias such as
    mandatory-ace-laydown) with its section of rules.md."""
    from ..core.rule_statements import RULES

    with reported():
        chosen = [find_rule(rule_id)] if rule_id is not None else list(RULES)
    if json_out:
        print_json({"rules": [_json_of(r) for r in chosen]})
        return
    if rule_id is not None:
        (r,) = chosen
        console().print(f"{r.id}: {r.text}\n  section: {r.section}", markup=False, highlight=False)
        return
    if console().is_terminal:
        _print_table(chosen)
    else:
        _print_plain(chosen)
