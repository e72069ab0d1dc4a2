// Sitting down at a served table (the fair deal, docs/fair-deal.md): the page draws its seat's
// client seed with crypto.getRandomValues and sends it once with POST /tables/{id}/sit; the
// table deals hand 1 when every person's seat has sat. The seed is kept on this device, one per
// table, so that a reload sends the same seed again (a seat's seed is fixed once it has sat).
// Also the words saying who has sat, for the table page and the lobby. Text is set as text.
import { call } from "./api.js";
import { own } from "./dom.js";

const SEED = "tonk-seed:";

function store() {
  try {
    return window.localStorage;
  } catch (_) {
    return window.sessionStorage;
  }
}

// 32 random bytes as lowercase hex (the scheme takes 16 to 64 bytes).
export function newSeed() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// This device's seed for `table`: the one kept, else a new one, kept.
export function seedFor(table) {
  const kept = store().getItem(SEED + table);
  if (kept && /^[0-9a-f]{32,128}$/.test(kept)) return kept;
  const seed = newSeed();
  store().setItem(SEED + table, seed);
  return seed;
}

// Sit the seat of `token` down at `table` with this device's seed. Answers the service's
// answer, or null when the server could not be reached. A 409 (the seat sat with another
// device's seed, or hand 1 was dealt without it) and a 410 (the game has ended) are no
// errors for the page: the table is shown as it is.
export async function sitDown(table, token) {
  try {
    return await call("POST", "/tables/" + encodeURIComponent(table) + "/sit", { token, body: { client_seed: seedFor(table) } });
  } catch (_) {
    return null;
  }
}

// "Waiting for bob to sit down (ann has sat)." for a waiting table; "" otherwise.
export function seatingText(status, players, bots, sat) {
  if (status !== "waiting") return "";
  const people = players.filter((p) => own(bots, p) === undefined);
  const missing = people.filter((p) => !(sat || []).includes(p));
  const have = (sat || []).length ? " (" + sat.join(", ") + (sat.length === 1 ? " has" : " have") + " sat)" : "";
  return "Waiting for " + (missing.join(", ") || "the deal") + " to sit down" + have + ".";
}

let polling = null;

// The table page's line on who has sat (#seating); while the table waits, `refresh` is asked
// again now and then (a sit appends no event, so the stream says nothing until the deal).
export function showSeating(state, refresh) {
  const line = document.getElementById("seating");
  if (line) line.textContent = seatingText(state.status, state.view.players, state.bots, state.sat);
  clearTimeout(polling);
  if (state.status === "waiting") polling = setTimeout(refresh, 2000);
}
