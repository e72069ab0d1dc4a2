"""Issue 18, finding 2, in a real browser: a page served from another loopback port (the same
*site* as the service, so its SameSite=Strict stream cookie travels with the requests) tries to
act for a seat whose stream cookie the browser holds: a ``text/plain`` fetch with credentials,
a ``text/plain`` form POST, a JSON fetch (a CORS preflight the server never grants) and a read
of the seat's view.  Nothing is applied, and the cookie opens neither the view nor commands,
not even from the service's own pages."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import httpx
import pytest

from seating import httpx_post, sit_everyone  # tests/support
from tonk.storage import EventStore

pytestmark = pytest.mark.browser

ATTACKER = """<!doctype html>
<html><head><meta charset="utf-8"><title>a page on another port</title></head>
<body>
<iframe name="sink" id="sink"></iframe>
<script>
async function attack() {
  const p = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  const base = p.target + "/tables/" + p.table;
  const results = {};
  const tryIt = async (name, f) => { try { results[name] = await f(); } catch (e) { results[name] = "refused by the browser: " + e.name; } };
  await tryIt("text/plain fetch", async () => (await fetch(base + "/commands", { method: "POST", mode: "no-cors", credentials: "include", headers: { "Content-Type": "text/plain" }, body: JSON.stringify(p.command) })).type);
  await tryIt("json fetch", async () => (await fetch(base + "/commands", { method: "POST", mode: "cors", credentials: "include", headers: { "Content-Type": "application/json" }, body: JSON.stringify(p.command) })).status);
  await tryIt("view fetch", async () => (await fetch(base + "/view", { mode: "no-cors", credentials: "include" })).type);
  await tryIt("close fetch", async () => (await fetch(base + "/close", { method: "POST", mode: "no-cors", credentials: "include" })).type);
  // a form whose text/plain body is the command's JSON: name '{"action":...,"pad":"' value '"}'
  const form = document.createElement("form");
  form.method = "POST";
  form.enctype = "text/plain";
  form.action = base + "/commands";
  form.target = "sink";
  const field = document.createElement("input");
  const text = JSON.stringify({ ...p.command, pad: "" });
  field.name = text.slice(0, -2);
  field.value = text.slice(-2);
  form.appendChild(field);
  document.body.appendChild(form);
  await new Promise((resolve) => { document.getElementById("sink").onload = resolve; form.submit(); });
  results["form post"] = "sent";
  window.results = results;
  document.title = "done";
}
attack();
</script>
</body></html>
"""


class AttackerPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        body = ATTACKER.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def attacker():
    """A page on another free loopback port, served from a thread: its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AttackerPage)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def state(db: Path, table: str) -> tuple[int, int]:
    with EventStore.open(db, create=False) as store:
        closed = store.db.conn.execute("SELECT closed FROM served_tables WHERE game_id = ?", (table,)).fetchone()[0]
        return store.version(table), closed


def test_a_page_on_another_port_cannot_act_for_a_seat_with_a_stream_cookie(page, server, attacker):
    base = server.url
    http = httpx.Client(base_url=base, timeout=30)
    for _ in range(10):  # a secure shuffle may end the hand at the deal: then another table
        created = sit_everyone(httpx_post(http), http.post("/tables", json={"seats": ["ann", "bob"]}).json())
        tid = created["table"]
        views = {s: http.get(f"/tables/{tid}/view", headers={"Authorization": f"Bearer {t}"}).json() for s, t in created["tokens"].items()}
        mover = next((s for s, v in views.items() if v["legal"]), None)
        if mover:
            break
    else:
        raise AssertionError("ten tables in a row had nobody to act")
    token = created["tokens"][mover]
    legal = next(a for a in views[mover]["legal"] if a["action"] == "draw_stock")
    command = {"action": "draw_stock", "version": views[mover]["version"], "command_id": "from-another-origin"}
    assert legal["player"] == mover

    # the seat sits down at its own page: the browser now holds the seat's stream cookie
    page.goto(f"{base}/play/{tid}")
    page.wait_for_selector("body[data-ready=token]")
    page.fill("#token", token)
    page.press("#token", "Enter")
    page.wait_for_selector("body[data-ready=true]")
    # (Playwright's own assertion: the page's Content-Security-Policy refuses an evaluated expression)
    from playwright.sync_api import expect

    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
    cookies = {c["name"]: c for c in page.context.cookies(f"{base}/tables/{tid}/events")}
    cookie = cookies[f"tonk_stream_{tid}_{mover.encode().hex()}"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == f"/tables/{tid}"
    assert cookie["value"] != token and token not in cookie["value"]
    before = state(server.db, tid)

    # the page on another port tries everything
    seen: list[tuple[str, str, int, str | None]] = []

    def keep(response) -> None:
        if response.url.startswith(f"{base}/tables/{tid}/"):
            headers = response.request.all_headers()
            seen.append((response.request.method, response.url.rsplit("/", 1)[-1], response.status, headers.get("cookie")))

    evil = page.context.new_page()
    evil.on("response", keep)
    evil.goto(f"{attacker}/attack.html#" + json.dumps({"target": base, "table": tid, "command": command}))
    evil.wait_for_function("document.title === 'done'", timeout=20000)
    results = evil.evaluate("window.results")
    evil.close()
    assert results["json fetch"].startswith("refused by the browser"), results  # the preflight is never granted
    posts = [(what, status, sent) for method, what, status, sent in seen if method == "POST"]
    # the text/plain fetch, the form and the close reached the server, with the cookie, and were refused
    assert sorted(what for what, _, _ in posts) == ["close", "commands", "commands"], seen
    assert all(status in (401, 403, 415) for _, status, _ in posts), seen
    # the same site: the browser sent the cookie along (Playwright reports the header for the
    # form's navigation; for a fetch its report may leave the cookie out)
    assert any(sent and f"{cookie['name']}={cookie['value']}" in sent for _, _, sent in posts), seen
    assert [(m, w, s) for m, w, s, _ in seen if w == "view"] == [("GET", "view", 401)], seen
    assert state(server.db, tid) == before

    # not even the seat's own page opens the view or commands with the cookie alone
    own = page.evaluate(
        """async ([tid, command]) => {
            const base = "/tables/" + tid;
            const view = await fetch(base + "/view", { credentials: "same-origin" });
            const act = await fetch(base + "/commands", { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(command) });
            return [view.status, act.status];
        }""",
        [tid, command],
    )
    assert own == [401, 401]
    assert state(server.db, tid) == before
    # and the seat, with its token, still plays: the command the other page tried is legal
    r = http.post(f"/tables/{tid}/commands", headers={"Authorization": f"Bearer {token}"}, json=command)
    assert r.status_code == 200, r.text
    assert state(server.db, tid)[0] > before[0]
