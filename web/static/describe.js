// One sentence per event, as parts: plain strings and {card} objects (shown as cards).
// Only words: the engine decided everything the event says.

const ENDS = {
  initial_tonk: "an initial tonk",
  initial_tonk_draw: "an initial tonk tie",
  tonk_out: "a tonk out",
  out_by_discard: "going out by discarding",
  knock: "a knock",
  stock_exhausted: "the stock running out",
  turn_cap: "the turn limit (no payments)",
};

function cards(list) {
  const parts = [];
  list.forEach((c, i) => { if (i) parts.push(" "); parts.push({ card: c }); });
  return parts;
}

export function describeEvent(ev) {
  switch (ev.type) {
    case "game_started": {
      const rules = ev.ruleset && ev.ruleset.variants && ev.ruleset.variants.length
        ? ev.ruleset.variants.join(", ") : "classic";
      return ["Game started: " + ev.players.join(", ") + "; " + ev.dealer + " deals first; rules: " + rules + "."];
    }
    case "hand_dealt": {
      const parts = ["Hand " + ev.hand_no + " dealt by " + ev.dealer + "; " + ev.first_player + " plays first"];
      if (ev.discard && ev.discard.length) parts.push("; discard top ", { card: ev.discard[0] });
      parts.push(".");
      return parts;
    }
    case "knocked": return [ev.player + " knocked."];
    case "card_drawn":
      if (ev.card === "??") return [ev.player + " drew a card from the stock."]; // hidden from this perspective
      return [ev.player + " drew ", { card: ev.card }, " from the " + (ev.source === "discard" ? "discard pile" : "stock") + "."];
    case "empty_stock_called": return [ev.player + " called for the empty stock."];
    case "spread_laid":
      return [ev.player + " laid " + (ev.kind === "book" ? "a book" : "a run") + " (" + ev.spread_id + "): ", ...cards(ev.cards), "."];
    case "card_hit":
      return [ev.player + " hit ", { card: ev.card }, " on " + ev.spread_id + "."];
    case "card_discarded":
      return [ev.player + " discarded ", { card: ev.card }, "."];
    case "hand_ended": {
      const who = ev.player ? " (" + ev.player + ")" : "";
      return ["Hand " + ev.hand_no + " ended by " + (ENDS[ev.end] || ev.end) + who + "; " + ev.next_dealer + " deals next."];
    }
    case "game_ended": return ["Game ended (" + ev.reason + ")."];
    default: return [String(ev.type)];
  }
}

export function endName(end) {
  return ENDS[end] || String(end);
}

const OUTCOMES = {
  knocker_won: "the knocker had the lowest total",
  knocker_caught: "the knocker was caught: another hand was as low or lower",
};

const REASONS = {
  knock_win: "won the knock",
  caught_penalty: "caught knocking",
  low_hand: "lowest hand",
  out_by_discard: "went out by discarding",
  tonk_out: "tonked out",
  stock_exhausted: "lowest when the stock ran out",
  initial_tonk: "initial tonk",
};

// How a hand ended, in one sentence (hand_ended's fields, never its codes).
export function endSentence(ev) {
  let text = "Hand " + ev.hand_no + " ended by " + endName(ev.end) + (ev.player ? " (" + ev.player + ")" : "");
  if (ev.outcome && OUTCOMES[ev.outcome]) text += "; " + OUTCOMES[ev.outcome];
  return text + ".";
}

// One ledger line in words: "bob pays ann 2 (caught knocking)".
export function paymentSentence(pay) {
  return pay.from + " pays " + pay.to + " " + pay.amount + " (" + (REASONS[pay.reason] || String(pay.reason).replace(/_/g, " ")) + ")";
}
