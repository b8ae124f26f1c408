/**
 * A game review of a finished Tablić match: every move of the record analysed as its seat saw
 * it then (Analyze with `at_seq` = the move's seq - 1 and its seat), one call at a time (the
 * server serves one analysis per caller at once), shown as it comes: the move played, the
 * engine's choice, what the move cost (margin given up), how the engine knew; then per seat
 * the moves that agreed and the margin given up in all.
 */
import type { Event, Move } from "@kafana/client";
import { EventKind } from "@kafana/client";
import { client, explain } from "./api.js";
import { label, labelled, labels } from "./cards.js";
import { fill, h } from "./dom.js";

/** CPU milliseconds the engine thinks about each move (the terminal review's default). */
const BUDGET_MS = 100;

/** A Tablić move in words without a name: "took 5♣ + 4♦ with 9♥", "trailed 7♠". */
function moveText(move: Move | undefined): string {
  if (move?.game.case !== "tablic") return move?.text ?? "";
  const { card, captured } = move.game.value;
  return captured.length ? `took ${labels(captured)} with ${label(card)}` : `trailed ${label(card)}`;
}

/** The same Tablić move (the card and the set of cards taken). */
function same(a: Move | undefined, b: Move | undefined): boolean {
  if (a?.game.case !== "tablic" || b?.game.case !== "tablic") return false;
  const x = a.game.value;
  const y = b.game.value;
  return x.card === y.card && [...x.captured].sort().join() === [...y.captured].sort().join();
}

/** The review panel for `events` of `tableId` (names by seat): a button starts it; `stop`
 * ends a review under way (the page was left). */
export function reviewPanel(tableId: string, events: readonly Event[], names: readonly string[]): { element: HTMLElement; stop: () => void } {
  const moves = events.filter((e) => e.kind === EventKind.MOVE && e.move?.game.case === "tablic");
  const status = h("p", { id: "review-status", class: "notice", role: "status" });
  const progress = h("progress", { id: "review-progress", max: moves.length, value: 0, "aria-label": "moves reviewed" });
  const body = h("tbody");
  const totals = h("div", { id: "review-totals" });
  const button = h("button", { type: "button", id: "review" }, "Review this match");
  let stopped = false;
  const who = (seat: number) => names[seat] ?? `seat ${seat + 1}`;

  async function run(): Promise<void> {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    fill(body);
    fill(totals);
    const given: number[] = [];
    const agreed: number[] = [];
    const count: number[] = [];
    let number = 0;
    for (const event of moves) {
      if (stopped) return;
      number += 1;
      status.textContent = `Reviewing move ${number} of ${moves.length}…`;
      try {
        const answer = await client.kafana.analyze({ tableId, atSeq: event.seq - 1n, seat: event.seat, budgetMillis: BUDGET_MS });
        const played = answer.played ?? event.move;
        const cost = answer.moves.find((m) => same(m.move, played))?.cost ?? 0;
        const best = same(answer.best, played);
        given[event.seat] = (given[event.seat] ?? 0) + cost;
        agreed[event.seat] = (agreed[event.seat] ?? 0) + (best ? 1 : 0);
        count[event.seat] = (count[event.seat] ?? 0) + 1;
        body.appendChild(h("tr", { class: cost >= 0.05 ? "cost" : "agreed" },
          h("td", {}, number), h("td", {}, who(event.seat)), h("td", {}, moveText(played)),
          h("td", {}, best ? "same" : moveText(answer.best)),
          h("td", { class: "num" }, cost >= 0.05 ? cost.toFixed(1) : ""), h("td", {}, answer.method)));
      } catch (error) {
        status.textContent = `The review stopped at move ${number}: ${labelled(explain(error))}`; // cards as the page draws them
        button.disabled = false;
        button.removeAttribute("aria-busy");
        return;
      }
      progress.value = number;
    }
    fill(totals, h("h3", {}, "Totals"), h("ul", {}, count.map((n, seat) => n
      ? h("li", { "data-seat": seat }, `${who(seat)}: ${agreed[seat] ?? 0} of ${n} moves as the engine would play them; ${(given[seat] ?? 0).toFixed(1)} points of margin given up in all`)
      : null)));
    status.textContent = `Reviewed ${moves.length} moves.`;
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
  button.addEventListener("click", () => void run());
  const element = h("section", { class: "panel review", id: "review-panel", "aria-label": "game review" },
    h("h2", {}, "Game review"),
    h("p", { class: "hint" }, `The engine (${BUDGET_MS} ms a move) looks at each move as its seat saw it: its choice, and the points of margin by the hand's end a different move gave up.`),
    button, " ", progress, status,
    h("div", { class: "tables" }, h("table", { class: "list", id: "review-moves" },
      h("thead", {}, h("tr", {}, ["#", "Seat", "Played", "Engine", "Cost", "How"].map((t) => h("th", {}, t)))),
      body)),
    totals);
  return { element, stop: () => void (stopped = true) };
}
