// The dispute desk: a person writes down a disputed hand (players, house rules, the cards
// that were seen and those nobody saw, the actions in order) without knowing the hand-record
// format; the page says at once what cannot be (a card in two places, counts that do not
// add up to the deck), asks POST /adjudicate for the verdict and shows it with the one-line
// statement of each rule cited (GET /rules). The record downloads as a hand-record file
// (format_version 2 of cases/README.md, which `tonk adjudicate` reads) and loads back; the
// verdict saves as one self-contained web page. No rule of the game is applied here: the
// page checks only that the record is whole; the engine judges. Text from a record is
// always set as text (the `el` helper), never as markup.
import { cardName, cardFace } from "./cards.js";
import { el, own, signed } from "./dom.js";
import { call, errorText } from "./api.js";
import { watchService } from "./service.js";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "spades"], ["H", "hearts"], ["D", "diamonds"], ["C", "clubs"]];
const ACTION_NAMES = {
  knock: "knock", draw_stock: "draw from the stock", draw_discard: "take the discard",
  spread: "spread", hit: "hit", discard: "discard",
};

const ui = {};
let rules = { rules: [] };  // GET /rules: the statement of each rule id a verdict cites
let installed = [];  // the installed house rules (GET /variants)
let state = fresh();
let verdict = null;  // the last verdict shown, with the record it judged
let ruleset = { key: "", deck: null, problem: "" };  // the deck of the chosen house rules (GET /deck)

function fresh() {
  return {
    players: ["P1", "P2", "P3"],
    dealer: "P3",
    toAct: "P1",
    stake: 1,
    variants: [],
    options: {},  // other options of a loaded record, kept as they were
    hands: byName({ P1: { cards: [], unknown: 0 }, P2: { cards: [], unknown: 0 }, P3: { cards: [], unknown: 0 } }),
    discard: { cards: [], unknown: 0 },
    stock: { known: false, cards: [], unknown: null },  // unknown null: the rest of the deck
    spreads: [],
    actions: [],
    title: "",
  };
}

// --- the deck and the places cards are named in ---------------------------------------------

// The deck of the chosen house rules, as the engine makes it (GET /deck); the standard 52
// cards until it has answered.
function deck() {
  if (ruleset.deck) return ruleset.deck;
  const cards = [];
  for (const [s] of SUITS) for (const r of RANKS) cards.push(r + s);
  return cards;
}

// Ask the engine for the deck of the chosen house rules and options; the pickers are drawn
// again when it differs. A combination the engine refuses is a problem said in its words.
async function fetchDeck() {
  const params = new URLSearchParams();
  for (const v of state.variants) params.append("variant", v);
  const options = { ...state.options, base_stake: state.stake };
  params.set("options", JSON.stringify(options));
  const key = params.toString();
  if (key === ruleset.key) return;
  ruleset.key = key;
  try {
    const answer = await call("GET", "/deck?" + key);
    const data = answer.data;
    if (key !== ruleset.key) return;  // the rules changed again meanwhile
    if (answer.unreachable) throw new Error(errorText(answer));
    if (!answer.ok) {
      ruleset.problem = "The house rules cannot be used as chosen: " + errorText(answer);
    } else {
      ruleset.problem = "";
      const same = ruleset.deck && ruleset.deck.join() === data.deck.join();
      ruleset.deck = data.deck;
      if (!same) { redraw(); return; }
    }
  } catch (error) {
    ruleset.problem = "";
  }
  changed();
}

function leftOf(p) {
  const i = state.players.indexOf(p);
  return state.players[(i + 1) % state.players.length];
}

// Every card the setup names, with the places it is named in.
function setupPlaces() {
  const places = new Map();
  const add = (card, where) => {
    if (!places.has(card)) places.set(card, []);
    places.get(card).push(where);
  };
  for (const p of state.players) for (const c of state.hands[p].cards) add(c, p + "'s hand");
  for (const c of state.discard.cards) add(c, "the discard pile");
  if (state.stock.known) for (const c of state.stock.cards) add(c, "the stock");
  for (const s of state.spreads) for (const c of s.cards) add(c, "spread " + s.id + " on the table");
  return places;
}

function restCount() {
  const named = setupPlaces().size;
  const unseen = deck().length - named;
  let unknown = state.discard.unknown;
  for (const p of state.players) unknown += state.hands[p].unknown;
  return { unseen, unknown, rest: unseen - unknown };
}

function stockCount() {
  if (state.stock.known) return 0;
  if (state.stock.unknown !== null) return state.stock.unknown;
  return Math.max(0, restCount().rest);
}

// --- what cannot be: said at once, in words ------------------------------------------------

function problems() {
  const out = [];
  const names = state.players.map((p) => p.trim());
  if (names.some((p) => !p)) out.push("A player has no name.");
  const dup = names.find((p, i) => p && names.indexOf(p) !== i);
  if (dup) out.push("Two players are called " + dup + ": each player needs a name of their own.");
  if (state.players.length < 2) out.push("A hand needs at least two players.");
  if (ruleset.problem) out.push(ruleset.problem);
  const cardsOfDeck = new Set(deck());
  for (const [card, where] of setupPlaces()) {
    if (!cardsOfDeck.has(card)) out.push(cardName(card) + " (in " + where[0] + ") is not a card of this deck.");
  }
  for (const [card, where] of setupPlaces()) {
    if (where.length > 1) out.push(cardName(card) + " (" + cardFace(card) + ") is named twice: in " + where.join(" and in ") + ". A card can be in one place only.");
  }
  const size = deck().length;
  const { unseen, unknown, rest } = restCount();
  if (state.stock.known) {
    if (unknown !== unseen) out.push(countsText(size, unseen, unknown, "the stock is known card by card"));
  } else if (state.stock.unknown === null) {
    if (rest < 0) out.push(countsText(size, unseen, unknown, "no card is left for the stock"));
  } else if (unknown + state.stock.unknown !== unseen) {
    out.push(countsText(size, unseen, unknown + state.stock.unknown, "with " + state.stock.unknown + " in the stock"));
  }
  for (const s of state.spreads) {
    if (s.cards.length < 3) out.push("Spread " + s.id + " on the table has " + s.cards.length + " card(s): a spread has at least three.");
  }
  const named = setupPlaces();
  state.actions.forEach((a, i) => {
    const what = "Action " + (i + 1) + " (" + a.player + " " + ACTION_NAMES[a.action] + ")";
    if (a.action === "spread" && a.cards.length === 0) out.push(what + ": choose the cards of the spread.");
    if ((a.action === "discard" || a.action === "hit") && !a.card) out.push(what + ": choose the card.");
    if (a.action === "hit" && !a.target) out.push(what + ": choose the spread it goes on.");
    if ((a.action === "draw_stock" || a.action === "draw_discard") && a.card && named.has(a.card)) {
      const topKnown = a.action === "draw_discard" && state.discard.cards[0] === a.card;
      if (!topKnown) out.push(what + ": the card drawn, " + cardName(a.card) + ", is already in " + named.get(a.card)[0] + "; a card drawn unseen must be one nobody had named.");
    }
  });
  return out;
}

function countsText(size, unseen, unknown, how) {
  const named = size - unseen;
  return "The cards do not add up to the deck (" + how + "): " + named + " named and " + unknown + " not shown make " + (named + unknown) +
    ", but the deck has " + size + " (" + (named + unknown > size ? (named + unknown - size) + " too many" : (size - named - unknown) + " missing") + ").";
}

// --- the hand record ----------------------------------------------------------------------

// An object keyed by players' names that inherits nothing: a player named "__proto__" or
// "constructor" is a key like any other (on a plain {} the first would set its prototype).
function byName(entries = {}) {
  return Object.assign(Object.create(null), entries);
}

function handJson(h) {
  if (!h.unknown) return [...h.cards];
  return h.cards.length ? { cards: [...h.cards], unknown: h.unknown } : { unknown: h.unknown };
}

function toRecord() {
  const hands = byName();
  for (const p of state.players) hands[p] = handJson(state.hands[p]);
  const setup = {
    mode: "explicit",
    hands,
    stock: state.stock.known ? [...state.stock.cards] : { unknown: stockCount() },
    discard: state.discard.unknown ? { cards: [...state.discard.cards], unknown: state.discard.unknown } : [...state.discard.cards],
    table: state.spreads.map((s) => {
      const stands = jokersIn(s.cards, s.jokersAs);
      return Object.keys(stands).length ? { id: s.id, owner: s.owner, cards: [...s.cards], jokers_as: stands } : { id: s.id, owner: s.owner, cards: [...s.cards] };
    }),
    to_act: state.toAct,
  };
  const actions = state.actions.map((a, i) => {
    const out = { seq: i + 1, player: a.player, action: a.action };
    if (a.action === "spread") {
      out.cards = [...a.cards];
      const stands = jokersIn(a.cards, a.jokersAs);
      if (Object.keys(stands).length) out.jokers_as = stands;
    }
    if (a.action === "hit") {
      out.card = a.card;
      out.target = a.target;
      if (a.card && a.jokersAs[a.card]) out.joker_as = a.jokersAs[a.card];
    }
    if (a.action === "discard") out.card = a.card;
    if ((a.action === "draw_stock" || a.action === "draw_discard") && a.card) out.card = a.card;
    return out;
  });
  return {
    format: "tonk-adjudication-cases",
    format_version: 2,
    id: "dispute",
    title: state.title || "A disputed hand",
    ruleset: { variants: [...state.variants], options: { ...state.options, base_stake: state.stake } },
    players: [...state.players],
    dealer: state.dealer,
    setup,
    actions,
  };
}

// The stand-ins chosen for the jokers among `cards` (a joker not in them is left out).
function jokersIn(cards, jokersAs) {
  const out = {};
  for (const c of cards) if (jokersAs[c]) out[c] = jokersAs[c];
  return out;
}

function standsFor(value) {
  const out = {};
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

function cardsOf(value, where) {
  if (!Array.isArray(value) || !value.every((c) => typeof c === "string")) throw new Error(where + " must be a list of cards");
  return [...value];
}

function countOf(value, where) {
  if (!Number.isInteger(value) || value < 0) throw new Error(where + " must be a whole number of cards");
  return value;
}

// A hand record (one case, or a file of cases: its first) into the page's state.
function fromRecord(raw) {
  if (raw && Array.isArray(raw.cases)) {
    if (!raw.cases.length) throw new Error("the file holds no case");
    raw = raw.cases[0];
  }
  if (!raw || typeof raw !== "object") throw new Error("a hand record is a JSON object");
  const setup = raw.setup || {};
  if (setup.mode !== "explicit") throw new Error("this record deals a whole deck (mode " + JSON.stringify(setup.mode) + "): the desk writes positions; tonk adjudicate reads it as it is");
  const players = raw.players;
  if (!Array.isArray(players) || players.length < 2 || !players.every((p) => typeof p === "string")) throw new Error("players must be a list of two or more names");
  const s = fresh();
  s.players = [...players];
  s.dealer = players.includes(raw.dealer) ? raw.dealer : players[players.length - 1];
  s.toAct = players.includes(setup.to_act) ? setup.to_act : leftOfIn(players, s.dealer);
  const ruleset = raw.ruleset || {};
  s.variants = Array.isArray(ruleset.variants) ? ruleset.variants.filter((v) => typeof v === "string") : [];
  const options = { ...(ruleset.options || {}) };
  s.stake = Number.isInteger(options.base_stake) && options.base_stake > 0 ? options.base_stake : 1;
  delete options.base_stake;
  s.options = options;
  s.title = typeof raw.title === "string" ? raw.title : "";
  s.hands = byName();
  for (const p of players) {
    const h = own(setup.hands, p);
    if (h === undefined || Array.isArray(h)) s.hands[p] = { cards: cardsOf(h || [], "setup.hands." + p), unknown: 0 };
    else s.hands[p] = { cards: cardsOf(h.cards || [], "setup.hands." + p + ".cards"), unknown: countOf(h.unknown || 0, "setup.hands." + p + ".unknown") };
  }
  const d = setup.discard || [];
  s.discard = Array.isArray(d) ? { cards: cardsOf(d, "setup.discard"), unknown: 0 } : { cards: cardsOf(d.cards || [], "setup.discard.cards"), unknown: countOf(d.unknown || 0, "setup.discard.unknown") };
  const st = setup.stock || [];
  s.stock = Array.isArray(st) ? { known: true, cards: cardsOf(st, "setup.stock"), unknown: null } : { known: false, cards: [], unknown: countOf(st.unknown, "setup.stock.unknown") };
  s.spreads = (setup.table || []).map((t, i) => ({ id: String(t.id || "S" + (i + 1)), owner: players.includes(t.owner) ? t.owner : players[0], cards: cardsOf(t.cards || [], "setup.table[" + i + "].cards"), jokersAs: standsFor(t.jokers_as) }));
  s.actions = (raw.actions || []).map((a, i) => {
    if (!ACTION_NAMES[a.action]) throw new Error("actions[" + i + "].action: unknown action " + JSON.stringify(a.action));
    return {
      player: players.includes(a.player) ? a.player : players[0],
      action: a.action,
      cards: a.action === "spread" ? cardsOf(a.cards || [], "actions[" + i + "].cards") : [],
      card: typeof a.card === "string" ? a.card : null,
      target: typeof a.target === "string" ? a.target : "",
      jokersAs: a.action === "hit" ? (typeof a.card === "string" && typeof a.joker_as === "string" ? { [a.card]: a.joker_as } : {}) : standsFor(a.jokers_as),
    };
  });
  return s;
}

function leftOfIn(players, p) {
  return players[(players.indexOf(p) + 1) % players.length];
}

// --- the card picker: a grid of toggle buttons, one tab stop, arrow keys inside ---------------

// `get()` gives the chosen cards (in the order chosen), `set(cards)` stores them; `single`:
// one card at most (choosing another replaces it).
function picker(id, label, get, set, { single = false, setup = false } = {}) {
  const group = el("div", null, "picker");
  group.id = id;
  if (setup) group.dataset.setup = "true";  // a place of the position: cards named elsewhere are marked
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", label);
  const cards = deck();
  const rows = [];
  const jokers = cards.filter((c) => c === "X1" || c === "X2");
  for (const [suit, suitName] of SUITS.concat(jokers.length ? [["X", "jokers"]] : [])) {
    const row = el("div", null, "picker-row");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", suitName);
    const buttons = [];
    const codes = suit === "X" ? jokers : RANKS.map((r) => r + suit).filter((c) => cards.includes(c));
    for (const code of codes) {
      const b = el("button", cardFace(code), "pick" + (suit === "H" || suit === "D" ? " red" : ""));
      b.type = "button";
      b.id = id + "-" + code;
      b.dataset.card = code;
      b.setAttribute("aria-label", cardName(code));
      b.setAttribute("aria-pressed", String(get().includes(code)));
      b.tabIndex = -1;
      b.addEventListener("click", () => {
        const chosen = get();
        if (chosen.includes(code)) set(chosen.filter((c) => c !== code));
        else set(single ? [code] : chosen.concat([code]));
        for (const other of group.querySelectorAll("button.pick")) other.setAttribute("aria-pressed", String(get().includes(other.dataset.card)));
        changed();
      });
      buttons.push(b);
      row.append(b);
    }
    rows.push(buttons);
    group.append(row);
  }
  const first = group.querySelector('button.pick[aria-pressed="true"]') || rows[0][0];
  first.tabIndex = 0;
  group.addEventListener("keydown", (event) => {
    const target = event.target;
    if (!(target instanceof HTMLButtonElement) || !target.dataset.card) return;
    let r = rows.findIndex((row) => row.includes(target));
    let c = rows[r].indexOf(target);
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    const key = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey ? event.key.toUpperCase() : "";
    const suitRow = "SHDC".indexOf(key);
    const rank = { T: "10", 0: "10", 1: "A" }[key] || key;
    if (key && suitRow >= 0 && suitRow < rows.length) r = suitRow;  // s h d c: that suit's row
    else if (key && r < 4 && rows[r].some((b) => b.dataset.card === rank + SUITS[r][0])) c = rows[r].findIndex((b) => b.dataset.card === rank + SUITS[r][0]);  // a 2..9 0/t j q k: that rank
    else if (event.key === "Home") c = 0;
    else if (event.key === "End") c = rows[r].length - 1;
    else if (moves[event.key]) {
      r = (r + moves[event.key][0] + rows.length) % rows.length;
      c = Math.min(rows[r].length - 1, (c + moves[event.key][1] + rows[r].length) % rows[r].length);
    } else return;
    event.preventDefault();
    target.tabIndex = -1;
    rows[r][c].tabIndex = 0;
    rows[r][c].focus();
  });
  return group;
}

function orderText(cards, what) {
  return cards.length ? what + ": " + cards.map(cardFace).join(", ") : "";
}

// --- drawing the form ----------------------------------------------------------------------

function labelled(id, text, control) {
  const wrap = el("div", null, "field");
  const label = el("label", text);
  label.htmlFor = id;
  control.id = id;
  wrap.append(label, " ", control);
  return wrap;
}

function playerSelect(value, onChange) {
  const select = el("select");
  for (const p of state.players) {
    const o = el("option", p);
    o.value = p;
    select.append(o);
  }
  select.value = value;
  select.addEventListener("change", () => onChange(select.value));
  return select;
}

function numberInput(value, onChange, placeholder) {
  const input = el("input");
  input.type = "number";
  input.min = "0";
  input.inputMode = "numeric";
  input.placeholder = placeholder || "0";
  input.value = value === null || value === 0 ? "" : String(value);
  input.addEventListener("input", () => {
    const n = parseInt(input.value, 10);
    onChange(input.value.trim() === "" ? null : Number.isFinite(n) && n >= 0 ? n : 0);
    changed();
  });
  return input;
}

// A small button that changes a count by one (a count set by clicks alone).
function stepper(id, text, label, step) {
  const b = el("button", text, "step");
  b.type = "button";
  b.id = id;
  b.setAttribute("aria-label", label);
  b.tabIndex = -1;  // for the mouse: by keyboard the count's own field takes digits and arrow keys
  b.addEventListener("click", () => { step(); changed(); });
  return b;
}

function drawPlayers() {
  ui.players.replaceChildren();
  state.players.forEach((p, i) => {
    const li = el("li", null, "seat-row");
    const input = el("input");
    input.type = "text";
    input.value = p;
    input.autocomplete = "off";
    input.addEventListener("change", () => rename(i, input.value.trim()));
    li.append(labelled("player-" + i, "Player " + (i + 1), input));
    if (state.players.length > 2) {
      const remove = el("button", "Remove " + p);
      remove.type = "button";
      remove.id = "remove-player-" + i;
      remove.addEventListener("click", () => removePlayer(i));
      li.append(remove);
    }
    ui.players.append(li);
  });
  for (const [select, value] of [[ui.dealer, state.dealer], [ui.toAct, state.toAct]]) {
    select.replaceChildren(...state.players.map((p) => Object.assign(el("option", p), { value: p })));
    select.value = value;
  }
}

function drawHands() {
  ui.hands.replaceChildren();
  state.players.forEach((p, i) => {
    const box = el("div", null, "place");
    box.append(el("h3", p + "'s hand"));
    const h = state.hands[p];
    box.append(picker("hand-" + i, p + "'s cards that were seen", () => h.cards, (cards) => { h.cards = cards; }, { setup: true }));
    const count = numberInput(h.unknown, (n) => { h.unknown = n || 0; });
    const field = labelled("hand-unknown-" + i, "Not shown: how many of " + p + "'s cards nobody saw", count);
    field.append(" ", stepper("hand-more-" + i, "+", "one more of " + p + "'s cards not shown", () => { h.unknown += 1; count.value = String(h.unknown); }));
    field.append(" ", stepper("hand-fewer-" + i, "\u2212", "one fewer of " + p + "'s cards not shown", () => { h.unknown = Math.max(0, h.unknown - 1); count.value = h.unknown ? String(h.unknown) : ""; }));
    box.append(field);
    ui.hands.append(box);
  });
}

function drawPiles() {
  ui.discardPicker.replaceChildren(picker("discard", "Discard pile, top card first", () => state.discard.cards, (cards) => { state.discard.cards = cards; }, { setup: true }));
  ui.discardUnknown.value = state.discard.unknown ? String(state.discard.unknown) : "";
  ui.stockUnknown.value = state.stock.unknown === null ? "" : String(state.stock.unknown);
  ui.stockKnown.open = state.stock.known;
  ui.stockPicker.replaceChildren(picker("stock", "Stock, top card first", () => state.stock.cards, (cards) => { state.stock.cards = cards; state.stock.known = cards.length > 0; }, { setup: true }));
}

// With jokers in the deck: for each joker, the card it stands for where it is laid here
// (empty: the engine reads it, where only one reading is possible).
function jokerFields(id, jokersAs) {
  const jokers = deck().filter((c) => c === "X1" || c === "X2");
  const naturals = deck().filter((c) => c !== "X1" && c !== "X2");
  return jokers.map((j) => {
    const select = el("select");
    select.append(Object.assign(el("option", "(as the spread makes clear)"), { value: "" }));
    for (const c of naturals) select.append(Object.assign(el("option", cardFace(c) + " (" + cardName(c) + ")"), { value: c }));
    select.value = jokersAs[j] || "";
    select.addEventListener("change", () => { if (select.value) jokersAs[j] = select.value; else delete jokersAs[j]; changed(); });
    return labelled(id + "-stands-" + j, "If " + cardName(j) + " is laid here, it stands for", select);
  });
}

function drawSpreads() {
  ui.spreads.replaceChildren();
  state.spreads.forEach((s, i) => {
    const li = el("li", null, "place");
    li.append(el("h3", "Spread " + s.id));
    li.append(labelled("spread-owner-" + i, "Laid by", playerSelect(s.owner, (p) => { s.owner = p; changed(); })));
    li.append(picker("spread-" + i, "The cards of spread " + s.id, () => s.cards, (cards) => { s.cards = cards; }, { setup: true }));
    li.append(...jokerFields("spread-" + i, s.jokersAs));
    const remove = el("button", "Remove spread " + s.id);
    remove.type = "button";
    remove.id = "remove-spread-" + i;
    remove.addEventListener("click", () => { state.spreads.splice(i, 1); state.spreads.forEach((x, j) => { x.id = "S" + (j + 1); }); redraw(); });
    li.append(remove);
    ui.spreads.append(li);
  });
}

// The spread ids an action can hit: those on the table, and those laid by the spreads before it.
function targetsBefore(index) {
  const ids = state.spreads.map((s) => s.id);
  let next = ids.reduce((m, id) => Math.max(m, parseInt(id.replace(/\D/g, ""), 10) || 0), 0) + 1;
  for (const a of state.actions.slice(0, index)) if (a.action === "spread") ids.push("S" + next++);
  return ids;
}

function drawActions() {
  ui.actions.replaceChildren();
  state.actions.forEach((a, i) => {
    const li = el("li", null, "action");
    const head = el("div", null, "row");
    head.append(labelled("action-player-" + i, "Action " + (i + 1) + ": " + ACTION_NAMES[a.action] + ", by", playerSelect(a.player, (p) => { a.player = p; changed(); })));
    const remove = el("button", "Remove action " + (i + 1));
    remove.type = "button";
    remove.id = "remove-action-" + i;
    remove.addEventListener("click", () => { state.actions.splice(i, 1); redraw(); });
    head.append(remove);
    li.append(head);
    const one = () => (a.card ? [a.card] : []);
    const setOne = (cards) => { a.card = cards[0] || null; };
    if (a.action === "spread") li.append(picker("action-" + i, "The cards spread in action " + (i + 1), () => a.cards, (cards) => { a.cards = cards; }));
    if (a.action === "spread" || a.action === "hit") li.append(...jokerFields("action-" + i, a.jokersAs));
    if (a.action === "discard" || a.action === "hit") li.append(picker("action-" + i, "The card of action " + (i + 1), one, setOne, { single: true }));
    if (a.action === "hit") {
      const select = el("select");
      for (const id of targetsBefore(i)) select.append(Object.assign(el("option", id), { value: id }));
      if (!a.target && select.options.length) a.target = select.options[0].value;
      select.value = a.target;
      select.addEventListener("change", () => { a.target = select.value; changed(); });
      li.append(labelled("action-target-" + i, "On spread", select));
    }
    if (a.action === "draw_stock" || a.action === "draw_discard") {
      const more = el("details");
      more.open = Boolean(a.card);
      more.append(el("summary", "The card drawn, if everyone saw it (optional)"));
      more.append(picker("action-" + i, "The card drawn in action " + (i + 1), one, setOne, { single: true }));
      li.append(more);
    }
    ui.actions.append(li);
  });
  ui.nextPlayer.replaceChildren(...state.players.map((p) => Object.assign(el("option", p), { value: p })));
  ui.nextPlayer.value = nextPlayer();
}

// Who acts next: after a discard, the player to the left; else the same player.
function nextPlayer() {
  const last = state.actions[state.actions.length - 1];
  if (!last) return state.toAct;
  return last.action === "discard" ? leftOf(last.player) : last.player;
}

function drawVariants() {
  ui.variants.replaceChildren();
  const choices = installed.filter((v) => v.name !== "classic");
  if (!choices.length) {
    ui.variants.append(el("p", "No house rule is installed.", "empty"));
    return;
  }
  const list = el("ul", null, "variant-list");
  for (const v of choices) {
    const li = el("li");
    const box = el("input");
    box.type = "checkbox";
    box.id = "variant-" + v.name;
    box.checked = state.variants.includes(v.name);
    box.addEventListener("change", () => {
      state.variants = box.checked ? state.variants.concat([v.name]) : state.variants.filter((x) => x !== v.name);
      for (const o of v.options || []) {
        if (!box.checked) delete state.options[o.name];
        else if (o.required && !(o.name in state.options)) state.options[o.name] = o.default;  // an option the rule needs, at its default
      }
      redraw();
      fetchDeck();
    });
    const label = el("label", v.name + (v.summary ? ": " + v.summary : ""));
    label.htmlFor = box.id;
    li.append(box, " ", label);
    if (box.checked && (v.options || []).length) {
      const options = el("div", null, "variant-options");
      for (const o of v.options) options.append(optionField(o));
      li.append(options);
    }
    list.append(li);
  }
  ui.variants.append(list);
}

// One option of a chosen house rule: a checkbox, a choice, a number, or a list as JSON text.
function optionField(o) {
  const value = o.name in state.options ? state.options[o.name] : o.default;
  const set = (v) => { state.options[o.name] = v; changed(); fetchDeck(); };
  let input;
  if (o.type === "bool") {
    input = el("input");
    input.type = "checkbox";
    input.checked = Boolean(value);
    input.addEventListener("change", () => set(input.checked));
  } else if (o.choices && o.choices.length) {
    input = el("select");
    for (const c of o.choices) input.append(Object.assign(el("option", String(c)), { value: String(c) }));
    input.value = String(value);
    input.addEventListener("change", () => set(o.type === "int" ? parseInt(input.value, 10) : input.value));
  } else if (o.type === "int") {
    input = el("input");
    input.type = "number";
    if (o.minimum !== null && o.minimum !== undefined) input.min = String(o.minimum);
    if (o.maximum !== null && o.maximum !== undefined) input.max = String(o.maximum);
    input.value = String(value);
    input.addEventListener("change", () => { const n = parseInt(input.value, 10); if (Number.isFinite(n)) set(n); });
  } else {
    input = el("input");
    input.type = "text";
    input.value = JSON.stringify(value);
    input.addEventListener("change", () => {
      try { set(JSON.parse(input.value)); } catch (_) { ui.status.textContent = o.name + ": write the value as JSON, e.g. " + JSON.stringify(o.default); }
    });
  }
  return labelled("option-" + o.name, o.name.replace(/_/g, " ") + (o.help ? " (" + o.help + ")" : ""), input);
}

// Everything drawn again (a player or an action added or removed, a record loaded); the
// control that had the focus keeps it.
function redraw() {
  const focused = document.activeElement && document.activeElement.id;
  for (const p of state.players) if (!state.hands[p]) state.hands[p] = { cards: [], unknown: 0 };
  if (!state.players.includes(state.dealer)) state.dealer = state.players[state.players.length - 1];
  if (!state.players.includes(state.toAct)) state.toAct = leftOf(state.dealer);
  ui.stake.value = String(state.stake);
  drawPlayers();
  drawVariants();
  drawHands();
  drawPiles();
  drawSpreads();
  drawActions();
  changed();
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
}

// After any change: the problems, the orders of the piles, the verdict marked out of date.
function changed() {
  const found = problems();
  ui.problems.replaceChildren();
  if (found.length) {
    ui.problems.append(el("h3", found.length === 1 ? "One thing cannot be right" : found.length + " things cannot be right"));
    const list = el("ul", null, "problem-list");
    for (const p of found) list.append(el("li", p, "problem"));
    ui.problems.append(list);
  }
  ui.adjudicate.disabled = found.length > 0;
  markElsewhere();
  ui.discardOrder.textContent = orderText(state.discard.cards, "Top first");
  ui.stockOrder.textContent = orderText(state.stock.cards, "Top first");
  const { rest } = restCount();
  ui.stockUnknown.placeholder = "the rest: " + Math.max(0, rest);
  if (verdict && JSON.stringify(verdict.record) !== JSON.stringify(toRecord())) {
    ui.status.textContent = "The hand has changed since the verdict below: adjudicate again.";
    ui.saveVerdict.disabled = true;
  }
}

// In each picker of the position, a card named in another place is marked (struck through,
// and its name says where), so that a card is not given twice by mistake.
function markElsewhere() {
  const places = setupPlaces();
  for (const group of document.querySelectorAll(".picker[data-setup]")) {
    for (const b of group.querySelectorAll("button.pick")) {
      const where = b.getAttribute("aria-pressed") === "true" ? [] : places.get(b.dataset.card) || [];
      b.classList.toggle("elsewhere", where.length > 0);
      b.setAttribute("aria-label", cardName(b.dataset.card) + (where.length ? ", in " + where.join(" and ") : ""));
    }
  }
}

function rename(i, name) {
  const old = state.players[i];
  if (!name || name === old) { drawPlayers(); return; }
  state.players[i] = name;
  state.hands[name] = state.hands[old] || { cards: [], unknown: 0 };
  if (!state.players.includes(old)) delete state.hands[old];
  const swap = (p) => (p === old ? name : p);
  state.dealer = swap(state.dealer);
  state.toAct = swap(state.toAct);
  for (const s of state.spreads) s.owner = swap(s.owner);
  for (const a of state.actions) a.player = swap(a.player);
  redraw();
}

function removePlayer(i) {
  const gone = state.players[i];
  state.players.splice(i, 1);
  delete state.hands[gone];
  for (const s of state.spreads) if (s.owner === gone) s.owner = state.players[0];
  state.actions = state.actions.filter((a) => a.player !== gone);
  redraw();
}

// --- the verdict -----------------------------------------------------------------------------

function ruleLine(id) {
  const r = rules.rules.find((x) => x.id === id);
  const p = el("p", null, "rule");
  p.append(el("strong", "Rule " + id + ": "));
  p.append(document.createTextNode(r ? r.statement : "a house rule's own rule (no statement)"));
  return p;
}

function ids(value) {
  if (value && typeof value === "object" && Array.isArray(value.open)) return [...new Set(value.open)];
  return value ? [value] : [];
}

function either(value) {
  return value && typeof value === "object" && Array.isArray(value.open) ? value.open.join(" or ") : String(value);
}

function cardsText(h) {
  if (Array.isArray(h)) return h.length ? h.map(cardFace).join(" ") : "no cards";
  if (h && Array.isArray(h.open)) return h.open.map(cardsText).join(", or ");
  const shown = h.cards && h.cards.length ? h.cards.map(cardFace).join(" ") + " + " : "";
  return shown + h.unknown + " unknown";
}

function totalText(t) {
  return t && typeof t === "object" ? t.min + " to " + t.max : String(t);
}

function endText(end) {
  if (!end) return "The hand has not ended.";
  const who = end.player || (end.players || []).join(", ");
  const kinds = {
    knock: who + " knocked", tonk_out: who + " went out without discarding (tonk out)", out_by_discard: who + " went out by discarding",
    stock_exhausted: who + " asked for the empty stock", initial_tonk: who + " was dealt a tonk", initial_tonk_draw: "initial tonks: " + who, turn_cap: "the turn cap ended the hand",
  };
  const outcome = { knocker_won: ": the knocker wins", knocker_caught: ": the knocker is caught" }[end.outcome] || "";
  return (kinds[end.type] || end.type + " " + who) + outcome + ".";
}

// The payments, the rule of each kind of payment (the verdict's or the outcome's
// `payment_rules`, chosen by the engine under the record's house rules; not the ending's rule
// `stated` again), the net.
function ledgerBlock(ledger, paymentRules, net, players, stated) {
  const box = el("div", null, "ledger");
  if (!ledger.length) box.append(el("p", "No payments."));
  else {
    const list = el("ul");
    list.setAttribute("aria-label", "ledger");
    for (const p of ledger) list.append(el("li", p.from + " pays " + p.to + " " + p.amount + " (" + p.reason.replace(/_/g, " ") + ")"));
    box.append(list);
    const seen = new Set();
    for (const p of ledger) {
      const id = own(paymentRules, p.reason);  // own: a reason named like what every object inherits is no rule
      if (id && id !== stated && !seen.has(id)) { seen.add(id); box.append(ruleLine(id)); }
    }
  }
  box.append(el("p", "Net: " + players.map((p) => p + " " + signed(net[p] || 0)).join(", "), "net"));
  return box;
}

function actionItem(a) {
  const li = el("li", null, "verdict-action");
  let text = a.player + " " + (ACTION_NAMES[a.action] || a.action) + ": ";
  if (a.legal === "open") text += "OPEN — legal or not depending on the unseen cards; where illegal, " + either(a.violation) + ": " + either(a.message);
  else if (a.legal === false) text += "ILLEGAL — " + either(a.violation) + ": " + either(a.message);
  else {
    text += "legal";
    if (a.drawn) text += ", drew " + cardFace(a.drawn);
    else if ((a.action === "draw_stock" || a.action === "draw_discard") && !a.effect) text += ", drew a card nobody saw";
    if (a.spread_id) text += ", as " + a.spread_id;
    if (a.effect) text += ", the stock was empty: the hand ends";
  }
  li.append(el("p", text, a.legal === true ? "legal" : "illegal"));
  for (const id of ids(a.rule)) li.append(ruleLine(id));
  return li;
}

function showVerdict(v, record) {
  ui.verdict.replaceChildren();
  const players = record.players;
  if (v.status !== "ok") {
    ui.verdict.append(el("p", (v.status === "skipped" ? "Not judged: " + v.reason : "The record cannot be judged: " + v.message), "problem"));
    return false;
  }
  const box = el("article", null, "verdict");
  box.append(el("h3", "Each action"));
  const actions = el("ol");
  for (const a of v.actions) actions.append(actionItem(a));
  box.append(v.actions.length ? actions : el("p", "No action was written down.", "empty"));
  box.append(el("h3", "The ending"));
  if (!v.open) {
    box.append(el("p", endText(v.end), "ending"));
    if (v.end_rule) box.append(ruleLine(v.end_rule));
  } else {
    box.append(el("p", "Open: " + v.outcomes.length + " outcomes are possible, depending on cards nobody saw.", "ending"));
  }
  box.append(el("h3", "Hands and totals"));
  const totals = el("ul", null, "totals");
  for (const p of players) totals.append(el("li", p + ": " + cardsText(v.final_hands[p]) + " — total " + totalText(v.hand_totals[p])));
  box.append(totals);
  if (!v.open) {
    box.append(el("h3", "Payments"));
    box.append(ledgerBlock(v.ledger, v.payment_rules, v.net, players, v.end_rule));
  } else {
    box.append(el("h3", "What decides it"));
    box.append(el("p", v.decided_by, "decided-by"));
    const outcomes = el("ol", null, "outcomes");
    v.outcomes.forEach((o, i) => {
      const settled = (v.outcome_rules || [])[i] || {};  // outcome_rules[i] settles outcomes[i]
      const li = el("li");
      li.append(el("p", endText(o.end), "ending"));
      if (settled.end_rule) li.append(ruleLine(settled.end_rule));
      li.append(ledgerBlock(o.ledger, settled.payment_rules, o.net, players, settled.end_rule));
      outcomes.append(li);
    });
    box.append(outcomes);
  }
  box.append(el("p", "Next dealer: " + v.next_dealer + ".", "hint"));
  ui.verdict.append(box);
  return true;
}

async function adjudicate() {
  const found = problems();
  if (found.length) return;
  const record = toRecord();
  ui.status.textContent = "Asking for the verdict\u2026";
  ui.adjudicate.disabled = true;
  try {
    const answer = await call("POST", "/adjudicate", { body: record });
    const data = answer.data;
    if (!answer.ok) {
      ui.status.textContent = "No verdict: " + errorText(answer);
      return;
    }
    const v = data.cases[0];
    const ok = showVerdict(v, record);
    verdict = ok ? { v, record } : null;
    ui.saveVerdict.disabled = !ok;
    ui.status.textContent = ok ? "The verdict is below." : "No verdict: see below.";
  } catch (error) {
    ui.status.textContent = "The verdict could not be fetched: " + error.message;
  } finally {
    ui.adjudicate.disabled = problems().length > 0;
  }
}

// --- files: the record down and back, the verdict as one page --------------------------------

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const SAVED_CSS = "body{font-family:system-ui,'DejaVu Sans',sans-serif;max-width:50rem;margin:0 auto;padding:0.75rem;line-height:1.4;color:#1b1b1b}" +
  "h1{font-size:1.4rem}h3{font-size:1rem;margin:0.8rem 0 0.2rem}.rule{margin:0 0 0.3rem 1rem;color:#3b3b3b;font-size:0.95rem}" +
  ".illegal{color:#b00020;font-weight:600}.net{font-weight:700}pre{white-space:pre-wrap;word-break:break-all;font-size:0.85rem;background:#f4f4f4;padding:0.5rem}";

function savedPage() {
  const { record } = verdict;
  const doc = document.implementation.createHTMLDocument("Tonk verdict");
  const meta = doc.createElement("meta");
  meta.setAttribute("http-equiv", "Content-Security-Policy");
  meta.setAttribute("content", "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'");
  const charset = doc.createElement("meta");
  charset.setAttribute("charset", "utf-8");
  const viewport = doc.createElement("meta");
  viewport.setAttribute("name", "viewport");
  viewport.setAttribute("content", "width=device-width, initial-scale=1");
  const style = doc.createElement("style");
  style.textContent = SAVED_CSS;
  doc.head.prepend(charset, meta, viewport);
  doc.head.append(style);
  doc.documentElement.lang = "en";
  const main = doc.createElement("main");
  main.append(el("h1", "Tonk verdict: " + record.title));
  main.append(el("p", "Players " + record.players.join(", ") + "; dealer " + record.dealer + "; " + (record.ruleset.variants.length ? "house rules " + record.ruleset.variants.join(", ") : "the standard rules") + "; stake " + record.ruleset.options.base_stake + "."));
  main.append(doc.importNode(ui.verdict.querySelector("article.verdict"), true));
  main.append(el("h2", "The hand record (tonk adjudicate reads it)"));
  main.append(el("pre", JSON.stringify(record, null, 2)));
  doc.body.append(main);
  return "<!doctype html>\n" + doc.documentElement.outerHTML + "\n";
}

async function loadFile() {
  const file = ui.loadFile.files[0];
  if (!file) return;
  try {
    state = fromRecord(JSON.parse(await file.text()));
    verdict = null;
    ui.verdict.replaceChildren();
    ui.saveVerdict.disabled = true;
    redraw();
    fetchDeck();
    ui.status.textContent = "Loaded " + file.name + ".";
  } catch (error) {
    ui.status.textContent = "Could not load " + file.name + ": " + error.message;
  }
  ui.loadFile.value = "";
}

async function loadFromGame() {
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  if (!game) return;
  const seq = params.get("seq") || "1";
  const answer = await call("GET", "/games/" + encodeURIComponent(game) + "/record?seq=" + encodeURIComponent(seq));
  const data = answer.data;
  if (!answer.ok) {
    ui.status.textContent = "Could not open that position: " + errorText(answer);
    return;
  }
  state = fromRecord(data);
  redraw();
  await fetchDeck();
  ui.status.textContent = "Loaded " + state.title + ".";
}

// --- start ---------------------------------------------------------------------------------

async function start() {
  for (const id of ["players", "dealer", "to-act", "stake", "variants", "hands", "discard-picker", "discard-order", "discard-unknown", "stock-unknown", "stock-known", "stock-order", "stock-picker", "spreads", "actions", "next-player", "problems", "adjudicate", "save-verdict", "status", "verdict", "load-file", "download-record", "reset", "add-player", "add-spread"]) {
    ui[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
  ui.addPlayer.addEventListener("click", () => {
    let n = state.players.length + 1;
    while (state.players.includes("P" + n)) n++;
    state.players.push("P" + n);
    redraw();
  });
  ui.dealer.addEventListener("change", () => { state.dealer = ui.dealer.value; state.toAct = leftOf(state.dealer); redraw(); });
  ui.toAct.addEventListener("change", () => { state.toAct = ui.toAct.value; drawActions(); changed(); });
  ui.stake.addEventListener("input", () => { const n = parseInt(ui.stake.value, 10); state.stake = Number.isFinite(n) && n > 0 ? n : 1; changed(); });
  ui.discardUnknown.addEventListener("input", () => { const n = parseInt(ui.discardUnknown.value, 10); state.discard.unknown = Number.isFinite(n) && n > 0 ? n : 0; changed(); });
  ui.stockUnknown.addEventListener("input", () => {
    const n = parseInt(ui.stockUnknown.value, 10);
    state.stock.unknown = ui.stockUnknown.value.trim() === "" ? null : Number.isFinite(n) && n >= 0 ? n : 0;
    changed();
  });
  ui.addSpread.addEventListener("click", () => { state.spreads.push({ id: "S" + (state.spreads.length + 1), owner: state.toAct, cards: [], jokersAs: {} }); redraw(); });
  for (const button of document.querySelectorAll("button[data-add]")) {
    button.addEventListener("click", () => {
      state.actions.push({ player: ui.nextPlayer.value || nextPlayer(), action: button.dataset.add, cards: [], card: null, target: "", jokersAs: {} });
      redraw();
    });
  }
  ui.adjudicate.addEventListener("click", adjudicate);
  ui.downloadRecord.addEventListener("click", () => download("dispute.json", JSON.stringify(toRecord(), null, 2) + "\n", "application/json"));
  ui.saveVerdict.addEventListener("click", () => { if (verdict) download("verdict.html", savedPage(), "text/html"); });
  ui.loadFile.addEventListener("change", loadFile);
  ui.reset.addEventListener("click", () => { state = fresh(); verdict = null; ui.verdict.replaceChildren(); ui.saveVerdict.disabled = true; redraw(); fetchDeck(); });
  redraw();
  watchService({ poll: true, back: () => { if (!installed.length) readRules(); } });
  await readRules();
  await loadFromGame();
  document.body.dataset.ready = "true";
}

// The rule statements and the installed house rules; when the server cannot be reached the
// page says so (and reads them again when the server is back).
async function readRules() {
  const [r, v] = await Promise.all([call("GET", "/rules"), call("GET", "/variants")]);
  if (r.ok && r.data && Array.isArray(r.data.rules)) rules = r.data;
  installed = v.ok && v.data && Array.isArray(v.data.variants) ? v.data.variants : [];
  if (!r.ok || !v.ok) ui.status.textContent = "The house rules could not be read: " + errorText(r.ok ? v : r);
  drawVariants();
  ruleset.key = null;
  await fetchDeck();
}

start();
