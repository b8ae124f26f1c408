/** Cards as text and CSS: "10D" is drawn 10♦ in red. A face-down card carries no card name. */
import { h } from "./dom.js";

const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const RANKS: Record<string, string> = { A: "ace", J: "jack", Q: "queen", K: "king" };

/** The rank and suit of a card name ("10D" -> ["10", "D"]). */
export function split(card: string): [string, string] {
  return [card.slice(0, -1), card.slice(-1)];
}

/** A card as people read it: "10♦". */
export function label(card: string): string {
  const [rank, suit] = split(card);
  return rank + (SUITS[suit]?.symbol ?? suit);
}

/** A card's name for screen readers: "10 of diamonds". */
export function spoken(card: string): string {
  const [rank, suit] = split(card);
  return `${RANKS[rank] ?? rank} of ${SUITS[suit]?.name ?? suit}`;
}

/** A card as the API writes it, inside a server's text ("AS", "10D"; not "ASK" or "P1"). */
const WIRE_CARD = /\b(?:10|[2-9AJQK])[CDHS]\b/g;

/** A server's text (a refusal) with each card in it as people read it: "ILLEGAL_MOVE: 7H
 * cannot capture 5C+10D" is "ILLEGAL_MOVE: 7♥ cannot capture 5♣+10♦". Text in, text out:
 * shown with textContent, never as HTML. */
export function labelled(text: string): string {
  return text.replace(WIRE_CARD, label);
}

/** Cards as text: "K♣ + 2♦". */
export function labels(cards: readonly string[]): string {
  return cards.map(label).join(" + ");
}

/** A face-up card: a button when `onclick` is given (keyboard: Tab, Enter, Space). */
export function face(
  card: string,
  options: { onclick?: () => void; selected?: boolean; legal?: boolean; extra?: string } = {},
): HTMLElement {
  const [, suit] = split(card);
  const classes = ["card", SUITS[suit]?.red ? "red" : "black"];
  if (options.selected) classes.push("selected");
  if (options.legal) classes.push("legal");
  if (options.extra) classes.push(options.extra);
  const attrs = {
    class: classes.join(" "),
    "data-card": card,
    title: spoken(card),
    // the visible text first (the accessible name contains what is seen), then in words
    "aria-label": `${label(card)}, ${spoken(card)}${options.legal ? ", part of a legal capture" : ""}`,
  };
  if (options.onclick) {
    const click = options.onclick;
    return h("button", { ...attrs, type: "button", "aria-pressed": String(!!options.selected), onclick: click }, label(card));
  }
  return h("span", attrs, label(card));
}

/** `count` face-down cards (never a card's name: a spectator's DOM holds no hidden card). */
export function backs(count: number): HTMLElement {
  const row = h("span", { class: "backs", role: "img", "aria-label": `${count} cards` });
  for (let i = 0; i < count; i++) row.appendChild(h("span", { class: "card back" }));
  return row;
}
