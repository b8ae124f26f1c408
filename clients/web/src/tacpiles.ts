/**
 * Tač piles rebuilt from a record's events (the replay): the deal gives each seat's closed pile
 * size (and, with three players, the central pile's first card); each move's step says which
 * card was turned up or moved; a call moves closed cards to the offender as the rules core does
 * (one from each other seat with a closed card and two cards or more held). Closed piles are
 * counts only: their faces are never in a record's events.
 */
import { EventKind, TacPileKind, type Event } from "@kafana/client";
import { backs, face, label } from "./cards.js";
import { h } from "./dom.js";

/** The piles after some events. */
export interface TacPiles {
  central: string[];
  discards: string[][];
  closed: number[];
  turned: string;
}

/** The piles after the first `step` events. */
export function tacPiles(events: readonly Event[], step: number): TacPiles {
  const at: TacPiles = { central: [], discards: [], closed: [], turned: "" };
  let current: number | undefined;
  let offender: number | undefined;
  const held = (seat: number) => (at.closed[seat] ?? 0) + (at.discards[seat]?.length ?? 0) + (at.turned && current === seat ? 1 : 0);
  for (const event of events.slice(0, step)) {
    if (event.deal) {
      at.closed = [...event.deal.handSizes];
      at.discards = at.closed.map(() => []);
      at.central = [...event.deal.table];
      at.turned = "";
    }
    const move = event.move?.game;
    if (event.kind === EventKind.MOVE && move?.case === "tac") {
      const s = event.seat;
      const card = event.step?.card ?? "";
      const action = move.value.action;
      if (action.case === "flip") {
        if (event.step?.turnedOver) {
          at.closed[s] = (at.closed[s] ?? 0) + (at.discards[s]?.length ?? 0);
          at.discards[s] = [];
        }
        at.closed[s] = Math.max(0, (at.closed[s] ?? 0) - 1);
        at.turned = card;
      } else if (action.case === "play") {
        const { source, target } = action.value;
        if (source?.kind === TacPileKind.TURNED) at.turned = "";
        else at.discards[s]?.pop();
        if (target?.kind === TacPileKind.CENTRAL) at.central.push(card || action.value.card);
        else (at.discards[target?.kind === TacPileKind.DISCARD ? target.seat : s] ??= []).push(card || action.value.card);
      } else if (action.case === "call" && offender !== undefined) {
        const n = at.closed.length;
        for (let k = 1; k < n; k++) {
          const other = (offender + k) % n;
          if ((at.closed[other] ?? 0) > 0 && held(other) >= 2) {
            at.closed[other]! -= 1;
            at.closed[offender] = (at.closed[offender] ?? 0) + 1;
          }
        }
        if (current === offender && at.turned) {
          (at.discards[offender] ??= []).push(at.turned);
          at.turned = "";
        }
        offender = undefined;
      }
      if (action.case !== "call") offender = event.step?.offence ? s : offender === s ? offender : undefined;
    }
    current = event.currentSeat;
  }
  return at;
}

/** The piles drawn: the centre's top and count, the turned card, each seat's closed pile (face
 * down) and discard pile (its top). */
export function tacPilesView(piles: TacPiles, names: readonly string[]): HTMLElement {
  const top = (cards: readonly string[]) => (cards.length ? face(cards[cards.length - 1]!) : h("span", { class: "empty" }, "empty"));
  return h("section", { class: "table-cards tac", id: "tac-piles", "aria-label": "the piles" },
    h("h2", {}, "Piles"),
    h("div", { class: "pile", id: "tac-central", "data-count": piles.central.length, "data-top": piles.central.at(-1) ?? "" },
      h("span", {}, "Centre "), top(piles.central), ` (${piles.central.length})`),
    h("div", { class: "pile", id: "tac-turned" }, h("span", {}, "Turned "), piles.turned ? face(piles.turned) : h("span", { class: "empty" }, "none")),
    piles.closed.map((closed, n) => {
      const discard = piles.discards[n] ?? [];
      return h("div", { class: "pile tac-seat", "data-seat": n, "data-closed": closed, "data-discard": discard.length, "data-discard-top": discard.at(-1) ?? "",
        "aria-label": `${names[n] ?? `seat ${n + 1}`}: ${closed} closed, discard ${discard.length ? label(discard.at(-1)!) : "empty"} (${discard.length})` },
        h("span", {}, `${names[n] ?? `seat ${n + 1}`}: `), backs(closed), " discard ", top(discard), ` (${discard.length})`);
    }));
}
