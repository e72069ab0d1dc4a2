// A seat at a served table. Everything shown is the seat's view as the service computed it
// (GET .../view, refreshed on each event of the seat's stream); the page never judges a
// move: it sends the command and shows the engine's answer (an illegal one with its code,
// rule id and sentence, and nothing changes). Text is always set as text.
// The service's state is one banner (#connection, role=status; service.js): the server cannot
// be reached and the page is reconnecting (the stream's error or "shutdown" message, a
// request that could not be sent), it is back (the stream open again: the view is read
// again); once the game has ended the stream is closed and the banner says so, never
// "reconnecting". Every failed request is told in words.
// What a card click does, and the controls the selection drives: see "what a card click does".
// "Your seat link" (the token in the fragment, shown to the player with the word to keep it
// secret like a password) and, at the game's end, the rematch: started here by the device that
// hosts the table, joined here by each seat (its new token kept, then the new table).
// The move log (#log, role=log) shows every event the seat may see, in order, one hand per
// <details> (the earlier hands folded): on sitting down the events before the stream's
// snapshot are read from the same stream, resumed after seq 0 (Last-Event-ID, with the token
// in the header, as the API offers); later ones as the stream sends them, the others' moves
// one after another, `?pace=MS` apart (default 700; 0 shows them at once).
// A hand's end stays on screen (#hand-end: how it ended, every hand and its total, the
// ledger, the net) until the player moves on ("Next hand"; on a timed table by itself after
// a short time); the next deal is shown then.
import { call, errorText, hostTokenFor, keepHostToken, keepToken, seatLink, tokenFor } from "./api.js";
import { cardElement, cardList, cardName, cardFace, sentenceElement } from "./cards.js";
import { describeEvent, endName, endSentence, paymentSentence } from "./describe.js";
import { el, own, signed } from "./dom.js";
import { serviceBack, serviceConnected, serviceEnded, serviceLost, serviceState, watchService } from "./service.js";
import { showSeating, sitDown as sitWithSeed } from "./sit.js";

const $ = (id) => document.getElementById(id);
const table = tableOf(location.pathname);
const EVENT_TYPES = ["game_started", "hand_dealt", "knocked", "card_drawn", "empty_stock_called", "spread_laid", "card_hit", "card_discarded", "hand_ended", "game_ended"];

let token = tokenFor(table);
let seat = null;
let current = null; // the latest SeatView
let selected = [];
let picks = 0; // the player's selection changes (a command's answer clears only the selection it was sent with)
let target = null;
let stream = null;
let refreshing = null;
let busy = false;
let ended = false; // the game has ended: the stream is closed for good
let retry = null;
let shownHand = null; // the hand the page shows for play (a later deal waits for "Next hand")
let holding = false; // a hand's end is on screen
let holdTimer = null;
let sortBy = "dealt";
const PACE = paceSetting();
const REMATCH_LOOK_MS = 4000;
const ACTIONS = ["draw_stock", "draw_discard", "knock", "spread", "hit", "discard"];

// The table's id: the address's last segment, decoded; one that is no valid percent-encoding
// (/play/%E0) is taken as it is, and the service answers that it knows no such table.
function tableOf(path) {
  const last = path.split("/").pop();
  try {
    return decodeURIComponent(last);
  } catch (_) {
    return last;
  }
}

function paceSetting() {
  const asked = new URLSearchParams(location.search).get("pace");
  const ms = asked === null ? NaN : Number(asked);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 10000) : 700;
}

function count(n, noun) {
  return n + " " + noun + (n === 1 ? "" : "s");
}

function myTurn() {
  return current && current.status !== "ended" && current.view.in_hand && current.view.to_act === seat;
}

// --- drawing ------------------------------------------------------------------------------

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUIT_ORDER = "SHDC";

function rankOf(code) {
  const i = RANKS.indexOf(code.slice(0, -1));
  return i < 0 ? 99 : i; // jokers last
}

function suitOf(code) {
  const i = SUIT_ORDER.indexOf(code.slice(-1));
  return i < 0 ? 9 : i;
}

function sorted(hand) {
  const cards = [...hand];
  if (sortBy === "rank") cards.sort((a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b));
  if (sortBy === "suit") cards.sort((a, b) => suitOf(a) - suitOf(b) || rankOf(a) - rankOf(b));
  return cards;
}

// The cards drawn in #hand, as a key ("" before any): a hand that has not changed keeps its
// buttons (only their pressed state is set again), so a redraw between the two clicks of a
// double click, or while a card has the keyboard's focus, loses neither.
let drawnHand = null;

function drawHand(view) {
  const hand = sorted(view.hand || []);
  selected = selected.filter((c) => hand.includes(c));
  const key = hand.join(" ");
  if (key === drawnHand) {
    markSelected();
    return;
  }
  drawnHand = key;
  const box = document.createDocumentFragment();
  for (const code of hand) {
    const button = el("button", cardFace(code), "card");
    button.type = "button";
    if (/[HD]$/.test(code)) button.classList.add("red");
    button.dataset.card = code;
    button.setAttribute("aria-label", cardName(code));
    button.setAttribute("aria-pressed", String(selected.includes(code)));
    button.addEventListener("click", () => toggleCard(code));
    button.addEventListener("dblclick", () => discardCard(code));
    button.addEventListener("keydown", (event) => {
      // Enter on a selected card, when discarding is legal, discards it (else it selects, as Space)
      if (event.key !== "Enter" || !selected.includes(code) || !mayDiscard(code)) return;
      event.preventDefault();
      event.stopPropagation();
      discardCard(code);
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
    if (view.in_hand && view.to_act === p) { box.classList.add("on-turn"); box.setAttribute("aria-current", "true"); }
    const title = el("h3", p);
    const notes = [];
    if (p === view.dealer) notes.push("dealer");
    if (view.in_hand && view.to_act === p) notes.push("to act");
    if (own(current.bots, p)) notes.push(own(current.bots, p) + " bot");
    if (notes.length) title.append(el("span", " (" + notes.join(", ") + ")", "badges"));
    box.append(title);
    const cards = own(view.hands, p) || Array(own(view.hand_sizes, p) || 0).fill("??");
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
      radio.addEventListener("change", () => { target = s.id; updateControls(); });
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
  $("scores").replaceChildren(el("p", view.players.map((p) => p + " " + signed(own(view.net, p) || 0)).join(", "), "net"));
  const last = state.last_hand;
  if (last && last.ended) {
    const end = last.ended;
    const box = document.createDocumentFragment();
    box.append(el("h3", "Hand " + end.hand_no + " ended by " + endName(end.end) + (end.player ? " (" + end.player + ")" : "")));
    box.append(el("p", "Totals: " + Object.entries(end.totals).map(([p, t]) => p + " " + t).join(", ")));
    const ledger = el("ul", null, "ledger");
    ledger.setAttribute("aria-label", "ledger of hand " + end.hand_no);
    for (const pay of end.ledger) ledger.append(el("li", paymentSentence(pay)));
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

// --- a hand's end ----------------------------------------------------------------------------

// The last ended hand, when it is one the player has not moved on from (or the game is over).
function pendingEnd(state) {
  const end = state.last_hand && state.last_hand.ended;
  if (!end) return null;
  if (state.status === "ended") return end;
  return end.hand_no >= shownHand && (state.view.hand_no > shownHand || !state.view.in_hand) ? end : null;
}

function drawHandEnd(state, end) {
  const box = $("hand-end");
  const fresh = box.hidden || box.dataset.hand !== String(end.hand_no);
  box.dataset.hand = String(end.hand_no);
  $("hand-end-heading").textContent = "Hand " + end.hand_no + " has ended";
  $("hand-end-how").textContent = endSentence(end);
  const hands = document.createDocumentFragment();
  for (const p of state.view.players) {
    const cards = own(end.hands, p) || [];
    const seatBox = el("section", null, "seat");
    seatBox.dataset.player = p;
    const total = own(end.totals, p) ?? null;
    seatBox.append(el("h3", (p === seat ? p + " (you)" : p) + (total === null ? "" : ": total " + total)));
    seatBox.append(cards.length ? cardList(cards, p + "'s hand: " + count(cards.length, "card")) : el("p", "no cards", "empty"));
    hands.append(seatBox);
  }
  $("hand-end-hands").replaceChildren(hands);
  const ledger = document.createDocumentFragment();
  for (const pay of end.ledger) ledger.append(el("li", paymentSentence(pay)));
  if (!end.ledger.length) ledger.append(el("li", "no payments"));
  $("hand-end-ledger").replaceChildren(ledger);
  $("hand-end-ledger").setAttribute("aria-label", "ledger of hand " + end.hand_no);
  const view = state.view;
  $("hand-end-net").textContent = "Running net: " + view.players.map((p) => p + " " + signed(own(view.net, p) || 0)).join(", ");
  const over = state.status === "ended";
  $("next-hand").hidden = over;
  box.hidden = false;
  if (fresh) {
    clearTimeout(holdTimer);
    if (!over && state.turn_timer) holdTimer = setTimeout(nextHand, Math.min(8, state.turn_timer / 2) * 1000);
    (over ? box : $("next-hand")).focus();
  }
}

function nextHand() {
  clearTimeout(holdTimer);
  if (!current || current.status === "ended") return;
  shownHand = current.view.hand_no;
  $("hand-end").hidden = true;
  render(current);
  pump(); // the next deal's entries
  const first = document.querySelector("#hand button.card");
  (first || $("turn")).focus();
}

function render(state) {
  const before = focusMark();
  current = state;
  seat = state.seat;
  const view = state.view;
  if (shownHand === null) shownHand = view.hand_no;
  const end = pendingEnd(state);
  holding = !!end && state.status !== "ended";
  $("whoami").textContent = "You are " + seat + " at table " + table.slice(0, 8) + ".";
  const turn = state.status === "ended" ? "The game has ended."
    : holding ? "Hand " + end.hand_no + " has ended."
    : !view.in_hand ? "Between hands."
    : view.to_act === seat ? "Your turn." : view.to_act + " to act.";
  $("turn").textContent = turn;
  $("turn").classList.toggle("mine", turn === "Your turn.");
  document.title = (turn === "Your turn." ? "Your turn" : turn.replace(/\.$/, "")) + " \u2014 Tonk table";
  if (end) drawHandEnd(state, end);
  else $("hand-end").hidden = true;
  $("table-section").hidden = !!end;
  $("hand-section").hidden = !!end;
  drawHand(view);
  drawTable(view);
  drawScores(state);
  $("total").textContent = state.hand_total === null || state.hand_total === undefined ? "" : "Your hand counts " + state.hand_total + " points";
  updateControls();
  restoreFocus(before);
  document.body.dataset.version = String(state.version);
  document.body.dataset.ready = "true";
  if (state.status === "ended") gameOver();
  drawRematch();
  showSeating(state, refresh); // the fair deal: who has sat down (sit.js)
}

// --- what a card click does, and the controls the selection drives ---------------------------
// A click on a card (or Space on it) selects it or lets it go; several may be selected (a
// spread). Once the player has drawn, Enter on a selected card, or a double click on a card,
// discards it. The buttons are enabled only for what is legal now (the view's list): Spread
// when the selected cards are a spread the engine lists, Hit when the one selected card fits
// a spread (that spread is chosen when it is the only one it fits), Discard when one card is
// selected. The keys still ask the engine whatever is selected: it explains a refusal.

function legalOf(action) {
  return ((current && current.legal) || []).filter((c) => c.action === action);
}

function mayAct() {
  return myTurn() && !busy && !holding;
}

function mayDiscard(code) {
  return mayAct() && legalOf("discard").some((c) => c.card === code);
}

function sameCards(a, b) {
  return a.length === b.length && a.every((c) => b.includes(c));
}

function toggleCard(code) {
  picks += 1;
  selected = selected.includes(code) ? selected.filter((c) => c !== code) : [...selected, code];
  markSelected();
  updateControls();
}

// Each card button of the hand pressed as its card is selected or not.
function markSelected() {
  for (const b of $("hand").querySelectorAll("button.card")) b.setAttribute("aria-pressed", String(selected.includes(b.dataset.card)));
}

function discardCard(code) {
  if (!mayDiscard(code)) return;
  picks += 1;
  selected = [code];
  act("discard");
}

function chooseTarget(id) {
  target = id;
  const radio = document.getElementById("target-" + id);
  if (radio) radio.checked = true;
}

function updateControls() {
  const ok = mayAct();
  const legal = new Set(((current && current.legal) || []).map((c) => c.action));
  for (const id of ["draw_stock", "draw_discard", "knock"]) $(id).disabled = !ok || !legal.has(id);
  $("spread").disabled = !ok || !legalOf("spread").some((c) => sameCards(c.cards, selected));
  const hits = selected.length === 1 ? legalOf("hit").filter((c) => c.card === selected[0]) : [];
  const targets = [...new Set(hits.map((c) => c.target))];
  if (ok && targets.length === 1 && target !== targets[0]) chooseTarget(targets[0]);
  $("hit").disabled = !ok || !hits.some((c) => c.target === target);
  $("discard").disabled = !ok || selected.length !== 1 || !mayDiscard(selected[0]);
  const names = selected.map(cardName);
  let text = names.length ? "Selected: " + names.join(", ") + "." : "";
  if (ok && legal.has("discard")) {
    if (!names.length) text = "Select a card to discard it (Enter on it, or a double click), or several to spread.";
    else if (!$("spread").disabled) text += " They make a spread: Spread lays it.";
    else if (!$("hit").disabled) text += " It fits spread " + target + ": Hit plays it there.";
  }
  $("selection").textContent = text;
}

// --- your seat link, and the rematch ---------------------------------------------------------

function drawSeatLink() {
  if (!token) return;
  $("seat-link").value = seatLink(table, token);
  $("seat-link-box").hidden = false;
}

async function copySeatLink() {
  const field = $("seat-link");
  field.focus();
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    $("seat-link-said").textContent = "Copied. Keep it secret.";
  } catch (_) {
    $("seat-link-said").textContent = "Selected: copy it with Ctrl+C (or ⌘C). Keep it secret.";
  }
}

let rematchWatch = null;

// Once the game has ended: "Join the rematch" when the host has started one (the seat's view
// carries its table and this seat's token there); "Start a rematch" on the device that hosts
// the table; else a word that one may come. Drawn again only when what it offers changes.
function drawRematch() {
  const box = $("rematch");
  if (!current || current.status !== "ended") { box.hidden = true; return; }
  const r = current.rematch;
  const host = hostTokenFor(table);
  const offer = r && r.token ? "join" : r ? "started" : host ? "start" : "wait";
  box.hidden = false;
  if (box.dataset.offer === offer) return;
  box.dataset.offer = offer;
  const parts = document.createDocumentFragment();
  if (offer === "join") {
    parts.append(el("p", "The host has started a rematch: a new game with the same seats and rules."));
    parts.append(actionButton("join-rematch", "Join the rematch", () => joinRematch(r)));
  } else if (offer === "started") {
    parts.append(el("p", "The host has started a rematch at table " + r.table.slice(0, 8) + "."));
  } else if (offer === "start") {
    parts.append(el("p", "You host this table: start a new game with the same seats and rules, and each player is offered to join it here."));
    parts.append(actionButton("start-rematch", "Start a rematch", () => startRematch(host)));
  } else {
    parts.append(el("p", "If the host starts a rematch, you can join it from here.", "hint"));
  }
  box.replaceChildren(parts);
  if (offer === "join" && document.activeElement === document.body) $("join-rematch").focus();
}

function actionButton(id, text, onClick) {
  const b = el("button", text);
  b.type = "button";
  b.id = id;
  b.addEventListener("click", onClick);
  return b;
}

// The game has ended and the stream with it: the view is read again now and then (and when
// the tab is shown again) until it names a rematch.
function watchRematch() {
  if (rematchWatch) return;
  const look = () => { if (!current || !current.rematch) refresh(); else stopWatch(); };
  const stopWatch = () => { clearInterval(rematchWatch); document.removeEventListener("visibilitychange", onShow); };
  const onShow = () => { if (!document.hidden) look(); };
  rematchWatch = setInterval(look, REMATCH_LOOK_MS);
  document.addEventListener("visibilitychange", onShow);
}

async function startRematch(hostToken) {
  const result = await request("POST", "/tables/" + encodeURIComponent(table) + "/rematch", { token: hostToken });
  if (!result) return showNotice("The rematch could not be started: the server cannot be reached.");
  if (!result.ok) return showNotice("The rematch could not be started: " + errorText(result));
  keepHostToken(result.data.table, result.data.host_token); // this device hosts the rematch too
  showNotice(null);
  await refresh();
}

function joinRematch(r) {
  keepToken(r.table, r.token);
  location.assign("/play/" + encodeURIComponent(r.table) + location.search);
}

function showNotice(text) {
  $("notice").textContent = text ? "error: " + text : "";
}

// --- keeping the focus where the player works ---------------------------------------------

function focusMark() {
  const f = document.activeElement;
  if (!f || f === document.body) return null;
  if (f.dataset && f.dataset.card && f.closest("#hand")) {
    return { card: f.dataset.card, index: [...$("hand").querySelectorAll("button.card")].indexOf(f) };
  }
  if (f.name === "target") return { target: f.value };
  if (ACTIONS.includes(f.id)) return { action: f.id };
  return null;
}

function restoreFocus(mark) {
  if (!mark || holding) return;
  const f = document.activeElement;
  if (f && f !== document.body && f.isConnected && !f.disabled) return; // still where it was
  let next = null;
  if (mark.card) {
    const cards = [...$("hand").querySelectorAll("button.card")];
    next = cards.find((b) => b.dataset.card === mark.card) || cards[Math.min(mark.index, cards.length - 1)] || null;
  } else if (mark.target) {
    next = document.getElementById("target-" + mark.target);
  } else if (mark.action) {
    const from = ACTIONS.indexOf(mark.action);
    const order = [...ACTIONS.slice(from), ...ACTIONS.slice(0, from)];
    next = order.map((id) => $(id)).find((b) => !b.disabled) || $("hand").querySelector("button.card");
  }
  if (next) next.focus();
  else $("turn").focus();
}

// --- the connection ----------------------------------------------------------------------------

function gameOver() {
  if (ended) return;
  ended = true;
  clearTimeout(retry);
  if (stream) stream.close();
  serviceEnded();
  watchRematch();
  pump(); // the deals held back for a "Next hand" that will not come
}

// A request to the service; null when the server could not be reached (the banner says so:
// service.js hears it from api.js).
async function request(method, path, options) {
  const result = await call(method, path, options);
  if (result.unreachable) return null;
  // a request failed in passing while the stream stayed open: back at once
  if (serviceState() === "lost" && stream && stream.readyState === EventSource.OPEN) serviceBack();
  return result;
}

// --- the move log -----------------------------------------------------------------------------

const pending = new Map(); // seq -> {item, paced} received, waiting for the seqs before it
const queue = []; // in seq order, waiting to be shown
let queued = 0; // the last seq taken into the queue
let logged = 0; // the last seq shown in the log
let pumping = false;
let nextAt = 0; // when the next paced entry may be shown
let catchingUp = null;

// Events as the seat saw them ({seq, hash, event, deal}), from the stream, a command's answer
// or the catch-up; each seq is shown once, in order, whatever the order they came in.
function addItems(items, paced) {
  for (const item of items) {
    if (item && item.seq > queued && !pending.has(item.seq)) pending.set(item.seq, { item, paced });
  }
  while (pending.has(queued + 1)) {
    queue.push(pending.get(queued + 1));
    pending.delete(queued + 1);
    queued += 1;
  }
  pump();
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (queue.length) {
      const { item, paced } = queue[0];
      // the next deal waits while the hand's end is on screen ("Next hand" goes on); once the
      // game has ended nothing waits (no "Next hand" then: the hand on screen is the last), nor
      // does hand 1's deal (no hand has ended before it: a page opened while the table waited
      // for its seats shows no hand, shownHand 0)
      if (item.event.type === "hand_dealt" && !ended && shownHand !== null && item.event.hand_no > Math.max(shownHand, 1)) break;
      const wait = nextAt - performance.now();
      if (paced && wait > 0) { await sleep(wait); continue; } // (more may have come meanwhile)
      queue.shift();
      logEvent(item);
      // after another's move the next one waits the pace, whenever it comes
      if (paced && item.event.player && item.event.player !== seat) nextAt = performance.now() + PACE;
    }
  } finally {
    pumping = false;
  }
}

function handGroup(handNo) {
  const log = $("log");
  let group = log.querySelector('details[data-hand="' + handNo + '"]');
  if (group) return group.querySelector("ol");
  for (const open of log.querySelectorAll("details[open]")) open.open = false; // earlier hands folded
  group = el("details");
  group.dataset.hand = String(handNo);
  group.open = true;
  group.append(el("summary", handNo ? "Hand " + handNo : "Seating"));
  const list = el("ol");
  group.append(list);
  log.append(group);
  return list;
}

let logHand = 0;

function logEvent(item) {
  const ev = item.event;
  if (ev.type === "hand_dealt") logHand = ev.hand_no;
  const entry = el("li");
  entry.dataset.seq = String(item.seq);
  entry.dataset.type = ev.type;
  if (ev.player) entry.dataset.player = ev.player;
  entry.append(sentenceElement(describeEvent(ev)));
  if (ev.type === "hand_dealt" && own(ev.hands, seat)) {
    entry.append(" Your cards: ");
    entry.append(sentenceElement(ev.hands[seat].flatMap((c, i) => (i ? [" ", { card: c }] : [{ card: c }]))));
    entry.append(".");
  }
  if (ev.type === "hand_ended") {
    entry.append(" Totals: " + Object.entries(ev.totals).map(([p, t]) => p + " " + t).join(", ") + ".");
  }
  const list = handGroup(logHand);
  const log = $("log");
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  list.append(entry);
  if (atBottom) log.scrollTop = log.scrollHeight;
  logged = item.seq;
  document.body.dataset.logged = String(logged);
}

// Every event up to seq `upto` not yet received: the seat's own stream resumed after the last
// one received (Last-Event-ID; the token in the header), read until `upto`, then closed.
async function catchUp(upto) {
  if (catchingUp) await catchingUp;
  if (upto <= queued || !token) return;
  catchingUp = (async () => {
    const controller = new AbortController();
    const items = [];
    try {
      const response = await fetch("/tables/" + encodeURIComponent(table) + "/events", {
        headers: { Authorization: "Bearer " + token, "Last-Event-ID": String(queued), Accept: "text/event-stream" },
        credentials: "same-origin",
        signal: controller.signal,
      });
      if (!response.ok || !response.body) return;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let type = "message";
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) type = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (data.length && EVENT_TYPES.includes(type)) items.push(JSON.parse(data.join("\n")));
        }
        if (items.length && items[items.length - 1].seq >= upto) break;
      }
    } catch (_) {
      // the server could not be reached: the next snapshot catches up again
    } finally {
      controller.abort();
      addItems(items, false);
    }
  })();
  try { await catchingUp; } finally { catchingUp = null; }
}

// --- talking to the service ------------------------------------------------------------------

// The seat's view read again (at each stream event): one read at a time, and one more after it
// when asked meanwhile (a read under way may have been answered before what the events that
// came meanwhile brought). A read answered with an older version than the page shows (sent
// before the player's own command, its answer come after that command's: two connections keep
// no order) is not shown: the page never goes back.
let refreshAgain = false;

async function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      const result = await request("GET", "/tables/" + encodeURIComponent(table) + "/view", { token });
      if (!result) return;
      if (result.ok) {
        if (!current || result.data.version >= current.version) render(result.data);
      } else showNotice(errorText(result));
    } while (refreshAgain);
  })();
  try { await refreshing; } finally { refreshing = null; }
}

function showProblem(error) {
  const box = $("problem");
  box.replaceChildren();
  if (!error) return;
  if (error.violation) {
    // the engine's words once, then its code and rule once (its "sentence" repeats them)
    box.append(el("strong", "Illegal: "), el("span", error.message, "sentence"), " (", el("code", error.violation, "violation"), ", rule ", el("code", error.rule, "rule"), ")");
  } else {
    box.append(el("span", "error: " + error.message, "sentence"));
  }
}

function askKnock() {
  if (!myTurn() || busy || holding) return;
  const total = current.hand_total;
  $("knock-question").textContent = "Knock now and end the hand?" + (total === null || total === undefined ? "" : " Your hand counts " + total + " points.");
  $("knock-confirm").showModal();
  $("knock-yes").focus();
}

async function act(action) {
  if (!myTurn() || busy || holding) return;
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
  const picked = picks;
  let answered = null; // the seat's view after the command, in the answer (?view=true): no read after it
  try {
    const result = await request("POST", "/tables/" + encodeURIComponent(table) + "/commands?view=true", { token, body });
    if (!result) {
      showProblem({ message: "the server could not be reached, so the command may not have been played; the table is shown again once it is back" });
    } else if (result.ok) {
      showProblem(null);
      // the stream may have shown the command's outcome before this answer came (two
      // connections keep no order between them), and the player may have picked the next
      // cards meanwhile: only the selection this command was sent with is let go
      if (picks === picked) selected = [];
      addItems(result.data.events || [], true);
      answered = result.data.view || null;
    } else {
      showProblem(result.data && result.data.error ? result.data.error : { message: errorText(result) });
    }
  } finally {
    busy = false;
    // the stream may have shown a later version already (its own read): never go back to an older one
    if (answered && (!current || answered.version >= current.version)) render(answered);
    else await refresh();
  }
}

// The seat's stream. EventSource reconnects by itself (with Last-Event-ID) when the server
// ends the stream (its "shutdown" message) or cannot be reached; when it gives up (an answer
// that is not a stream) a new one is opened a little later.
function listen() {
  if (stream) stream.close();
  clearTimeout(retry);
  if (ended) return;
  // the seat named: a browser holding two seats of this table holds a cookie for each
  const source = new EventSource("/tables/" + encodeURIComponent(table) + "/events?seat=" + encodeURIComponent(seat));
  stream = source;
  source.addEventListener("open", () => { serviceConnected(); refresh(); });
  source.addEventListener("error", () => {
    if (ended || source !== stream) return;
    serviceLost();
    // refused (not a lost connection, which EventSource retries itself): the stream cookie
    // has expired, say, or the server was down; ask for a new one with the token
    if (source.readyState === EventSource.CLOSED) retry = setTimeout(sitDown, 2000);
  });
  source.addEventListener("shutdown", () => serviceLost());
  source.addEventListener("snapshot", (message) => {
    const state = JSON.parse(message.data);
    render(state);
    catchUp(state.version);
  });
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      addItems([JSON.parse(message.data)], true);
      refresh();
    });
  }
  source.addEventListener("game_ended", () => gameOver()); // the server ends the stream: no reconnecting
}

async function sitDown() {
  const result = await request("POST", "/tables/" + encodeURIComponent(table) + "/session", { token });
  if (!result) {
    retry = setTimeout(sitDown, 2000);
    return;
  }
  if (!result.ok) {
    showNotice(errorText(result));
    $("token-form").hidden = false;
    document.body.dataset.ready = "error";
    return;
  }
  $("token-form").hidden = true;
  showNotice(null);
  drawSeatLink();
  await sitWithSeed(table, token); // the seat's seed for the fair deal, once (sit.js)
  await refresh();
  listen();
}

function setUp() {
  const keys = { d: "draw_stock", p: "draw_discard", k: "knock", s: "spread", h: "hit", x: "discard" };
  for (const id of ACTIONS) $(id).addEventListener("click", () => (id === "knock" ? askKnock() : act(id)));
  // A key acts whatever control has focus (a card, a spread's radio, the sort), except where
  // text is typed. A key whose button is disabled asks the engine all the same, which
  // explains in its words why the action is not legal now (and nothing changes).
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if ($("knock-confirm").open) return;
    const t = event.target;
    if (t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && !["radio", "checkbox", "button"].includes(t.type))) return;
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    if (action === "knock" && !$("knock").disabled) askKnock();
    else act(action);
  });
  $("knock-yes").addEventListener("click", () => { $("knock-confirm").close(); act("knock"); });
  $("knock-no").addEventListener("click", () => $("knock-confirm").close());
  $("next-hand").addEventListener("click", nextHand);
  $("copy-seat-link").addEventListener("click", copySeatLink);
  $("seat-link").addEventListener("focus", () => $("seat-link").select());
  watchService({ poll: false });
  $("sort").addEventListener("change", () => {
    sortBy = $("sort").value;
    if (current) drawHand(current.view);
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
