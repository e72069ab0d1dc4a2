// The replay viewer: shows, event by event and for one perspective at a time, what the
// engine computed (the replay document of tonk.application.replay_document). It applies
// no rule: every table it draws is a view the engine produced. Text from the record is
// always set as text (textContent), never as markup.
import { cardElement, cardList, sentenceElement } from "./cards.js";
import { describeEvent, endName } from "./describe.js";
import { el, own, signed } from "./dom.js";
import { showDeckChecks } from "./fair_deal.js";

const AUDITOR = "*";
const FORMAT = 1;

const ui = {};
let doc = null;
let seq = 1;
let viewer = AUDITOR;
const drawn = { hand: null, viewer: null };  // what the hands and audit panels were last drawn for

function perspectiveName(p) {
  return p === AUDITOR ? "the auditor (sees everything)" : p;
}

// The server could not be reached at all (the browser's "Failed to fetch"): tried again.
class Unreachable extends Error {}

const RETRY_MS = 3000;
const BANNER = {
  lost: "The server cannot be reached \u2014 reconnecting\u2026",
  back: "Connected again: the page is up to date.",
};

function banner(state) {
  const box = document.getElementById("connection");
  if (!box) return;
  box.dataset.state = state;
  box.textContent = BANNER[state];
}

async function loadDocument() {
  const inline = document.getElementById("replay-data");
  if (inline) return JSON.parse(inline.textContent);
  const src = document.body.dataset.replaySrc;
  let response;
  try {
    response = await fetch(src, { credentials: "same-origin" });
  } catch (_) {
    throw new Unreachable("The server cannot be reached: the replay is loaded as soon as it is back.");
  }
  if (response.ok) return response.json();
  let said = null;
  try {
    said = (await response.json()).error.message;
  } catch (_) {
    said = null;
  }
  if (response.status === 409) {
    throw new Error("This game has not ended yet: its replay opens once the game is over. Come back to this page then.");
  }
  throw new Error("the replay could not be loaded: " + (said || "the service answered HTTP " + response.status));
}

// --- position and deep links (#e=123&as=P2) -------------------------------------------------

function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const e = parseInt(params.get("e"), 10);
  const as = params.get("as");
  return { e: Number.isFinite(e) ? e : null, as };
}

function linkFor(e, as) {
  const params = new URLSearchParams();
  params.set("e", String(e));
  params.set("as", as);
  return "#" + params.toString();
}

function go(e, as = viewer) {
  seq = Math.min(Math.max(1, e), doc.events);
  if (doc.perspectives.includes(as)) viewer = as;
  history.replaceState(null, "", linkFor(seq, viewer));
  render();
}

function followHash() {
  const { e, as } = readHash();
  go(e === null ? seq : e, as === null ? viewer : as);
}

function handIndexAt(s) {
  let index = -1;
  doc.hands.forEach((h, i) => { if (h.first <= s) index = i; });
  return index;
}

// --- drawing ----------------------------------------------------------------------------------

function drawEvent(step) {
  ui.eventText.replaceChildren(el("span", "#" + step.seq + " ", "seq"), sentenceElement(describeEvent(step.event)));
}

function drawPiles(view) {
  const piles = el("ul", null, "piles");
  piles.append(el("li", "Stock: " + view.stock_size + " card" + (view.stock_size === 1 ? "" : "s")));
  const discard = el("li", "Discard pile: " + view.discard_size + " card" + (view.discard_size === 1 ? "" : "s"));
  if (view.discard_top) {
    discard.append(", top ");
    discard.append(cardElement(view.discard_top, "span"));
  }
  piles.append(discard);
  if (view.in_hand && view.to_act) {
    const turn = el("li", "Turn " + view.turn_no + ": " + view.to_act + " to act");
    if (view.drew) {
      turn.append(", drew from the " + (view.drew === "discard" ? "discard pile" : "stock"));
      if (view.drawn_card) { turn.append(" "); turn.append(cardElement(view.drawn_card, "span")); }
    }
    piles.append(turn);
  }
  ui.piles.replaceChildren(piles);
}

function seatCards(view, player) {
  if (own(view.hands, player)) return own(view.hands, player);
  if (player === view.viewer && view.hand) return view.hand;
  const n = own(view.hand_sizes, player) || 0;
  return Array(n).fill("??");
}

function drawSeats(view) {
  const seats = document.createDocumentFragment();
  for (const player of view.players) {
    const seat = el("section", null, "seat");
    seat.dataset.player = player;
    if (view.in_hand && view.to_act === player) seat.classList.add("to-act");
    if (player === view.viewer) seat.classList.add("mine");
    const title = el("h3", player);
    const badges = [];
    if (player === view.dealer) badges.push("dealer");
    if (view.in_hand && view.to_act === player) badges.push("to act");
    if (player === view.viewer) badges.push("this perspective");
    if (badges.length) title.append(el("span", " (" + badges.join(", ") + ")", "badges"));
    seat.append(title);
    seat.append(el("p", "net " + signed(own(view.net, player) || 0), "net"));
    const cards = seatCards(view, player);
    const hidden = cards.filter((c) => c === "??").length;
    const label = player + "'s hand: " + cards.length + " card" + (cards.length === 1 ? "" : "s") + (hidden ? ", hidden" : "");
    seat.append(cards.length ? cardList(cards, label) : el("p", "no cards", "empty"));
    seats.append(seat);
  }
  ui.seats.replaceChildren(seats);
}

function drawSpreads(view) {
  if (!view.table.length) {
    ui.spreads.replaceChildren(el("p", "none", "empty"));
    return;
  }
  const list = el("ul", null, "spreads");
  for (const spread of view.table) {
    const item = el("li");
    item.append(el("span", spread.id + ": " + spread.owner + "'s " + spread.kind + " ", "spread-name"));
    item.append(cardList(spread.cards, spread.owner + "'s " + spread.kind + " " + spread.id));
    list.append(item);
  }
  ui.spreads.replaceChildren(list);
}

function drawStock(view) {
  if (!view.stock || !view.stock.length) {
    ui.stockOrder.replaceChildren();
    return;
  }
  const details = el("details");
  details.append(el("summary", "Stock order, top first (the auditor only)"));
  details.append(cardList(view.stock, "stock, top first"));
  ui.stockOrder.replaceChildren(details);
}

function drawHands() {
  const current = handIndexAt(seq);
  if (!doc.hands.length) {
    ui.hands.replaceChildren(el("p", "No hand was dealt.", "empty"));
    return;
  }
  const list = el("ol", null, "hand-list");
  doc.hands.forEach((hand, i) => {
    const item = el("li");
    if (i === current) item.setAttribute("aria-current", "step");
    const head = el("p");
    head.append(el("strong", "Hand " + hand.hand_no));
    if (hand.end) {
      head.append(" ended by " + endName(hand.end) + (hand.player ? " (" + hand.player + ")" : "") + " at event " + hand.last + " ");
      const show = el("button", "Show the end of hand " + hand.hand_no);
      show.type = "button";
      show.addEventListener("click", () => go(hand.last));
      head.append(show);
    } else {
      head.append(" not finished in this record (events " + hand.first + " to " + hand.last + ")");
    }
    item.append(head);
    if (hand.end) {
      const totals = el("p", "Totals: " + doc.players.map((p) => p + " " + own(hand.totals, p)).join(", "));
      item.append(totals);
      const ledger = el("ul", null, "ledger");
      ledger.setAttribute("aria-label", "ledger of hand " + hand.hand_no);
      for (const pay of hand.ledger) {
        ledger.append(el("li", pay.from + " pays " + pay.to + " " + pay.amount + (pay.reason ? " (" + pay.reason + ")" : "")));
      }
      if (!hand.ledger.length) ledger.append(el("li", "no payments"));
      item.append(ledger);
      item.append(el("p", "Net after hand " + hand.hand_no + ": " + doc.players.map((p) => p + " " + signed(own(hand.net, p) || 0)).join(", "), "net"));
    }
    list.append(item);
  });
  ui.hands.replaceChildren(list);
}

function drawAudit() {
  const audit = doc.audit;
  if (!audit) {
    ui.audit.replaceChildren(el("p", "This file holds no audit.", "empty"));
    return;
  }
  const parts = document.createDocumentFragment();
  const verdict = el("p", null, "verdict " + audit.verdict);
  verdict.append(el("strong", "Verdict: " + audit.verdict));
  const checks = Object.entries(audit.checks).map(([k, v]) => k + " " + v).join(", ");
  if (checks) verdict.append(" (" + checks + ")");
  parts.append(verdict);
  if (audit.error) parts.append(el("p", audit.error, "error"));
  if (audit.findings.length) {
    const list = el("ol", null, "findings");
    for (const f of audit.findings) {
      const item = el("li");
      if (f.seq) {
        const link = el("a", "event " + f.seq);
        link.href = linkFor(f.seq, viewer);
        item.append(link);
        item.append(" ");
      }
      item.append(el("span", "[" + f.check + ", rule " + f.rule + (f.hand_no !== null && f.hand_no !== undefined ? ", hand " + f.hand_no : "") + "] "));
      item.append(el("span", f.message, "message"));
      list.append(item);
    }
    parts.append(list);
  } else {
    parts.append(el("p", "No findings.", "empty"));
  }
  ui.audit.replaceChildren(parts);
}

function render() {
  const step = doc.steps[viewer][seq - 1];
  const view = step.view;
  ui.slider.value = String(seq);
  ui.position.textContent = "Event " + seq + " of " + doc.events;
  ui.slider.setAttribute("aria-valuetext", "event " + seq + " of " + doc.events + ": " + doc.types[seq - 1].replace(/_/g, " "));
  ui.first.disabled = ui.prev.disabled = seq <= 1;
  ui.next.disabled = ui.last.disabled = seq >= doc.events;
  ui.perspective.value = viewer;
  const index = handIndexAt(seq);
  ui.handSelect.value = index >= 0 ? String(index) : "";
  ui.seenAs.textContent = "Seen by " + perspectiveName(viewer) + (view.hand_no ? ", hand " + view.hand_no : "") + ".";
  ui.deepLink.href = linkFor(seq, viewer);
  if (!document.getElementById("replay-data")) {  // served (an ended game): its positions open in the dispute desk
    ui.disputeHere.href = "/dispute?game=" + encodeURIComponent(doc.game_id) + "&seq=" + seq;
    ui.disputeHere.hidden = false;
  }
  drawEvent(step);
  drawPiles(view);
  drawSeats(view);
  drawSpreads(view);
  drawStock(view);
  if (drawn.hand !== index) { drawHands(); drawn.hand = index; }  // these change only between hands
  if (drawn.viewer !== viewer) { drawAudit(); drawn.viewer = viewer; }  // and with the perspective
}

// --- controls -----------------------------------------------------------------------------

function stepHand(direction) {
  const index = handIndexAt(seq);
  if (direction < 0) {
    if (index >= 0 && seq > doc.hands[index].first) go(doc.hands[index].first);
    else if (index > 0) go(doc.hands[index - 1].first);
    else go(1);
  } else if (doc.hands[index + 1]) {
    go(doc.hands[index + 1].first);
  }
}

function setUp() {
  for (const id of ["first", "prev", "next", "last", "slider", "position", "perspective", "piles", "seats", "spreads", "audit", "hands", "status"]) {
    ui[id] = document.getElementById(id);
  }
  ui.handSelect = document.getElementById("hand-select");
  ui.eventText = document.getElementById("event-text");
  ui.seenAs = document.getElementById("seen-as");
  ui.stockOrder = document.getElementById("stock-order");
  ui.deepLink = document.getElementById("deep-link");
  ui.disputeHere = document.getElementById("dispute-here");

  document.getElementById("game-id").textContent = doc.game_id;
  document.getElementById("game-players").textContent = "\u2014 " + doc.players.join(", ");
  document.title = "Tonk replay " + doc.game_id.slice(0, 12);
  ui.slider.max = String(doc.events);
  for (const p of doc.perspectives) {
    const option = el("option", p === AUDITOR ? "Auditor (everything)" : p);
    option.value = p;
    ui.perspective.append(option);
  }
  const none = el("option", "\u2014");
  none.value = "";
  none.disabled = true;
  ui.handSelect.append(none);
  doc.hands.forEach((h, i) => {
    const option = el("option", "Hand " + h.hand_no + " (events " + h.first + "\u2013" + h.last + ")");
    option.value = String(i);
    ui.handSelect.append(option);
  });

  ui.first.addEventListener("click", () => go(1));
  ui.prev.addEventListener("click", () => go(seq - 1));
  ui.next.addEventListener("click", () => go(seq + 1));
  ui.last.addEventListener("click", () => go(doc.events));
  ui.slider.addEventListener("input", () => go(parseInt(ui.slider.value, 10)));
  ui.perspective.addEventListener("change", () => go(seq, ui.perspective.value));
  ui.handSelect.addEventListener("change", () => {
    const hand = doc.hands[parseInt(ui.handSelect.value, 10)];
    if (hand) go(hand.first);
  });
  window.addEventListener("hashchange", followHash);
  // The keys step the replay whatever control has focus (a select keeps its Up/Down arrows,
  // the slider is stepped as by its own arrows), except where text is typed.
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && !["range", "radio", "checkbox", "button"].includes(target.type))) return;
    if (target instanceof HTMLElement && target.isContentEditable) return;
    const actions = {
      ArrowLeft: () => go(seq - 1),
      ArrowRight: () => go(seq + 1),
      Home: () => go(1),
      End: () => go(doc.events),
      PageUp: () => stepHand(-1),
      PageDown: () => stepHand(1),
    };
    if (actions[event.key]) {
      event.preventDefault();
      actions[event.key]();
    }
  });
}

async function start() {
  const status = document.getElementById("status");
  try {
    for (let lost = false; ; ) {
      try {
        doc = await loadDocument();
        if (lost) { banner("back"); status.textContent = ""; }
        break;
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        if (!lost) banner("lost");
        lost = true;
        status.textContent = error.message;
        document.body.dataset.ready = "unreachable";
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    if (doc.format !== FORMAT) throw new Error("this viewer reads replay format " + FORMAT + ", not " + doc.format);
    viewer = doc.perspectives[0];
    setUp();
    followHash();
    showDeckChecks(doc, document.getElementById("deck-checks")); // the fair deal, recomputed (fair_deal.js)
    document.body.dataset.ready = "true";
  } catch (error) {
    status.textContent = "error: " + error.message;
    document.body.dataset.ready = "error";
  }
}

start();
