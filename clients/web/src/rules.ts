/**
 * The rules page (#/rules): both games in short, the Tablić rule book's capture examples drawn
 * as cards, and what this server offers (ServerInfo): players, every preset with its settings
 * and every switch with the server's own description and each preset's value.
 */
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { Game, RulesSpecSchema, type GameOffer } from "@kafana/client";
import { GAME_NAMES, PRESET_NAMES, client, explain } from "./api.js";
import { face } from "./cards.js";
import { fill, h } from "./dom.js";

/** The rule book's examples (docs/rules.md; each is a test): table, card played, taken, why. */
const EXAMPLES: readonly [string[], string, string[], string][] = [
  [["7S", "6H", "KD"], "KC", ["KD"], "only the king: 7 + 6 is 13, a king counts 14"],
  [["5S", "4D", "8C"], "9H", ["5S", "4D"], "5 + 4 make 9"],
  [["4C", "7S"], "AD", ["4C", "7S"], "the ace counts 11: 4 + 7"],
  [["AS", "7D"], "8C", ["AS", "7D"], "the table's ace counts 1: 1 + 7"],
  [["KD", "KH"], "KC", ["KD", "KH"], "one king, or both (the player chooses)"],
  [["JS", "8H", "4D", "2C"], "JC", ["JS", "8H", "4D"], "J and 8 + 4 are two groups of 12; the 2 cannot join"],
  [["QS", "7H", "6C"], "QD", ["QS", "7H", "6C"], "Q and 7 + 6: the table is emptied, a tabla"],
];

function example([table, played, taken, why]: (typeof EXAMPLES)[number]): HTMLElement {
  return h("li", { class: "example" },
    h("span", { class: "cards" }, table.map((c) => face(c, { extra: taken.includes(c) ? "taken-example" : undefined }))),
    h("span", { class: "arrow" }, " ← "), face(played, { extra: "arrived" }),
    h("span", { class: "why" }, " ", why));
}

/** A preset's or the defaults' value of each switch, as JSON. */
function branch(game: Game, spec: Parameters<typeof toJson<typeof RulesSpecSchema>>[1] | undefined): JsonObject {
  if (!spec) return {};
  const json = toJson(RulesSpecSchema, spec) as JsonObject;
  return (json[game === Game.TAC ? "tac" : "tablic"] ?? {}) as JsonObject;
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function offerSection(offer: GameOffer): HTMLElement {
  const columns: [string, JsonObject][] = offer.game === Game.TABLIC
    ? offer.presets.map((p) => {
        const values = branch(offer.game, p);
        const preset = p.variant.case === "tablic" ? p.variant.value.preset : 0;
        return [PRESET_NAMES[preset] ?? "preset", values];
      })
    : [["default", branch(offer.game, offer.defaults)]];
  const shown = (value: unknown) => (value === undefined ? "off" : value === true ? "on" : String(value));
  return h("section", { class: "panel", id: `rules-${offer.game === Game.TAC ? "tac" : "tablic"}` },
    h("h2", {}, `${GAME_NAMES[offer.game] ?? "?"}: what this server plays`),
    h("p", {}, `Players: ${offer.players.join(", ")}.`),
    h("div", { class: "tables" }, h("table", { class: "list switches-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Switch"), h("th", {}, "What it does"), columns.map(([name]) => h("th", {}, name)))),
      h("tbody", {}, offer.switches.map((sw) => h("tr", {},
        h("td", {}, h("code", {}, sw.name)), h("td", {}, sw.description),
        columns.map(([, values]) => h("td", {}, shown(values[camel(sw.name)])))))))));
}

/** The rules page into `root`. */
export async function rulesPage(root: HTMLElement): Promise<() => void> {
  let offers: GameOffer[] = [];
  let problem = "";
  try {
    offers = (await client.serverInfo()).games;
  } catch (error) {
    problem = explain(error);
  }
  fill(root,
    h("h1", {}, "The rules"),
    h("section", { class: "panel" },
      h("h2", {}, "Tablić in short"),
      h("p", {}, "One 52-card deck. Four cards go face up on the table, then each player gets six; when the hands are played out, six more, until the deck is empty. "
        + "In turn, each player plays one card: it captures table cards, or stays on the table (a trail)."),
      h("p", {}, "A card captures any set of table cards that splits into groups each adding up to its value, or a card of its own rank. "
        + "Values (Serbian): A 1 or 11, 2 to 10 their number, J 12, Q 13, K 14. Emptying the table is a tabla: a point. "
        + "At the end of a hand the last capturer takes what is left; each A, 10, J, Q, K counts 1, the 10♦ 2, the 2♣ 1, and the most cards 3. "
        + "Hands are played until a side reaches the target."),
      h("h3", {}, "The rule book's examples"),
      h("ul", { class: "examples" }, EXAMPLES.map(example)),
      h("p", { class: "hint" }, "Outlined: the cards taken by the card on the right.")),
    h("section", { class: "panel" },
      h("h2", {}, "Tač in short"),
      h("p", {}, "A shedding game: every card is dealt face down as each player's closed pile; the first to get rid of all their cards wins. "
        + "A card follows another one rank higher (A 2 … 10 J Q K, then A again). The central pile starts with an ace; a card may go onto it, or onto another player's discard pile that it follows. "
        + "A turn goes in a binding order: your discard's top card where it fits, else turn up your closed pile's top card and place it; a card that fits nowhere goes on your own discard and ends the turn. "
        + "With Tač calls on, a move out of that order is accepted, and any other player may call “Tač!”: the offender takes a penalty of cards.")),
    problem ? h("p", { class: "error", role: "alert" }, `The server's offer is unavailable: ${problem}`) : null,
    offers.map(offerSection));
  return () => undefined;
}
