"""``tonk adjudicate FILE``: the verdict on written-down hands (cases/README.md format)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

# the engine (tonk.core.adjudication, handrecord, the variant registry) is imported
# when the command runs, not when the app starts
from .app import app, fail, reported
from .options import variant_file_option
from .progress import progress
from .render import card, cards, console, err_console, ledger_lines, one_line, safe
from .rule_lines import action_rule_lines, end_rule_lines, payment_rule_lines


def _describe_action(a: dict[str, Any], raw: dict[str, Any]) -> str:
    act = a["action"]
    if act == "spread":
        return "spread " + cards(raw.get("cards", []))
    if act == "hit":
        return f"hit {card(raw.get('card'))} on {safe(raw.get('target'))}"
    if act == "discard":
        return f"discard {card(raw.get('card'))}"
    return safe(act)


def _stake(raw: dict[str, Any]) -> int | None:
    """The case's ``ruleset.options.base_stake`` when it is a whole number (amounts are in its units)."""
    rs = raw.get("ruleset") if isinstance(raw, dict) else None
    stake = (rs.get("options") or {}).get("base_stake") if isinstance(rs, dict) and isinstance(rs.get("options"), dict) else None
    return stake if isinstance(stake, int) and not isinstance(stake, bool) and stake >= 1 else None


def _actions_table(out: Any, actions: list[dict[str, Any]], raw_actions: list[Any]) -> Any:
    """The actions as a table: a Rich table on a terminal (cells wrap to its width), else
    the same columns as plain lines of markup (what Rich prints off a terminal, made in a
    fraction of the time: a large file of cases prints a table per case)."""
    from .adjudicate_partial import action_verdict

    rows = []
    for a, ra in zip(actions, raw_actions):
        partial = action_verdict(a)
        if partial is not None:
            verdict = partial
        elif a["legal"]:
            extra = []
            if a.get("drawn"):
                extra.append(f"drew {card(a['drawn'])}")
            if a.get("spread_id"):
                extra.append(f"as {safe(a['spread_id'])}")
            if a.get("effect"):
                extra.append("stock empty: hand ends")
            verdict = "[green]legal[/green]" + (" " + ", ".join(extra) if extra else "")
        else:
            verdict = f"[red]illegal[/red] {safe(a['violation'])} ({safe(a['rule'])}): {safe(a['message'])}"
        rows.append((safe(a["seq"]), safe(a["player"]), _describe_action(a, ra if isinstance(ra, dict) else {}), verdict))
    header = ("seq", "player", "action", "verdict")
    if out.is_terminal:
        from rich.table import Table

        t = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        t.add_column(header[0], justify="right")
        for name in header[1:]:
            t.add_column(name)
        for row in rows:
            t.add_row(*row)
        return t
    from rich.text import Text

    shown = [[Text.from_markup(cell).cell_len for cell in row] for row in rows]
    widths = [max([len(h)] + [w[i] for w in shown]) for i, h in enumerate(header)]

    def line(cells: tuple[str, ...], lengths: list[int], style: str = "") -> str:
        out = []
        for i, (cell, n) in enumerate(zip(cells, lengths)):
            pad = " " * (widths[i] - n)
            body = f"[{style}]{cell}[/{style}]" if style else cell
            out.append(f" {pad}{body} " if i == 0 else f" {body}{pad} ")
        return "".join(out)

    return "\n".join([line(header, [len(h) for h in header], "bold"), *(line(r, w) for r, w in zip(rows, shown))])


def _print_case(v: dict[str, Any], raw: dict[str, Any], diffs: list[str] | None) -> None:
    """The verdict on one case, printed in one call (each call to Rich has its cost)."""
    out = console()
    title = f" {safe(v.get('title'))}" if v.get("title") else ""
    lines: list[Any] = [f"\n[bold]{safe(v['id'])}[/bold]{title}"]

    def flush() -> None:
        from rich.console import Group

        parts: list[Any] = []
        for item in lines:
            if isinstance(item, str) and parts and isinstance(parts[-1], str):
                parts[-1] += "\n" + item
            else:
                parts.append(item)
        out.print(parts[0] if len(parts) == 1 else Group(*parts))

    if v["status"] == "skipped":
        lines.append(f"  [yellow]skipped[/yellow]: {safe(v['reason'])}")
        return flush()
    if "deal" in v:
        d = v["deal"]
        lines.append(f"  deal: upcard {card(d['discard_top'])}, stock {d['stock_size']}")
        for p, h in d["hands"].items():
            lines.append(f"    {safe(p)}: {cards(h)}")
    if v["actions"]:
        lines.append(_actions_table(out, v["actions"], raw.get("actions", [])))
        lines += action_rule_lines(v["actions"])
    if v.get("format_version") == 2:
        from .adjudicate_partial import outcome_lines

        lines += outcome_lines(v, _stake(raw))
        _check_lines(lines, v, diffs)
        return flush()
    end = v["end"]
    if end is None:
        lines.append("  end: [yellow]the hand has not ended[/yellow]")
    else:
        who = end.get("player") or ", ".join(str(p) for p in end.get("players", []))
        outcome = f" ({safe(end['outcome'])})" if end.get("outcome") else ""
        lines.append(f"  end: [bold]{safe(end['type'])}[/bold] {safe(who)}{outcome}")
        lines += end_rule_lines(v.get("end_rule"))
    for p, h in v["final_hands"].items():
        lines.append(f"    {safe(p)}: {cards(h)}  total {v['hand_totals'][p]}")
    for s in v["final_table"]:
        lines.append(f"    {safe(s['id'])} ({safe(s['owner'])}, {safe(s['kind'])}): {cards(s['cards'])}")
    if v["ledger"]:
        lines.append("  ledger:")
        for line in ledger_lines(v["ledger"], _stake(raw)):
            lines.append(f"    {line}")
        lines += payment_rule_lines(v.get("payment_rules"), end_rule=v.get("end_rule"))
    else:
        lines.append("  ledger: [dim]no payments[/dim]")
    lines.append("  net: " + ", ".join(f"{safe(p)} {n:+d}" for p, n in v["net"].items()) + f"; next dealer {safe(v['next_dealer'])}")
    _check_lines(lines, v, diffs)
    flush()


def _check_lines(lines: list[Any], v: dict[str, Any], diffs: list[str] | None) -> None:
    """With --check: the differences from the expected block, or that there are none."""
    if diffs is not None:
        if diffs:
            for d in diffs:
                lines.append(f"  [red]differs[/red] {safe(d)}")
        elif not v.get("check", {}).get("compared"):
            lines.append("  [yellow]nothing compared[/yellow]: the case has no expected block")
        else:
            lines.append("  [green]matches expected[/green]")


LONG_FILE = 1_000_000
"""Characters from which a file's progress is shown (on a terminal: cli/progress.py)."""


class _JsonCases:
    """``{"cases": [...]}`` written one verdict at a time (the same text as one
    ``print_json`` of the whole list)."""

    def __init__(self):
        import sys

        self.out = sys.stdout
        self.count = 0

    def add(self, verdict: dict[str, Any]) -> None:
        import json
        import textwrap

        body = textwrap.indent(json.dumps(verdict, indent=2, ensure_ascii=False), "    ")
        self.out.write(("{\n  \"cases\": [\n" if self.count == 0 else ",\n") + body)
        self.out.flush()
        self.count += 1

    def close(self) -> None:
        self.out.write("{\n  \"cases\": []\n}\n" if self.count == 0 else "\n  ]\n}\n")
        self.out.flush()


@app.command("adjudicate")
def adjudicate_cmd(
    file: Path = typer.Argument(..., metavar="FILE", hidden=True),
    json_out: bool = typer.Option(False, "--json", help="Print {\"cases\": [...]} as JSON."),
    check: bool = typer.Option(
        False,
        "--check",
        help="Compare each case with its expected block; exit 1 on any difference, or when nothing was compared (every case skipped, or no expected block).",
    ),
    case: list[str] = typer.Option([], "--case", metavar="ID", help="Only the case(s) with this id; repeatable."),
    variant_file: list[Path] = variant_file_option(),
) -> None:
    """Adjudicate written-down hands: each action's verdict, the ending, totals and ledger.

    FILE is a hand-record JSON file: one case, or {"cases": [...]} (format: shared/cases/README.md).
    Cases are read and judged one at a time: each verdict is printed as it is made."""
    from ..application.adjudicate import ruleset_loader
    from ..core.handrecord import stream_records
    from ..variants.registry import default_registry

    with reported():
        registry = default_registry().with_files(variant_file) if variant_file else default_registry()
        stream = stream_records(file)
    judge = _Judge(ruleset_loader(registry), check, _JsonCases() if json_out else None)  # one built ruleset per (variants, options) of the file
    wanted = set(case)
    # a terminal on stdout shows each verdict as it is made: the bar would only get in its way
    shown = stream.size >= LONG_FILE and not sys.stdout.isatty()
    with progress("adjudicating", stream.size, f"of {file.name}", enabled=shown, percent=True) as advance:
        broken = _judge_stream(stream, wanted, judge, advance)
    if broken is None and check:
        _judge_malformed(stream, wanted, judge)
    if judge.json_doc is not None:
        judge.json_doc.close()
    if broken is not None:
        raise fail(broken)
    if wanted and judge.cases == 0:
        raise fail(f"{file}: no case with id {', '.join(case)}")
    judge.finish(summary=not json_out)


def _judge_stream(stream: Any, wanted: set[str], judge: _Judge, advance: Any) -> str | None:
    """Judge the cases of ``stream`` (those in ``wanted``, if any) one at a time, advancing the
    progress by the characters read; the file's own error, if reading it fails, else ``None``."""
    from ..core.errors import HandRecordError

    cases = iter(stream)
    index = -1
    read = 0  # characters of the file read so far
    while True:
        try:
            item = next(cases, None)
        except HandRecordError as exc:
            return str(exc)
        if item is None:
            return None
        raw, pos = item
        advance(pos - read)
        read = pos
        index += 1
        if wanted and not (isinstance(raw, dict) and raw.get("id") in wanted):
            continue
        judge.case(raw, index, stream.format_version)
        raw = item = None  # hold no more than the case in hand


def _judge_malformed(stream: Any, wanted: set[str], judge: "_Judge") -> None:
    """With --check: each record of the file's ``malformed`` list (format 2) must be refused."""
    listed = stream.header.get("malformed")
    if not isinstance(listed, list):
        return
    for index, raw in enumerate(listed):
        if wanted and not (isinstance(raw, dict) and raw.get("id") in wanted):
            continue
        judge.malformed_record(raw, index, stream.format_version)


class _Judge:
    """Each case's verdict, checked and printed as it is made, and the counts of the run."""

    def __init__(self, load_ruleset: Any, check: bool, json_doc: _JsonCases | None):
        self.load_ruleset = load_ruleset
        self.check = check
        self.json_doc = json_doc
        self.cases = self.ok = self.skipped = self.differ = self.malformed = 0
        self.bare = 0  # judged, but nothing to compare (no expected block, no action's expect)
        self.listed = self.refused = 0  # records listed as malformed (format 2); those refused, as they must be

    def case(self, raw: Any, index: int, format_version: int = 1) -> None:
        from ..application.adjudicate import adjudicate, compare
        from ..core.adjudication import expectations

        v = adjudicate(raw, index, load_ruleset=self.load_ruleset, format_version=format_version)
        self.cases += 1
        diffs = None
        if v["status"] == "ok":
            self.ok += 1
            if self.check:
                compared = expectations(raw)
                diffs = compare(v, raw)
                v["check"] = {"ok": (not diffs) if compared else None, "compared": compared, "differences": diffs}
                self.differ += bool(diffs)
                self.bare += not compared
        elif v["status"] == "skipped":
            self.skipped += 1
        else:
            self.malformed += 1
        if self.json_doc is not None:
            self.json_doc.add(v)
            for d in diffs or []:
                err_console().print(one_line(f"{v['id']}: {d}"), markup=False)
        elif v["status"] == "error":
            err_console().print(f"error: {one_line(v['message'])}", markup=False)
        else:
            _print_case(v, raw if isinstance(raw, dict) else {}, diffs)

    def malformed_record(self, raw: Any, index: int, format_version: int) -> None:
        """A record the file lists as malformed: refused (as expected) or, a difference, accepted."""
        from ..application.adjudicate import adjudicate
        from ..core.handrecord import case_id_of

        v = adjudicate(raw, index, load_ruleset=self.load_ruleset, format_version=format_version)
        cid = case_id_of(raw, index)
        refused = v["status"] == "error"
        diffs = [] if refused else [f"listed as malformed, but read as a valid record (status {v['status']})"]
        self.listed += 1
        self.refused += refused
        if self.json_doc is not None:
            entry = {"id": cid, "status": "malformed_expected", "refused": refused, "message": v.get("message")}
            entry["check"] = {"ok": refused, "compared": 1, "differences": diffs}
            self.json_doc.add(entry)
            for d in diffs:
                err_console().print(one_line(f"{cid}: {d}"), markup=False)
            return
        lines = [f"\n[bold]{safe(cid)}[/bold] (listed as malformed)"]
        if refused:
            lines.append(f"  [green]refused as expected[/green]: {safe(one_line(v['message']))}")
        else:
            lines += [f"  [red]differs[/red] {safe(d)}" for d in diffs]
        console().print("\n".join(lines))

    def finish(self, *, summary: bool) -> None:
        """The summary line (``summary``: not with --json), and the exit code: 2 for a malformed
        case, 1 for a difference or, with --check, nothing checked."""
        if summary:
            text = f"\n{self.cases} case(s): {self.ok} adjudicated, {self.skipped} skipped, {self.malformed} malformed"
            if self.check:
                text += f"; {self.ok - self.bare - self.differ} match expected, {self.differ} differ"
                if self.bare:
                    text += f", {self.bare} without expectations"
                if self.listed:
                    text += f"; {self.listed} listed as malformed, {self.refused} refused as expected"
            console().print(text)
        if self.malformed:
            raise typer.Exit(2)
        if self.check and self.ok == 0:
            what = f"all {self.skipped} case(s) were skipped" if self.skipped else "the file holds no case"
            err_console().print(f"check failed: nothing was checked ({what})", markup=False, soft_wrap=True)
            raise typer.Exit(1)
        if self.check and self.bare == self.ok:
            what = "no case has an expected block" if self.bare == self.cases else f"no adjudicated case has an expected block; {self.skipped} skipped"
            err_console().print(f"check failed: nothing compared: {what} (nor an action's expect)", markup=False, soft_wrap=True)
            raise typer.Exit(1)
        if self.check and self.skipped:
            err_console().print(f"note: {self.skipped} of {self.cases} case(s) skipped, not checked", markup=False, soft_wrap=True)
        if self.check and self.bare:
            err_console().print(f"note: {self.bare} of {self.cases} case(s) have no expected block, not compared", markup=False, soft_wrap=True)
        if self.differ or self.refused < self.listed:
            raise typer.Exit(1)
