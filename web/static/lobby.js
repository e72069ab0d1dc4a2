// The lobby: creating a table (a short form first: seats, bots, stake, hands, turn timer; the
// house rules, from the installed variants with their options, behind a disclosure with a
// search), the service's state in a banner (service.js: the server cannot be reached, back),
// every failed request told in words, the served tables by state with what this device can do at each (its seat, close
// the tables it hosts, replay), and joining a seat with its token. Text is always set as text.
import { call, errorText, hostTokenFor, keepHostToken, keepToken, keptToken, seatLink } from "./api.js";
import { el, own } from "./dom.js";
import { watchService } from "./service.js";
import { seatingText } from "./sit.js";

const $ = (id) => document.getElementById(id);

function say(text) {
  $("status").textContent = text;
}

function play(table, token) {
  keepToken(table, token);
  location.assign("/play/" + encodeURIComponent(table));
}

async function loadTables() {
  const result = await call("GET", "/tables");
  if (!result.ok) return say("error: " + errorText(result));
  const tables = result.data.tables;
  const select = $("join-table");
  select.replaceChildren();
  if (!tables.length) {
    $("tables").replaceChildren(el("p", "No table yet: create one above.", "empty"));
    return;
  }
  const open = el("ul", null, "tables");
  open.id = "tables-open";
  const ended = el("ul", null, "tables");
  ended.id = "tables-ended";
  for (const t of tables) {
    (t.status === "ended" ? ended : open).append(tableItem(t));
    if (t.status !== "ended") {
      const option = el("option", t.players.join(", ") + " \u2014 " + t.table.slice(0, 8));
      option.value = t.table;
      select.append(option);
    }
  }
  const box = document.createDocumentFragment();
  box.append(el("h3", "Waiting for a move or in play (" + open.children.length + ")"));
  box.append(open.children.length ? open : el("p", "None.", "empty"));
  box.append(el("h3", "Ended (" + ended.children.length + ")"));
  box.append(ended.children.length ? ended : el("p", "None.", "empty"));
  $("tables").replaceChildren(box);
}

const STATUS = { waiting: "waiting for people to sit down", playing: "in play", closing: "closing: ends when the hand in play ends", ended: "ended" };

function tableItem(t) {
  const bots = Object.entries(t.bots).map(([seat, kind]) => seat + " (" + kind + " bot)");
  const people = t.players.filter((p) => own(t.bots, p) === undefined);
  const item = el("li");
  item.dataset.table = t.table;
  item.append(el("strong", t.players.join(", ")));
  item.append(" \u2014 " + (STATUS[t.status] || t.status) + ", hand " + t.hand_no + "; people: " + (people.join(", ") || "none") + (bots.length ? "; bots: " + bots.join(", ") : "") + " ");
  item.append(el("code", t.table.slice(0, 8)));
  if (t.status === "waiting") item.append(" ", el("span", seatingText(t.status, t.players, t.bots, t.sat), "seating"));
  const actions = el("span", null, "table-actions");
  const mine = keptToken(t.table);
  const hosted = hostTokenFor(t.table);
  if (mine) actions.append(link(t.status === "ended" ? "Your seat (ended)" : "Back to your seat", "/play/" + encodeURIComponent(t.table)));
  if (t.status === "ended") {
    actions.append(link("Replay", "/games/" + encodeURIComponent(t.table)));
    if (t.rematch) {
      actions.append(el("span", "rematch: " + t.rematch.slice(0, 8), "hint"));
      if (mine) actions.append(button("Join the rematch", () => joinRematch(t.table, mine)));
    } else if (hosted) {
      actions.append(button("Rematch", () => startRematch(t.table, hosted)));
    }
  } else {
    if (!mine) {
      const join = button("Join with a token", () => { $("join-table").value = t.table; $("join-token").focus(); });
      actions.append(join);
    }
    if (hosted && (t.status === "playing" || t.status === "waiting")) actions.append(button("Close table", () => closeTable(t.table, hosted)));
  }
  item.append(actions);
  return item;
}

function link(text, href) {
  const a = el("a", text);
  a.href = href;
  return a;
}

function button(text, onClick) {
  const b = el("button", text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// The host starts a new game with the same seats and rules; its new host token is kept here.
async function startRematch(table, hostToken) {
  const result = await call("POST", "/tables/" + encodeURIComponent(table) + "/rematch", { token: hostToken });
  if (!result.ok) return say("error: " + errorText(result));
  keepHostToken(result.data.table, result.data.host_token);
  say("Rematch started: table " + result.data.table.slice(0, 8) + ". Each player joins it from their seat at the ended table (\u201cJoin the rematch\u201d).");
  await loadTables();
}

// A seat's new token at the rematch is in that seat's own view of the ended table.
async function joinRematch(table, token) {
  const result = await call("GET", "/tables/" + encodeURIComponent(table) + "/view", { token });
  if (!result.ok) return say("error: " + errorText(result));
  const rematch = result.data.rematch;
  if (!rematch || !rematch.token) return say("error: this table has no rematch for your seat");
  play(rematch.table, rematch.token);
}

async function closeTable(table, hostToken) {
  const result = await call("POST", "/tables/" + encodeURIComponent(table) + "/close", { token: hostToken });
  if (!result.ok) return say("error: " + errorText(result));
  say(result.data.status === "ended" ? "Table " + table.slice(0, 8) + " closed: its game has ended." : "Table " + table.slice(0, 8) + " is closing: its game ends when the hand in play ends.");
  await loadTables();
}

function seatRow(name, kind) {
  const li = el("li", null, "seat-row");
  const n = $("seats").children.length + 1;
  const nameId = "seat-name-" + n;
  const kindId = "seat-kind-" + n;
  const label = el("label", "Seat " + n + " name");
  label.htmlFor = nameId;
  const input = el("input");
  input.id = nameId;
  input.required = true;
  input.value = name;
  input.className = "seat-name";
  const kindLabel = el("label", "Seat " + n + " played by");
  kindLabel.htmlFor = kindId;
  const select = el("select");
  select.id = kindId;
  select.className = "seat-kind";
  for (const [value, text] of [["person", "a person"], ["greedy", "the greedy bot"], ["random", "the random bot"], ["expert", "the expert bot"]]) {
    const option = el("option", text);
    option.value = value;
    select.append(option);
  }
  select.value = kind;
  li.append(label, " ", input, " ", kindLabel, " ", select);
  $("seats").append(li);
}

function optionInput(variant, option) {
  const id = "opt-" + variant + "-" + option.name;
  const wrap = el("div", null, "field option");
  const label = el("label", option.name + " \u2014 " + option.help);
  label.htmlFor = id;
  let input;
  if (option.choices && option.choices.length) {
    input = el("select");
    for (const choice of option.choices) {
      const o = el("option", String(choice));
      o.value = JSON.stringify(choice);
      input.append(o);
    }
    input.value = JSON.stringify(option.default);
  } else if (option.type === "bool") {
    input = el("input");
    input.type = "checkbox";
    input.checked = Boolean(option.default);
  } else {
    input = el("input");
    input.type = option.type === "int" ? "number" : "text";
    input.value = option.type === "int" || option.type === "str" ? String(option.default ?? "") : JSON.stringify(option.default);
  }
  input.id = id;
  input.dataset.option = option.name;
  input.dataset.type = option.type;
  input.dataset.default = JSON.stringify(option.default);
  input.dataset.variant = variant;
  if (option.required) input.dataset.required = "true";
  wrap.append(label, " ", input);
  return wrap;
}

async function loadVariants() {
  const result = await call("GET", "/variants");
  if (!result.ok) return say("error: " + errorText(result));
  const box = el("div");
  for (const v of result.data.variants) {
    const group = el("div", null, "variant");
    group.dataset.search = (v.name + " " + v.summary + " " + v.options.map((o) => o.name + " " + o.help).join(" ")).toLowerCase();
    const id = "variant-" + v.name;
    const options = v.options.filter((o) => o.name !== "base_stake");
    if (v.name === "classic") {
      group.append(el("p", "classic (always): " + v.summary));
    } else {
      const check = el("input");
      check.type = "checkbox";
      check.id = id;
      check.value = v.name;
      check.className = "variant-check";
      const label = el("label", v.name + ": " + v.summary);
      label.htmlFor = id;
      group.append(check, " ", label);
    }
    if (options.length) {
      const details = el("details");
      details.append(el("summary", "Options of " + v.name));
      for (const o of options) details.append(optionInput(v.name, o));
      group.append(details);
    }
    box.append(group);
  }
  $("variants").replaceChildren(box);
  filterVariants();
}

// Show only the house rules whose name, summary or options hold every word searched for.
function filterVariants() {
  const words = $("variant-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  const groups = [...document.querySelectorAll("#variants .variant")];
  let shown = 0;
  for (const group of groups) {
    const match = words.every((w) => group.dataset.search.includes(w));
    group.hidden = !match;
    if (match) shown += 1;
  }
  const chosen = document.querySelectorAll(".variant-check:checked").length;
  $("variant-count").textContent = (words.length ? shown + " of " + groups.length + " shown" : groups.length + " installed") + (chosen ? "; " + chosen + " chosen" : "");
}

function optionValue(input) {
  const type = input.dataset.type;
  if (input.type === "checkbox") return input.checked;
  if (input.tagName === "SELECT") return JSON.parse(input.value);
  if (type === "int") return parseInt(input.value, 10);
  if (type === "str") return input.value;
  return JSON.parse(input.value);
}

async function createTable(event) {
  event.preventDefault();
  const seats = [...document.querySelectorAll(".seat-name")].map((i) => i.value.trim());
  const kinds = [...document.querySelectorAll(".seat-kind")].map((s) => s.value);
  const bots = {};
  seats.forEach((s, i) => { if (kinds[i] !== "person") bots[s] = kinds[i]; });
  const variants = [...document.querySelectorAll(".variant-check")].filter((c) => c.checked).map((c) => c.value);
  const options = { base_stake: parseInt($("stake").value, 10) || 1 };
  const from = {};  // option name -> the variant whose field gave it
  for (const input of document.querySelectorAll("[data-option]")) {
    const owner = input.dataset.variant;
    if (owner !== "classic" && !variants.includes(owner)) continue;  // the options of rules not chosen
    let value;
    try { value = optionValue(input); } catch (_) { return say("error: option " + input.dataset.option + " is not valid JSON"); }
    // a required option is sent as shown (its pre-filled value is a choice too); others when changed
    if (input.dataset.required !== "true" && JSON.stringify(value) === input.dataset.default) continue;
    const name = input.dataset.option;
    if (name in from && JSON.stringify(options[name]) !== JSON.stringify(value)) {
      return say("error: option " + name + " is set to two values (under " + from[name] + " and under " + owner + ")");
    }
    options[name] = value;
    from[name] = owner;
  }
  const limit = $("hand-limit").value.trim();
  const timer = $("turn-timer").value;
  const body = { seats, bots, variants, options, hand_limit: limit ? parseInt(limit, 10) : null, turn_timer: timer ? Number(timer) : null };
  if (timer) body.stand_in = $("stand-in").value;  // who plays a turn whose time ran out
  const result = await call("POST", "/tables", { body });
  if (!result.ok) return say("error: " + errorText(result));
  say("Table created.");
  showTokens(result.data);
  loadTables();
}

function showTokens(created) {
  keepHostToken(created.table, created.host_token); // this device hosts the table: it may close it
  const box = document.createDocumentFragment();
  box.append(el("h3", "Table " + created.table.slice(0, 8) + " created"));
  box.append(el("p", "Each seat's link is shown only now: give each person theirs, and tell them to keep it secret (it holds the seat's token). Opening it sits them down on any device. This device keeps the host token: it may close the table."));
  const list = el("ul", null, "tokens");
  for (const [seat, token] of Object.entries(created.tokens)) {
    const item = el("li");
    const linkId = "seat-link-" + seat;
    const label = el("label", seat + "'s seat link");
    label.htmlFor = linkId;
    const field = el("input", null, "seat-link");
    field.id = linkId;
    field.readOnly = true;
    field.value = seatLink(created.table, token);
    field.addEventListener("focus", () => field.select());
    item.append(el("strong", seat + ": "), label, " ", field, " ");
    item.append(button("Play as " + seat + " here", () => play(created.table, token)));
    list.append(item);
  }
  const host = el("li");
  host.append(el("strong", "host token: "), el("code", created.host_token));
  list.append(host);
  box.append(list);
  $("created").replaceChildren(box);
}

function setUp() {
  // when the server is back: the tables again (and the house rules, if they could not be read)
  watchService({ poll: true, back: () => { loadTables(); if (!document.querySelector("#variants .variant")) loadVariants(); } });
  seatRow("ann", "person");
  seatRow("bob", "greedy");
  seatRow("cy", "greedy");
  $("add-seat").addEventListener("click", () => seatRow("", "person"));
  $("refresh").addEventListener("click", loadTables);
  $("variant-search").addEventListener("input", filterVariants);
  $("variants").addEventListener("change", filterVariants);
  $("create-form").addEventListener("submit", createTable);
  $("turn-timer").addEventListener("change", () => { $("stand-in-field").hidden = !$("turn-timer").value; });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    play($("join-table").value, $("join-token").value.trim());
  });
  Promise.all([loadTables(), loadVariants()]).then(() => { document.body.dataset.ready = "true"; });
}

setUp();
