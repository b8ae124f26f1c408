/**
 * A replay from GetRecord: the record's events, stepped back and forward (buttons, the arrow
 * keys, a slider, a jump to any hand), the Tablić table rebuilt from the deals and moves with
 * every seat's hand, the Tač piles rebuilt from each step (tacpiles.ts), the players by name. The record text itself (docs/records.md) is shown too.
 */
import { EventKind, type Event, type GetRecordResponse } from "@kafana/client";
import { EVENT_REASONS, RESULT_REASONS, client, counted, explain } from "./api.js";
import { face, labels } from "./cards.js";
import { fill, h } from "./dom.js";
import { reviewPanel } from "./review.js";
import { describeMove } from "./table.js";
import { tacPiles, tacPilesView } from "./tacpiles.js";

/** What the page shows after `step` events: the table, the names, each side's takes. */
interface Position {
  table: string[];
  /** Builds on the table (the `building` switch): cards, value, owner. */
  builds: { cards: string[]; value: number; owner: number }[];
  names: string[];
  taken: number[];
  scores: number[];
  hand: number;
  text: string;
  /** Tablić: each seat's cards in hand (every card dealt is played before the next deal, so a
   * seat holds the cards it plays from here to the next deal). */
  hands: string[][];
}

/** The cards each seat holds after the first `step` events: its moves up to the next deal. */
function handsAt(events: readonly Event[], step: number): string[][] {
  const hands: string[][] = [];
  for (const event of events.slice(step)) {
    const move = event.move?.game;
    if (event.kind === EventKind.MOVE && move?.case === "tablic") (hands[event.seat] ??= []).push(move.value.card);
    if (event.deal) break; // the next deal (alone, or after the move that emptied the hands)
  }
  return hands;
}

/** The position after the first `step` events of `events`. */
export function position(events: readonly Event[], step: number): Position {
  const at: Position = { table: [], builds: [], names: [], taken: [], scores: [], hand: 0, text: "The match is about to start.", hands: handsAt(events, step) };
  for (const event of events.slice(0, step)) {
    const who = at.names[event.seat] ?? `seat ${event.seat + 1}`;
    if (event.kind === EventKind.SEAT_TAKEN) {
      at.names[event.seat] = event.name || who;
      at.text = `${event.name} took seat ${event.seat + 1}.`;
    }
    if (event.deal) {
      at.hand = event.deal.handNo;
      if (event.deal.table.length) {
        at.table = [...event.deal.table];
        at.builds = [];
      }
      at.text = `Hand ${event.deal.handNo + 1} is dealt.`;
    }
    if (event.kind === EventKind.MOVE && event.move) {
      const move = event.move.game;
      if (move.case === "tablic") {
        const { card, captured, joined, buildValue } = move.value;
        if (buildValue) { // a build or a raise: the card and what it joins lie as one unit
          const raised = at.builds.filter((b) => b.cards.some((c) => joined.includes(c)));
          at.builds = at.builds.filter((b) => !raised.includes(b));
          at.table = at.table.filter((c) => !joined.includes(c));
          at.builds.push({ cards: [...joined, card], value: buildValue, owner: event.seat });
        } else if (captured.length) {
          at.table = at.table.filter((c) => !captured.includes(c));
          at.builds = at.builds.filter((b) => !b.cards.some((c) => captured.includes(c)));
          at.taken[event.seat] = (at.taken[event.seat] ?? 0) + captured.length + 1;
        } else {
          at.table.push(card);
        }
      }
      at.text = describeMove(who, event.move, at.names);
      if (event.reason && event.reason !== 1) at.text += ` (${EVENT_REASONS[event.reason] ?? ""})`;
    }
    if (event.kind === EventKind.FORFEIT) at.text = `${who} forfeited (${EVENT_REASONS[event.reason] ?? ""}).`;
    if (event.handScore) {
      event.handScore.points.forEach((p, side) => (at.scores[side] = (at.scores[side] ?? 0) + p));
      at.text += ` Hand ${event.handScore.hand + 1} scored: ${event.handScore.points.join(" : ")}.`;
    }
    if (event.result) at.text += ` Match over: ${event.result.scores.join(" : ")} (${RESULT_REASONS[event.result.reason] ?? ""}).`;
  }
  return at;
}

/** The replay page into `root`. */
export async function replayPage(root: HTMLElement, tableId: string): Promise<() => void> {
  let record: GetRecordResponse;
  try {
    record = await client.kafana.getRecord({ tableId });
  } catch (error) {
    fill(root, h("a", { href: "#/", class: "back" }, "← Lobby"), h("p", { class: "error", role: "alert" }, `No replay: ${explain(error)}`));
    return () => undefined;
  }
  const events = record.events;
  const tac = events.some((e) => e.move?.game.case === "tac");
  let step = events.length;
  const view = h("div", { class: "replay-view" });
  const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: events.length, value: step, "aria-label": "move" });
  const counter = h("span", { id: "replay-step", "aria-live": "polite" });
  const jump = h("input", { type: "number", id: "replay-goto", min: 0, max: events.length, "aria-label": "go to event number", placeholder: "event #" });
  jump.addEventListener("change", () => go(Number(jump.value)));
  const hands = h("select", { id: "replay-hand", "aria-label": "jump to a hand" });
  const dealSteps: number[] = [];
  events.forEach((event, i) => {
    if (event.deal) {
      dealSteps.push(i + 1);
      hands.appendChild(h("option", { value: i + 1 }, `Hand ${event.deal.handNo + 1}${event.deal.table.length ? "" : " (deal)"}`));
    }
  });

  function go(to: number): void {
    step = Math.max(0, Math.min(events.length, to));
    slider.value = String(step);
    const at = position(events, step);
    fill(counter, `${step} / ${events.length}`);
    const players = Math.max(at.names.length, 2);
    fill(view,
      h("p", { id: "replay-text", class: "notice" }, at.text),
      h("section", { class: "seats" }, Array.from({ length: players }, (_, n) =>
        h("div", { class: "seat" }, h("div", { class: "seat-name" }, at.names[n] ?? `seat ${n + 1}`),
          tac ? null : h("div", { class: "seat-info" }, `${counted(at.taken[n] ?? 0, "card")} taken`),
          at.hands[n]?.length ? h("div", { class: "hand replay-hand", "aria-label": `${at.names[n] ?? `seat ${n + 1}`}'s hand` }, at.hands[n].map((c) => face(c))) : null))),
      tac ? tacPilesView(tacPiles(events, step), at.names) : h("section", { class: "table-cards" }, h("h2", {}, `Table · hand ${at.hand + 1}`),
        at.table.length || at.builds.length ? [at.table.map((c) => face(c)), at.builds.map((b) => h("div", {
          class: "build", role: "group", "data-build": b.value, "aria-label": `a build of ${b.value}, ${at.names[b.owner] ?? `seat ${b.owner + 1}`}'s: ${labels(b.cards)}`,
        }, b.cards.map((c) => face(c)), h("span", { class: "build-value" }, `= ${b.value} · ${at.names[b.owner] ?? ""}`)))] : h("p", { class: "empty" }, "empty")),
      h("p", {}, at.scores.length ? `Points so far: ${at.scores.join(" : ")}` : ""));
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  hands.addEventListener("change", () => go(Number(hands.value)));
  const keys = (event: KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === "ArrowRight") go(step + 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(events.length);
  };
  document.addEventListener("keydown", keys);
  const result = record.result;
  const tablic = events.some((e) => e.move?.game.case === "tablic");
  const review = tablic ? reviewPanel(tableId, events, position(events, events.length).names) : undefined;
  fill(root,
    h("a", { href: "#/", class: "back" }, "← Lobby"),
    h("h1", {}, `Replay of ${tableId}`),
    result ? h("p", { class: "meta" }, `Result ${result.scores.join(" : ")} (${RESULT_REASONS[result.reason] ?? ""})`) : null,
    h("div", { class: "replay-controls" },
      h("button", { type: "button", id: "replay-first", onclick: () => go(0), "aria-label": "first" }, "⏮"),
      h("button", { type: "button", id: "replay-back", onclick: () => go(step - 1), "aria-label": "back" }, "◀ Back"),
      h("button", { type: "button", id: "replay-forward", onclick: () => go(step + 1), "aria-label": "forward" }, "Forward ▶"),
      h("button", { type: "button", id: "replay-last", onclick: () => go(events.length), "aria-label": "last" }, "⏭"),
      counter, slider, hands, jump),
    view,
    review?.element,
    h("details", {}, h("summary", {}, "Record text"), h("pre", { class: "record" }, record.record)),
    h("p", { class: "hint" }, "Keys: ← → step, Home / End. ", labels([])));
  go(step);
  return () => {
    document.removeEventListener("keydown", keys);
    review?.stop();
  };
}
