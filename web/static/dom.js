// The pages' small DOM and text helpers, in one place. Text is always set as text
// (textContent), never as markup.

// A new element holding `text` (none when null or undefined), with the class `cls`.
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

// The value `obj` holds under `key` (a player's name, say), or undefined: only its own keys,
// never what every object inherits, so a seat named "constructor" or "toString" is a name
// like any other.
export function own(obj, key) {
  return obj !== null && obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

// A net in stake units as people write it: +2, −1 (a true minus sign), 0.
export function signed(n) {
  return n > 0 ? "+" + n : n < 0 ? "\u2212" + -n : "0";
}
