// Cards as people read them: "10♥" on screen, "ten of hearts" for a screen reader.
// A card is the engine's text form: rank then suit (10H, AS, KD), jokers X1 and X2;
// ?? is a card the perspective cannot see.

const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", 10: "ten", J: "jack", Q: "queen", K: "king",
};
const SUITS = {
  S: { name: "spades", symbol: "\u2660", red: false },
  H: { name: "hearts", symbol: "\u2665", red: true },
  D: { name: "diamonds", symbol: "\u2666", red: true },
  C: { name: "clubs", symbol: "\u2663", red: false },
};
export const HIDDEN_CARD = "??";

export function cardName(code) {
  if (code === HIDDEN_CARD) return "hidden card";
  if (code === "X1" || code === "X2") return "joker " + code.slice(1);
  const suit = SUITS[code.slice(-1)];
  const rank = RANK_NAMES[code.slice(0, -1)];
  return suit && rank ? rank + " of " + suit.name : code;
}

export function cardFace(code) {
  if (code === HIDDEN_CARD) return "";
  if (code === "X1" || code === "X2") return "\u2605" + code.slice(1);
  const suit = SUITS[code.slice(-1)];
  return suit ? code.slice(0, -1) + suit.symbol : code;
}

// One card as an element (text only, never markup): a list item by default.
export function cardElement(code, tag = "li") {
  const el = document.createElement(tag);
  el.className = "card";
  const suit = SUITS[code.slice(-1)];
  if (code === HIDDEN_CARD) el.classList.add("back");
  else if (suit && suit.red) el.classList.add("red");
  else if (code === "X1" || code === "X2") el.classList.add("joker");
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(code));
  el.title = cardName(code);
  el.textContent = cardFace(code);
  return el;
}

// A row of cards as a labelled list.
export function cardList(codes, label) {
  const ul = document.createElement("ul");
  ul.className = "cards";
  ul.setAttribute("aria-label", label);
  for (const code of codes) ul.append(cardElement(code));
  return ul;
}

// A sentence of describe.js (plain strings and {card} objects) as text and cards.
export function sentenceElement(parts) {
  const p = document.createDocumentFragment();
  for (const part of parts) {
    if (typeof part === "string") p.append(document.createTextNode(part));
    else p.append(cardElement(part.card, "span"));
  }
  return p;
}
