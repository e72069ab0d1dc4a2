// A seat at a served table. Everything shown is the seat's view as the service computed it
// (GET .../view, refreshed on each event of the seat's stream); the page never judges a
// move: it sends the command and shows the engine's answer (an illegal one with its code,
// rule id and sentence, and nothing changes). Text is always set as text.
import { call, errorText, keepToken, tokenFor } from "./api.js";
import { cardElement, cardList, cardName, cardFace } from "./cards.js";
import { endName } from "./describe.js";

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

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function count(n, noun) {
  return n + " " + noun + (n === 1 ? "" : "s");
}

function signed(n) {
  return n > 0 ? "+" + n : n < 0 ? "\u2212" + -n : "0";
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
}

// --- talking to the service ------------------------------------------------------------------

async function refresh() {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    const result = await call("GET", "/tables/" + encodeURIComponent(table) + "/view", { token });
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
    const result = await call("POST", "/tables/" + encodeURIComponent(table) + "/commands", { token, body });
    if (result.ok) {
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

function listen() {
  if (stream) stream.close();
  stream = new EventSource("/tables/" + encodeURIComponent(table) + "/events");
  stream.addEventListener("open", () => { $("connection").textContent = "live"; refresh(); });
  stream.addEventListener("error", () => {
    $("connection").textContent = "reconnecting\u2026";
    // refused (not a lost connection, which EventSource retries itself): the stream cookie
    // has expired, say; ask for a new one with the token
    if (stream.readyState === EventSource.CLOSED) setTimeout(sitDown, 2000);
  });
  stream.addEventListener("snapshot", (message) => render(JSON.parse(message.data)));
  for (const type of EVENT_TYPES) stream.addEventListener(type, () => refresh());
}

async function sitDown() {
  const result = await call("POST", "/tables/" + encodeURIComponent(table) + "/session", { token });
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
