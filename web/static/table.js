// A seat at a served table. Everything shown is the seat's view as the service computed it
// (GET .../view, refreshed on each event of the seat's stream); the page never judges a
// move: it sends the command and shows the engine's answer (an illegal one with its code,
// rule id and sentence, and nothing changes). Text is always set as text.
// The connection status (#connection, a live region) says when the server is gone (the
// stream's error or a "shutdown" message, a request that could not be sent) and when it is
// back (the stream open again: the view is read again); once the game has ended the stream
// is closed and the status says so, never "reconnecting".
import { call, errorText, keepToken, tokenFor } from "./api.js";
import { cardElement, cardList, cardName, cardFace } from "./cards.js";
import { endName } from "./describe.js";
import { el, signed } from "./dom.js";

const $ = (id) => document.getElementById(id);
const table = decodeURIComponent(location.pathname.split("/").pop());
const EVENT_TYPES = ["game_started", "hand_dealt", "knocked", "card_drawn", "empty_stock_called", "spread_laid", "card_hit", "card_discarded", "hand_ended", "game_ended"];

let token = tokenFor(table);
let seat = null;
let current = null; // the latest SeatView
let selected = [];
let target = null;
let stream = null;
let refreshing = null;
let busy = false;
let ended = false; // the game has ended: the stream is closed for good
let lost = false; // the server could not be reached; the stream is reconnecting
let retry = null;

function count(n, noun) {
  return n + " " + noun + (n === 1 ? "" : "s");
}

function myTurn() {
  return current && current.status !== "ended" && current.view.in_hand && current.view.to_act === seat;
}

// --- drawing ------------------------------------------------------------------------------

function drawHand(view) {
  const hand = view.hand || [];
  selected = selected.filter((c) => hand.includes(c));
  const box = document.createDocumentFragment();
  for (const code of hand) {
    const button = el("button", cardFace(code), "card");
    button.type = "button";
    if (/[HD]$/.test(code)) button.classList.add("red");
    button.dataset.card = code;
    button.setAttribute("aria-label", cardName(code));
    button.setAttribute("aria-pressed", String(selected.includes(code)));
    button.addEventListener("click", () => {
      selected = selected.includes(code) ? selected.filter((c) => c !== code) : [...selected, code];
      button.setAttribute("aria-pressed", String(selected.includes(code)));
    });
    box.append(button);
  }
  if (!hand.length) box.append(el("p", "no cards", "empty"));
  $("hand").replaceChildren(box);
}

function drawTable(view) {
  const piles = document.createDocumentFragment();
  piles.append(el("li", "Hand " + view.hand_no + ", turn " + view.turn_no));
  piles.append(el("li", "Stock: " + count(view.stock_size, "card")));
  const discard = el("li", "Discard pile: " + count(view.discard_size, "card"));
  if (view.discard_top) { discard.append(", top "); discard.append(cardElement(view.discard_top, "span")); }
  piles.append(discard);
  if (view.drew && view.to_act) {
    const drew = el("li", view.to_act + " drew from the " + (view.drew === "discard" ? "discard pile" : "stock"));
    if (view.drawn_card) { drew.append(" "); drew.append(cardElement(view.drawn_card, "span")); }
    piles.append(drew);
  }
  $("piles").replaceChildren(piles);

  const others = document.createDocumentFragment();
  for (const p of view.players) {
    if (p === seat) continue;
    const box = el("section", null, "seat");
    box.dataset.player = p;
    const title = el("h3", p);
    const notes = [];
    if (p === view.dealer) notes.push("dealer");
    if (view.in_hand && view.to_act === p) notes.push("to act");
    if (current.bots[p]) notes.push(current.bots[p] + " bot");
    if (notes.length) title.append(el("span", " (" + notes.join(", ") + ")", "badges"));
    box.append(title);
    const cards = view.hands && view.hands[p] ? view.hands[p] : Array(view.hand_sizes[p] || 0).fill("??");
    box.append(cardList(cards, p + "'s hand: " + count(cards.length, "card")));
    others.append(box);
  }
  $("others").replaceChildren(others);

  if (!view.table.length) {
    $("spreads").replaceChildren(el("p", "none", "empty"));
    target = null;
  } else {
    const group = el("fieldset", null, "spreads");
    group.append(el("legend", "Spreads (choose one to hit)"));
    if (!view.table.some((s) => s.id === target)) target = null;
    for (const s of view.table) {
      const row = el("div", null, "spread");
      const radio = el("input");
      radio.type = "radio";
      radio.name = "target";
      radio.id = "target-" + s.id;
      radio.value = s.id;
      radio.checked = s.id === target;
      radio.addEventListener("change", () => { target = s.id; });
      const label = el("label", s.id + ": " + s.owner + "'s " + s.kind + " ");
      label.htmlFor = radio.id;
      label.append(cardList(s.cards, s.owner + "'s " + s.kind + " " + s.id));
      row.append(radio, " ", label);
      group.append(row);
    }
    $("spreads").replaceChildren(group);
  }
}

function drawScores(state) {
  const view = state.view;
  $("scores").replaceChildren(el("p", view.players.map((p) => p + " " + signed(view.net[p] || 0)).join(", "), "net"));
  const last = state.last_hand;
  if (last && last.ended) {
    const end = last.ended;
    const box = document.createDocumentFragment();
    box.append(el("h3", "Hand " + end.hand_no + " ended by " + endName(end.end) + (end.player ? " (" + end.player + ")" : "")));
    box.append(el("p", "Totals: " + Object.entries(end.totals).map(([p, t]) => p + " " + t).join(", ")));
    const ledger = el("ul", null, "ledger");
    ledger.setAttribute("aria-label", "ledger of hand " + end.hand_no);
    for (const pay of end.ledger) ledger.append(el("li", pay.from + " pays " + pay.to + " " + pay.amount + " (" + pay.reason + ")"));
    if (!end.ledger.length) ledger.append(el("li", "no payments"));
    box.append(ledger);
    $("last-hand").replaceChildren(box);
  }
  if (state.status === "ended") {
    const link = el("a", "Replay this game");
    link.href = "/games/" + encodeURIComponent(table);
    $("replay-link").replaceChildren("The game has ended. ", link);
  }
}

function render(state) {
  current = state;
  seat = state.seat;
  const view = state.view;
  $("whoami").textContent = "You are " + seat + " at table " + table.slice(0, 8) + ".";
  $("turn").textContent = state.status === "ended" ? "The game has ended."
    : !view.in_hand ? "Between hands."
    : view.to_act === seat ? "Your turn." : view.to_act + " to act.";
  drawHand(view);
  drawTable(view);
  drawScores(state);
  for (const id of ["draw_stock", "draw_discard", "knock", "spread", "hit", "discard"]) $(id).disabled = !myTurn() || busy;
  document.body.dataset.version = String(state.version);
  document.body.dataset.ready = "true";
  if (state.status === "ended") gameOver();
}

// --- the connection ----------------------------------------------------------------------------

const CONNECTION = { connected: "connected", lost: "connection lost \u2014 reconnecting\u2026", ended: "the game has ended" };

function showConnection(state) {
  const box = $("connection");
  box.dataset.state = state;
  if (box.textContent !== CONNECTION[state]) box.textContent = CONNECTION[state];
}

function connectionLost() {
  if (ended) return;
  lost = true;
  showConnection("lost");
}

function connectionBack() {
  lost = false;
  showConnection("connected");
}

function gameOver() {
  ended = true;
  clearTimeout(retry);
  if (stream) stream.close();
  showConnection("ended");
}

// A request to the service; null when the server could not be reached (the status says so).
async function request(method, path, options) {
  let result;
  try {
    result = await call(method, path, options);
  } catch (_) {
    connectionLost();
    return null;
  }
  if (lost && stream && stream.readyState === EventSource.OPEN) connectionBack();
  return result;
}

// --- talking to the service ------------------------------------------------------------------

async function refresh() {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    const result = await request("GET", "/tables/" + encodeURIComponent(table) + "/view", { token });
    if (!result) return;
    if (result.ok) render(result.data);
    else $("connection").textContent = "error: " + errorText(result);
  })();
  try { await refreshing; } finally { refreshing = null; }
}

function showProblem(error) {
  const box = $("problem");
  box.replaceChildren();
  if (!error) return;
  if (error.violation) {
    box.append(el("strong", "Illegal: "), el("code", error.violation, "violation"), " \u00b7 rule ", el("code", error.rule, "rule"), " \u2014 ", el("span", error.sentence, "sentence"));
  } else {
    box.append(el("span", "error: " + error.message, "sentence"));
  }
}

async function act(action) {
  if (!myTurn() || busy) return;
  const body = { action, version: current.version, command_id: crypto.randomUUID() };
  if (action === "spread") body.cards = [...selected];
  if (action === "discard" || action === "hit") {
    if (selected.length !== 1) return showProblem({ message: "select exactly one card to " + action });
    body.card = selected[0];
  }
  if (action === "hit") {
    if (!target) return showProblem({ message: "choose the spread to hit" });
    body.target = target;
  }
  busy = true;
  try {
    const result = await request("POST", "/tables/" + encodeURIComponent(table) + "/commands", { token, body });
    if (!result) {
      showProblem({ message: "the server could not be reached, so the command may not have been played; the table is shown again once it is back" });
    } else if (result.ok) {
      showProblem(null);
      selected = [];
    } else {
      showProblem(result.data && result.data.error ? result.data.error : { message: errorText(result) });
    }
  } finally {
    busy = false;
    await refresh();
  }
}

// The seat's stream. EventSource reconnects by itself (with Last-Event-ID) when the server
// ends the stream (its "shutdown" message) or cannot be reached; when it gives up (an answer
// that is not a stream) a new one is opened a little later.
function listen() {
  if (stream) stream.close();
  clearTimeout(retry);
  if (ended) return;
  const source = new EventSource("/tables/" + encodeURIComponent(table) + "/events");
  stream = source;
  source.addEventListener("open", () => { connectionBack(); refresh(); });
  source.addEventListener("error", () => {
    if (ended || source !== stream) return;
    connectionLost();
    // refused (not a lost connection, which EventSource retries itself): the stream cookie
    // has expired, say, or the server was down; ask for a new one with the token
    if (source.readyState === EventSource.CLOSED) retry = setTimeout(sitDown, 2000);
  });
  source.addEventListener("shutdown", () => connectionLost());
  source.addEventListener("snapshot", (message) => render(JSON.parse(message.data)));
  for (const type of EVENT_TYPES) source.addEventListener(type, () => refresh());
  source.addEventListener("game_ended", () => gameOver()); // the server ends the stream: no reconnecting
}

async function sitDown() {
  const result = await request("POST", "/tables/" + encodeURIComponent(table) + "/session", { token });
  if (!result) {
    retry = setTimeout(sitDown, 2000);
    return;
  }
  if (!result.ok) {
    $("connection").textContent = "error: " + errorText(result);
    $("token-form").hidden = false;
    document.body.dataset.ready = "error";
    return;
  }
  $("token-form").hidden = true;
  await refresh();
  listen();
}

function setUp() {
  const keys = { d: "draw_stock", p: "draw_discard", k: "knock", s: "spread", h: "hit", x: "discard" };
  for (const id of Object.values(keys)) $(id).addEventListener("click", () => act(id));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const action = keys[event.key];
    if (action) { event.preventDefault(); act(action); }
  });
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    token = $("token").value.trim();
    keepToken(table, token);
    sitDown();
  });
  if (token) sitDown();
  else { $("token-form").hidden = false; document.body.dataset.ready = "token"; }
}

setUp();
