"""Checks the browser tests run inside a page (tests/web)."""

#: every visible text with its contrast ratio against the first opaque background behind it
#: (WCAG's relative luminance), as ``[[text, ratio], ...]``
CONTRAST = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el.getClientRects().length) continue;
    const fg = rgb(getComputedStyle(el).color).slice(0, 3);
    const [a, b] = [lum(fg), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push([n.textContent.trim().slice(0, 30), Math.round(ratio * 100) / 100]);
  }
  return out;
}"""


def only_this_file(page, path) -> list[str]:
    """Let ``page`` load the file ``path`` and nothing else: every other request it makes is
    aborted and its address noted in the list returned (empty when the file needs no network)."""
    attempted: list[str] = []

    def only_the_file(route):
        if route.request.url.split("#")[0] == path.as_uri():
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    page.on("request", lambda r: r.url.split("#")[0] == path.as_uri() or attempted.append(r.url))
    page.route("**/*", only_the_file)
    return attempted
