// The fair deal tonk-deal-v1 (docs/fair-deal.md) recomputed in the browser with WebCrypto: the
// replay viewer checks, for every hand, that the recorded deck follows from the server seed the
// game revealed at its end (its sha256 committed in game_started), every seat's seed and the
// hand number, and says "deck verified" or names the hand whose deck does not follow.
// Text is set as text.
import { el } from "./dom.js";

const SCHEME = "tonk-deal-v1";
const ORDER = [];
for (const suit of "SHDC") for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]) ORDER.push(rank + suit);
ORDER.push("X1", "X2");
const TWO32 = 2 ** 32;

function bytesOf(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function hexOf(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The deck of hand `nonce`, top card first (steps 1 to 5 of the scheme).
export async function fairDeck(serverSeed, nonce, players, clientSeeds, cards) {
  const message = "tonk-deal-v1\n" + nonce + "\n" + players.map((p) => p + "=" + (clientSeeds[p] || "")).join("\n");
  const hmacKey = await crypto.subtle.importKey("raw", bytesOf(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const key = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(message)));
  let counter = 0;
  let words = [];
  async function next() {
    if (!words.length) {
      const input = new Uint8Array(key.length + 4);
      input.set(key);
      new DataView(input.buffer).setUint32(key.length, counter++, false);
      const block = new DataView(await crypto.subtle.digest("SHA-256", input));
      words = [0, 4, 8, 12, 16, 20, 24, 28].map((k) => block.getUint32(k, false));
    }
    return words.shift();
  }
  const have = new Set(cards);
  const deck = ORDER.filter((c) => have.has(c));
  for (let i = deck.length - 1; i > 0; i--) {
    const limit = TWO32 - (TWO32 % (i + 1));
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % (i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// Every fair hand of a replay document checked: {scheme, seedOk, hands: [{hand_no, seq, ok}], note}.
export async function checkDecks(doc) {
  const steps = doc.steps["*"];
  if (!steps) return { note: "The decks can be recomputed from the auditor's perspective only; this file holds another." };
  const events = steps.map((s) => s.event);
  const started = events[0];
  const ended = events[events.length - 1];
  const dealt = steps.filter((s) => s.event.type === "hand_dealt" && !s.event.explicit);
  const fair = dealt.filter((s) => s.event.deal_scheme === SCHEME);
  if (!fair.length) return { note: "No deck of this game was dealt with " + SCHEME + ": the server chose the decks (they are secret and committed, not shown fair)." };
  if (!ended || ended.type !== "game_ended" || !ended.server_seed) return { note: "The server seed was not revealed: the decks cannot be recomputed." };
  if (!crypto.subtle) return { note: "This browser offers no WebCrypto here: the decks cannot be recomputed (tonk audit can)." };
  const seedOk = hexOf(await crypto.subtle.digest("SHA-256", bytesOf(ended.server_seed))) === started.server_seed_hash;
  const hands = [];
  for (const step of dealt) {
    const e = step.event;
    if (e.deal_scheme !== SCHEME) {
      // a hand without the seeds in a game that committed to a server seed: the server chose its deck
      hands.push({ hand_no: e.hand_no, seq: step.seq, ok: false });
      continue;
    }
    const deck = await fairDeck(ended.server_seed, e.hand_no, started.players, e.client_seeds || {}, e.deck);
    hands.push({ hand_no: e.hand_no, seq: step.seq, ok: seedOk && deck.join(" ") === e.deck.join(" ") });
  }
  return { seedOk, hands };
}

// The viewer's panel (#deck-checks): one line a hand, "deck verified" or the hand named.
export async function showDeckChecks(doc, box) {
  if (!box) return;
  box.replaceChildren(el("p", "Recomputing the decks\u2026", "empty"));
  let result;
  try {
    result = await checkDecks(doc);
  } catch (error) {
    result = { note: "The decks could not be recomputed: " + error.message };
  }
  const parts = document.createDocumentFragment();
  parts.append(el("h3", "Fair deal (" + SCHEME + "), recomputed in this browser"));
  if (result.note) {
    parts.append(el("p", result.note, "deal-note"));
  } else {
    const bad = result.hands.filter((h) => !h.ok);
    if (!result.seedOk) parts.append(el("p", "The revealed server seed does not hash to the server_seed_hash the game committed to.", "deal-bad"));
    parts.append(el("p", bad.length ? "NOT fair: " + bad.map((h) => "hand " + h.hand_no).join(", ") + (bad.length === 1 ? " does" : " do") + " not follow from the seeds." : "Fair: every deck follows from the server seed committed before anyone sat down and every seat's seed.", bad.length ? "deal-bad" : "deal-ok"));
    const list = el("ul", null, "deck-checks");
    for (const h of result.hands) {
      const item = el("li", "Hand " + h.hand_no + ": " + (h.ok ? "deck verified" : "deck does NOT follow from the seeds"), h.ok ? "deal-ok" : "deal-bad");
      item.dataset.hand = String(h.hand_no);
      list.append(item);
    }
    parts.append(list);
  }
  box.replaceChildren(parts);
  box.dataset.checked = "true";
}
