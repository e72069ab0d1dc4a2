// The lobby: the served tables, creating one (ruleset from the installed variants with their
// options, seats, bots, stake) and joining a seat with its token. Text is always set as text.
import { call, errorText, keepToken } from "./api.js";
import { el } from "./dom.js";

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
    $("tables").replaceChildren(el("p", "No table yet: create one below.", "empty"));
    return;
  }
  const list = el("ul", null, "tables");
  for (const t of tables) {
    const bots = Object.entries(t.bots).map(([seat, kind]) => seat + " (" + kind + " bot)");
    const people = t.players.filter((p) => !(p in t.bots));
    const item = el("li");
    item.append(el("strong", t.players.join(", ")));
    item.append(" \u2014 " + t.status + ", hand " + t.hand_no + "; people: " + (people.join(", ") || "none") + (bots.length ? "; bots: " + bots.join(", ") : ""));
    item.append(" ");
    item.append(el("code", t.table.slice(0, 8)));
    if (t.status === "ended") {
      item.append(" ");
      const replay = el("a", "Replay");
      replay.href = "/games/" + encodeURIComponent(t.table);
      item.append(replay);
    }
    list.append(item);
    const option = el("option", t.players.join(", ") + " \u2014 " + t.table.slice(0, 8));
    option.value = t.table;
    select.append(option);
  }
  $("tables").replaceChildren(list);
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
  for (const [value, text] of [["person", "a person"], ["greedy", "the greedy bot"], ["random", "the random bot"]]) {
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
  const body = { seats, bots, variants, options, hand_limit: limit ? parseInt(limit, 10) : null };
  const result = await call("POST", "/tables", { body });
  if (!result.ok) return say("error: " + errorText(result));
  say("Table created.");
  showTokens(result.data);
  loadTables();
}

function showTokens(created) {
  const box = document.createDocumentFragment();
  box.append(el("h3", "Table " + created.table.slice(0, 8) + " created"));
  box.append(el("p", "Each seat's token is shown only now: give each person theirs. The host token closes the table."));
  const list = el("ul", null, "tokens");
  for (const [seat, token] of Object.entries(created.tokens)) {
    const item = el("li");
    item.append(el("strong", seat + ": "), el("code", token), " ");
    const button = el("button", "Play as " + seat + " here");
    button.type = "button";
    button.addEventListener("click", () => play(created.table, token));
    item.append(button);
    list.append(item);
  }
  const host = el("li");
  host.append(el("strong", "host: "), el("code", created.host_token));
  list.append(host);
  box.append(list);
  $("created").replaceChildren(box);
}

function setUp() {
  seatRow("ann", "person");
  seatRow("bob", "greedy");
  seatRow("cy", "greedy");
  $("add-seat").addEventListener("click", () => seatRow("", "person"));
  $("refresh").addEventListener("click", loadTables);
  $("create-form").addEventListener("submit", createTable);
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    play($("join-table").value, $("join-token").value.trim());
  });
  Promise.all([loadTables(), loadVariants()]).then(() => { document.body.dataset.ready = "true"; });
}

setUp();
