"""A variant's reST docstring as readable terminal text (Rich markup).

Only what docstrings use: ``literals``, *emphasis*, **strong**, :role:`text`,
`links <url>`_, bullet lists, section titles underlined with ``=``/``-``/``~``,
``::`` before a literal block.  Everything else is shown as written, escaped.
"""

from __future__ import annotations

import re

from .render import safe

_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+])\1{2,}\s*$")
_INLINE = re.compile(
    r"``(?P<lit>.+?)``"
    r"|:[\w:-]+:`(?P<role>[^`]+?)`"
    r"|`(?P<link>[^`<]+?)\s*<[^>]*>`__?"
    r"|`(?P<ref>[^`]+?)`_{0,2}"
    r"|\*\*(?P<strong>[^*]+?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^*\s][^*]*?)\*(?![\w*])"
)


def inline(text: str) -> str:
    """One line's inline markup turned into Rich markup; the rest escaped."""
    out = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(safe(text[pos : m.start()]))
        if m.group("lit") is not None:
            out.append(f"[cyan]{safe(m.group('lit'))}[/cyan]")
        elif m.group("role") is not None:
            role = m.group("role")
            role = role.split("<")[0].strip() if "<" in role else role
            out.append(f"[cyan]{safe(role.lstrip('~').split('.')[-1] if role.startswith('~') else role)}[/cyan]")
        elif m.group("link") is not None:
            out.append(f"[underline]{safe(m.group('link'))}[/underline]")
        elif m.group("ref") is not None:
            out.append(safe(m.group("ref")))
        elif m.group("strong") is not None:
            out.append(f"[bold]{safe(m.group('strong'))}[/bold]")
        else:
            out.append(f"[italic]{safe(m.group('em'))}[/italic]")
        pos = m.end()
    out.append(safe(text[pos:]))
    return "".join(out)


def rst_to_markup(doc: str) -> str:
    """The whole docstring as Rich markup lines."""
    lines = doc.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and _UNDERLINE.match(nxt) and not _UNDERLINE.match(line):  # a section title
            out.append(f"[bold]{inline(line.strip())}[/bold]")
            i += 2
            continue
        if _UNDERLINE.match(line) and line.strip():  # an overline or a stray rule
            i += 1
            continue
        bullet = re.match(r"^(\s*)[*+-]\s+(.*)$", line)
        if bullet and not line.lstrip().startswith("**"):
            out.append(f"{bullet.group(1)}\u2022 {inline(bullet.group(2))}")
        elif line.endswith("::"):
            text = line[:-2].rstrip()
            out.append(inline(text + ":") if text else "")
        else:
            out.append(inline(line))
        i += 1
    return "\n".join(out)
