// The service's state on a page, in one banner (#connection, role=status): the server cannot
// be reached (and the page is reconnecting), it is back, or (the table page) the game has
// ended. Every request made through api.js tells this module whether it reached the server
// (a "tonk-service" event on the document); a page with a stream of its own (the table)
// also says so itself (serviceLost, serviceBack). Once the game has ended the page never
// says "reconnecting": a request that cannot be sent then says only that the server cannot
// be reached.

const TEXT = {
  connected: "connected",
  lost: "The server cannot be reached \u2014 reconnecting\u2026",
  back: "Connected again: the page is up to date.",
  down: "The server cannot be reached.",
  ended: "the game has ended",
};
const PING_MS = 3000;

let state = null;
let ended = false;
let options = { poll: true, back: null };
let pinging = null;

function show(next) {
  state = next;
  const box = document.getElementById("connection");
  if (!box) return;
  box.dataset.state = next;
  if (box.textContent !== TEXT[next]) box.textContent = TEXT[next];
}

// Start watching: `poll` (a page with no stream of its own) pings the server while it cannot
// be reached, and says when it is back; `back()` is called then (to read again what it shows).
export function watchService({ poll = true, back = null } = {}) {
  options = { poll, back };
  document.addEventListener("tonk-service", (event) => {
    if (event.detail.reachable) {
      if (ended) { if (state === "down") show("ended"); }
      else if (state === "lost" && options.poll) serviceBack();
    } else {
      serviceLost();
    }
  });
}

export function serviceLost() {
  if (ended) { show("down"); return; }
  if (state === "lost") return;
  show("lost");
  if (options.poll && !pinging) pinging = setTimeout(ping, PING_MS);
}

async function ping() {
  pinging = null;
  if (state !== "lost") return;
  try {
    const response = await fetch("/ping", { credentials: "same-origin", cache: "no-store" });
    if (response.ok) { serviceBack(); return; }
  } catch (_) {
    // still unreachable
  }
  pinging = setTimeout(ping, PING_MS);
}

// The server answered again (after it could not be reached): say so, and let the page read again.
export function serviceBack() {
  if (ended) return;
  const wasLost = state === "lost";
  show(wasLost ? "back" : state === "back" ? "back" : "connected");
  if (wasLost && options.back) options.back();
}

// The first connection made (the table's stream open): "connected", unless it is a return.
export function serviceConnected() {
  if (ended) return;
  if (state === "lost") serviceBack();
  else if (state !== "back") show("connected");
}

export function serviceEnded() {
  ended = true;
  clearTimeout(pinging);
  pinging = null;
  show("ended");
}

export function serviceState() {
  return state;
}
