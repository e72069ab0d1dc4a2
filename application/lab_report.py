"""The house-rule lab's report: two rulesets side by side as one self-contained HTML page.

``tonk simulate --compare ... --report FILE.html`` writes it from the comparison that
``--json`` prints (:func:`tonk.application.simulate.compare_rulesets`): the same rows,
the same numbers.  The page is plain HTML with inline SVG charts and one inline style
sheet; it has no script at all, and its Content-Security-Policy allows nothing but that
style sheet (by its hash), so it opens from disk with no network request.  Every text
that comes from the run (ruleset names, bot names, figures) is escaped as data.

Each row of the comparison gets its two values, the difference with its 95 % interval,
and a verdict (:mod:`tonk.application.stats`) written as a plain sentence, e.g.
"ending initial_tonk (share): 2.1% → 0.0%, certain".  The table's cells also carry the
exact numbers as ``data-`` attributes (what the tests compare with the JSON).
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from typing import Any, Iterable

#: colours of the two rulesets (A, B) and of the endings, in order
COLOURS = ("#3b6ea8", "#d9822b")
ENDING_COLOURS = ("#3b6ea8", "#d9822b", "#4a9a5b", "#b8463f", "#7d5ba6", "#8a6d3b", "#c15b9a", "#6b7b8c")


# --- the words and numbers (shared with the terminal report) ------------------------------------


def figure_text(row: dict[str, Any], x: float) -> str:
    """A figure of a comparison row as shown: a share in per cent, a mean to three places."""
    if row["kind"] == "share":
        return f"{100 * x:.1f}%"
    if "net" in row["metric"]:
        return f"{x:+.3f}"
    return f"{x:.2f}"


def difference_text(row: dict[str, Any]) -> str:
    """``B - A`` with its 95 % interval: points for shares, units for means."""
    lo, hi = row["ci"]
    if row["kind"] == "share":
        return f"{100 * row['diff']:+.1f} pt ({100 * lo:+.1f} to {100 * hi:+.1f})"
    return f"{row['diff']:+.3f} ({lo:+.3f} to {hi:+.3f})"


def sentence(row: dict[str, Any]) -> str:
    """The row as a plain sentence: "knocks won (share): 41.0% → 43.0%, within noise"."""
    return f"{row['metric']}: {figure_text(row, row['a'])} → {figure_text(row, row['b'])}, {row['verdict']}"


# --- charts (inline SVG, presentation attributes only: no style attribute) ---------------------


def _svg(width: int, height: int, body: Iterable[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = 12) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="#222">{escape(text)}</text>'


def ending_mix_chart(a: dict, b: dict, labels: tuple[str, str]) -> str:
    """One stacked bar per ruleset: the share of each ending."""
    ends = sorted(set(a["endings"]) | set(b["endings"]))
    width, left, bar_w = 640, 110, 500
    body: list[str] = []
    for i, (rep, label) in enumerate(zip((a, b), labels)):
        y = 10 + i * 40
        body.append(_text(left - 8, y + 18, label, "end"))
        x = float(left)
        for j, e in enumerate(ends):
            share = rep["endings"].get(e, {}).get("share", 0.0)
            w = share * bar_w
            if w > 0:
                body.append(
                    f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="26" fill="{ENDING_COLOURS[j % len(ENDING_COLOURS)]}">'
                    f"<title>{escape(f'{e}: {100 * share:.1f}%')}</title></rect>"
                )
            x += w
    ly = 100
    lx = float(left)
    for j, e in enumerate(ends):
        body.append(f'<rect x="{lx:.1f}" y="{ly}" width="12" height="12" fill="{ENDING_COLOURS[j % len(ENDING_COLOURS)]}"/>')
        body.append(_text(lx + 16, ly + 11, e))
        lx += 22 + 7.5 * len(e)
        if lx > width - 80:
            lx, ly = float(left), ly + 18
    return _svg(width, ly + 24, body, "ending mix")


def hand_length_chart(a: dict, b: dict, labels: tuple[str, str]) -> str:
    """The share of hands of each length (turns), the two rulesets' bars side by side."""
    hist = [{int(k): v for k, v in rep.get("hand_turns", {}).items()} for rep in (a, b)]
    top = max([max(h, default=0) for h in hist] + [1])
    shares = [{k: v / max(1, rep["hands"]) for k, v in h.items()} for h, rep in zip(hist, (a, b))]
    peak = max([max(s.values(), default=0.0) for s in shares] + [0.01])
    width, height, left, bottom = 640, 220, 40, 180
    step = (width - left - 10) / top
    body: list[str] = [f'<line x1="{left}" y1="{bottom}" x2="{width - 10}" y2="{bottom}" stroke="#888"/>']
    for k in range(1, top + 1):
        for i, s in enumerate(shares):
            v = s.get(k, 0.0)
            h = v / peak * (bottom - 20)
            x = left + (k - 1) * step + i * step / 2
            if h > 0:
                body.append(
                    f'<rect x="{x:.2f}" y="{bottom - h:.2f}" width="{max(step / 2 - 0.5, 0.5):.2f}" height="{h:.2f}" fill="{COLOURS[i]}">'
                    f"<title>{escape(f'{labels[i]}: {k} turns, {100 * v:.1f}% of hands')}</title></rect>"
                )
        if k == 1 or k % 5 == 0:
            body.append(_text(left + (k - 0.5) * step, bottom + 14, str(k), "middle", 10))
    body.append(_text(left, 12, f"share of hands (peak {100 * peak:.1f}%)", "start", 10))
    body.append(_text(width - 10, bottom + 30, "hand length (turns)", "end", 11))
    for i, label in enumerate(labels):
        body.append(f'<rect x="{left + 200 + i * 180}" y="4" width="12" height="12" fill="{COLOURS[i]}"/>')
        body.append(_text(left + 216 + i * 180, 14, label, "start", 11))
    return _svg(width, height + 20, body, "hand length distribution")


def interval_chart(rows: list[dict], labels: tuple[str, str], title: str) -> str:
    """Each row's A and B with their 95 % intervals as whiskers, on one shared scale."""
    lo = min([min(r["a_ci"][0], r["b_ci"][0]) for r in rows] + [0.0])
    hi = max([max(r["a_ci"][1], r["b_ci"][1]) for r in rows] + [0.0])
    if hi - lo < 1e-9:
        hi = lo + 1.0
    width, left, right = 640, 230, 20
    scale = (width - left - right) / (hi - lo)

    def px(v: float) -> float:
        return left + (v - lo) * scale

    body: list[str] = [f'<line x1="{px(0):.1f}" y1="4" x2="{px(0):.1f}" y2="{12 + 34 * len(rows)}" stroke="#bbb"/>']
    for i, r in enumerate(rows):
        y = 14 + i * 34
        body.append(_text(left - 8, y + 12, r["metric"], "end", 11))
        for j, (v, ci) in enumerate(((r["a"], r["a_ci"]), (r["b"], r["b_ci"]))):
            yy = y + 4 + j * 12
            body.append(f'<line x1="{px(ci[0]):.1f}" y1="{yy}" x2="{px(ci[1]):.1f}" y2="{yy}" stroke="{COLOURS[j]}" stroke-width="2"/>')
            body.append(
                f'<circle cx="{px(v):.1f}" cy="{yy}" r="4" fill="{COLOURS[j]}">'
                f"<title>{escape(f'{labels[j]}: {figure_text(r, v)} ({figure_text(r, ci[0])} to {figure_text(r, ci[1])})')}</title></circle>"
            )
    bottom = 14 + 34 * len(rows)
    body.append(_text(px(lo), bottom + 10, figure_text(rows[0], lo) if rows else "", "start", 10))
    body.append(_text(px(hi), bottom + 10, figure_text(rows[0], hi) if rows else "", "end", 10))
    return _svg(width, bottom + 16, body, title)


# --- the page ------------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #222; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.5rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, td.verdict { text-align: left; }
tr.certain td.verdict { font-weight: bold; color: #7a2e0e; }
tr.likely td.verdict { color: #7a2e0e; }
tr.noise td.verdict, tr.same td.verdict { color: #666; }
ul.findings li { margin: 0.2rem 0; }
ul.noise { color: #555; font-size: 0.85rem; columns: 2; }
summary { cursor: pointer; color: #555; }
.a { color: #3b6ea8; } .b { color: #d9822b; }
p.note { color: #555; font-size: 0.85rem; }
"""

_VERDICT_CLASS = {"certain": "certain", "likely real": "likely", "within noise": "noise", "no difference": "same"}


def _cells(row: dict) -> str:
    data = " ".join(f'data-{k}="{escape(repr(float(row[k])))}"' for k in ("a", "b", "diff", "se"))
    data += f' data-ci-lo="{escape(repr(float(row["ci"][0])))}" data-ci-hi="{escape(repr(float(row["ci"][1])))}"'
    return (
        f'<tr class="{_VERDICT_CLASS.get(row["verdict"], "noise")}" data-metric="{escape(row["metric"])}" {data}>'
        f"<td>{escape(row['metric'])}</td><td>{escape(figure_text(row, row['a']))}</td><td>{escape(figure_text(row, row['b']))}</td>"
        f"<td>{escape(difference_text(row))}</td><td class=\"verdict\">{escape(row['verdict'])}</td></tr>"
    )


def _config_line(rep: dict) -> str:
    cfg = rep["config"]
    return f"{rep['hands']} hands, {cfg['players']} players, bots {', '.join(cfg['bots'])}, seed {cfg['seed']}"


def lab_html(result: dict, label_a: str, label_b: str) -> str:
    """The report page of a comparison (``{"a", "b", "rows"}`` as :func:`compare_rulesets` gives)."""
    a, b, rows = result["a"], result["b"], result["rows"]
    labels = (f"A: {label_a}", f"B: {label_b}")
    real = [r for r in rows if r["verdict"] in ("certain", "likely real")]
    noise = [r for r in rows if r["verdict"] not in ("certain", "likely real")]
    by_metric = {r["metric"]: r for r in rows}
    knock_rows = [by_metric[m] for m in ("knocks won (share)", "tonk-out rate", "knocks per hand") if m in by_metric]
    seat_rows = [r for r in rows if r["metric"].endswith("mean net") and not r["metric"].startswith("bot ")]
    bot_rows = [r for r in rows if r["metric"].startswith("bot ") and r["metric"].endswith("mean net")]
    parts: list[str] = [
        "<h1>House-rule lab</h1>",
        f'<p><span class="a">{escape(labels[0])}</span> against <span class="b">{escape(labels[1])}</span>: '
        f"{escape(_config_line(a))}, the same decks, first dealers and bots under both rulesets.</p>",
        "<h2>What the rule changes</h2>",
    ]
    if real:
        parts.append('<ul class="findings">' + "".join(f"<li>{escape(sentence(r))}</li>" for r in real) + "</ul>")
    else:
        parts.append("<p>No difference stands out from the noise at this many hands.</p>")
    if noise:
        parts.append('<details><summary>Within noise or equal (' + str(len(noise)) + ')</summary><ul class="noise">' + "".join(f"<li>{escape(sentence(r))}</li>" for r in noise) + "</ul></details>")
    parts += [
        "<h2>Ending mix</h2>",
        ending_mix_chart(a, b, labels),
        "<h2>Hand length</h2>",
        hand_length_chart(a, b, labels),
    ]
    if knock_rows:
        parts += ["<h2>Knocks and tonk outs</h2>", interval_chart(knock_rows, labels, "knocks and tonk outs")]
    if seat_rows:
        parts += ["<h2>Net per seat position</h2>", interval_chart(seat_rows, labels, "net per seat position")]
    if bot_rows:
        parts += ["<h2>Net per bot</h2>", interval_chart(bot_rows, labels, "net per bot")]
    parts += [
        "<h2>Every figure</h2>",
        "<table><thead><tr><th>figure</th><th>A</th><th>B</th><th>B − A (95% interval)</th><th>verdict</th></tr></thead><tbody>",
        "".join(_cells(r) for r in rows),
        "</tbody></table>",
        '<p class="note">Intervals are 95 % normal-approximation intervals; the two rulesets are '
        "treated as independent samples. A difference is <b>certain</b> at 3.29 standard errors or more "
        "(under 1 in 1,000 by chance), <b>likely real</b> at 1.96 or more (under 1 in 20), else "
        "<b>within noise</b>. Net is in stakes per hand.</p>",
    ]
    style = CSS
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
    policy = f"default-src 'none'; style-src {digest}; img-src 'none'; base-uri 'none'; form-action 'none'"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(f'House-rule lab: {label_a} against {label_b}')}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n"
    )


__all__ = ["difference_text", "figure_text", "lab_html", "sentence"]
