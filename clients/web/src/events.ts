/**
 * Hosted events (CompetitionsService): the list, and one event's standings with tie-breaks and
 * ratings, rounds, pairings, live games (watch) and finished ones (replay), the published
 * commitments. The event page polls GetEvent, so standings update live while it runs.
 */
import { EntrantState, EventFormat, EventPhase, GameStatus, type EventInfo } from "@kafana/client";
import { client, explain, gameLine } from "./api.js";
import { entryPanel } from "./entry.js";
import { isOperator, organiserPanel, organiserToken, tokenForm } from "./organiser.js";
import { fill, h, listTable } from "./dom.js";
import { pagedTable } from "./pager.js";
import { linePlot, type Series } from "./plot.js";

const PHASES: Record<number, string> = {
  [EventPhase.OPEN]: "open for entries",
  [EventPhase.STARTED]: "running",
  [EventPhase.FINISHED]: "finished",
};
const STATES: Record<number, string> = { [EntrantState.WITHDRAWN]: "withdrawn", [EntrantState.DISQUALIFIED]: "disqualified", [EntrantState.ABSENT]: "absent" };
const POLL_MS = 1000;
const EVENTS_PAGE = 12;

/** The list of events into `root`, a page at a time (ListEvents' tokens), newest first. */
export async function eventsPage(root: HTMLElement): Promise<() => void> {
  const pages = pagedTable("events", ["Event", "Phase", "Entrants"], async (token) => {
    const page = await client.competitions.listEvents({ pageSize: EVENTS_PAGE, pageToken: token });
    return [page.events, page.nextPageToken];
  }, (e) => h("tr", { "data-event": e.eventId },
    h("td", {}, h("a", { href: `#/e/${e.eventId}` }, e.name)),
    h("td", {}, PHASES[e.phase] ?? ""),
    h("td", {}, e.entrants.map((x) => x.name).join(", "))),
  "No events yet.", [["events-prev", "← Newer"], ["events-next", "Older →"]]);
  fill(root, h("a", { href: "#/", class: "back" }, "← Lobby"), h("h1", {}, "Events"),
    h("p", {}, h("a", { href: "#/o", class: "button", id: "organise-link" }, "Organise an event")), pages.status, pages.list, pages.element);
  await pages.load();
  return () => undefined;
}

function standings(event: EventInfo): HTMLElement {
  const arena = event.format === EventFormat.ARENA; // no byes; a streak doubles the points
  return h("div", { class: "tables" }, listTable({ id: "standings" },
    ["#", "Entrant", "Points", "Played", "W", "D", "L", arena ? "Streak" : "Byes", "Buchholz", "S-B", "Diff", "Rating"],
    event.standings.map((s) => h("tr", {},
      h("td", {}, s.rank), h("td", {}, s.entrant, STATES[s.state] ? ` (${STATES[s.state]})` : ""), h("th", {}, s.points), h("td", {}, s.played),
      h("td", {}, s.wins), h("td", {}, s.draws), h("td", {}, s.losses), h("td", { class: arena && s.streak >= 2 ? "streak" : undefined }, arena ? (s.streak >= 2 ? `${s.streak}, points ×2` : s.streak) : s.byes),
      h("td", {}, s.buchholz.toFixed(1)), h("td", {}, s.sonnebornBerger.toFixed(2)), h("td", {}, s.diff),
      h("td", {}, s.rating.toFixed(1))))));
}

function rounds(event: EventInfo): HTMLElement[] {
  return event.rounds.map((round) => h("section", { class: "panel" },
    h("h3", {}, `Round ${round.number}`),
    h("div", { class: "tables" }, listTable({}, ["Game", "Seats", "Status", "Score", "Commitment"],
      round.games.map((g) => h("tr", {},
        h("td", {}, g.gameId),
        h("td", {}, g.seats.join(" – ")),
        h("td", {}, g.status === GameStatus.PLAYING && g.tableId
          ? h("a", { href: `#/t/${g.tableId}?watch`, class: "button watch" }, "Watch live")
          : g.status === GameStatus.DONE && g.tableId
            ? h("a", { href: `#/r/${g.tableId}`, class: "button" }, "Replay")
            : "waiting"),
        h("td", {}, g.scores.join(" : ")),
        h("td", { class: "hash", title: g.commitment }, g.commitment.slice(0, 16) + "…"))))),
    round.byes.length ? h("p", {}, `Byes: ${round.byes.join(", ")}`) : null));
}

/** Each entrant's rating curve (mu - 3 sigma after each of its games) from the finished
 * event's ratings.json export (GetEvent with records). */
export function ratingCurves(ratingsJson: string): Series[] {
  const data = JSON.parse(ratingsJson) as { history?: Record<string, Record<string, { mu: number; sigma: number }[]>> };
  return Object.values(data.history ?? {}).flatMap((pool) =>
    Object.entries(pool).map(([name, points]) => ({ name, values: [0, ...points.map((p) => p.mu - 3 * p.sigma)] })));
}

/** One event into `root`, polled until it is finished. */
export async function eventPage(root: HTMLElement, eventId: string): Promise<() => void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const body = h("div");
  const entry = entryPanel(eventId);
  const organiser = organiserToken(eventId) || (await isOperator()) ? organiserPanel(eventId) : undefined;
  fill(root, h("a", { href: "#/e", class: "back" }, "← Events"), organiser?.element, entry.element, body,
    organiser ? null : tokenForm(eventId));
  async function poll(): Promise<void> {
    try {
      const event = await client.competitions.getEvent({ eventId });
      entry.phase(event.phase);
      organiser?.update(event);
      fill(body,
        h("h1", {}, event.name),
        h("p", {}, h("a", { href: `#/e/${eventId}/verify`, class: "button", id: "verify-link" }, "Verify this event")),
        h("p", { class: "meta", id: "event-phase" }, `${PHASES[event.phase] ?? ""} · ${event.entrants.length} entrants · ${event.totalRounds} rounds`,
          event.phase === EventPhase.OPEN ? (event.entriesOpen ? " · taking entries" : " · not taking entries now") : "",
          Number(event.startAtMs) ? ` · starts ${new Date(Number(event.startAtMs)).toLocaleString()}` : "",
          Number(event.endsAtMs) ? ` · pairs until ${new Date(Number(event.endsAtMs)).toLocaleTimeString()}` : "",
          event.note ? ` · ${event.note}` : ""),
        h("p", { class: "meta", id: "event-game" }, gameLine(event.rules)),
        h("h2", {}, "Standings"), standings(event),
        h("h2", { id: "rounds-heading" }, "Rounds"), rounds(event),
        event.report ? h("details", {}, h("summary", {}, "Report"), h("pre", {}, event.report)) : null);
      if (event.phase === EventPhase.FINISHED) {
        const full = await client.competitions.getEvent({ eventId, records: true });
        const ratings = full.exports["ratings.json"];
        if (ratings) {
          body.insertBefore(h("section", { class: "panel", id: "rating-curves" }, h("h2", {}, "Rating curves"),
            linePlot(ratingCurves(ratings), "each entrant's rating after each game"),
            h("p", { class: "hint" }, "The displayed rating (μ − 3σ) after each game, from 0 before the first.")),
            body.querySelector("#rounds-heading"));
        }
        return;
      }
    } catch (error) {
      fill(body, h("p", { class: "error", role: "alert" }, explain(error)));
    }
    if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
  }
  await poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    entry.stop();
  };
}
