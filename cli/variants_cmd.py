"""``tonk variants [NAME]``: the installed house rules, their options, hooks and versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

# the variant registry (entry points, plugin modules) is imported when the command runs
from .app import app, reported
from .options import variant_file_option
from .render import console, err_console, print_json, safe, visible


def _default_text(o: dict[str, Any]) -> str:
    if o["required"]:
        return f"(required, e.g. {o['default']!r})"
    return repr(o["default"])


def _print_variant(v: dict[str, Any], detail: bool) -> None:
    from rich.table import Table

    out = console()
    aliases = f" (alias {safe(', '.join(v['aliases']))})" if v["aliases"] else ""
    out.print(f"\n[bold]{safe(v['name'])}[/bold]{aliases}  [dim]{safe(v['dist'])} {safe(v['version'])}, {safe(v['source'])}[/dim]")
    out.print(f"  {visible(v['summary'])}", markup=False)
    if v["options"]:
        t = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        for col in ("option", "type", "default", "meaning"):
            t.add_column(col)
        for o in v["options"]:
            meaning = o["help"] + (f" [{' | '.join(o['choices'])}]" if o["choices"] else "")
            t.add_row(*(safe(x) for x in (o["name"], o["type"], _default_text(o), meaning)))
        out.print(t)
    out.print("  hooks: " + (safe(", ".join(v["hooks"])) or "none (an option preset)"))
    if v["conflicts"]:
        out.print("  conflicts with: " + safe(", ".join(v["conflicts"])))
    if detail and v.get("doc"):
        from .rst import rst_to_markup

        out.print()
        out.print(rst_to_markup(v["doc"]))


@app.command("variants")
def variants_cmd(
    name: str = typer.Argument(None, metavar="NAME", hidden=True),
    json_out: bool = typer.Option(False, "--json", help="Print {\"variants\": [...], \"problems\": [...]} as JSON."),
    variant_file: list[Path] = variant_file_option(),
) -> None:
    """List the installed variants (house rules): summary, options, hooks implemented, version.

    NAME: show one variant (name or alias) with its full documentation."""
    from ..variants.registry import default_registry, describe_variant

    with reported():
        registry = default_registry().with_files(variant_file) if variant_file else default_registry()
        regs = [registry.get(name)] if name else registry.all()
    regs.sort(key=lambda r: (r.info.name != "classic", r.info.name))
    described = [describe_variant(r, doc=bool(name)) for r in regs]
    if json_out:
        print_json({"variants": described, "problems": list(registry.problems)})
        return
    for v in described:
        _print_variant(v, detail=bool(name))
    for problem in registry.problems:
        err_console().print(f"warning: {visible(problem)}", markup=False)
    if not name:
        console().print(f"\n{len(described)} variant(s); `tonk variants NAME` shows one with its documentation.")
