/**
 * Leagues (LeaguesService): a league's leaderboard, a page at a time (GetLeaderboard's page
 * tokens), and a player's page: the rating, its history as a plot (SVG, drawn here), and the
 * recent matches with their replays; the list of leagues (ListLeagues). Leagues need an API
 * key (the lobby's "API key" field).
 */
import { Game, MatchState, type PlayerInfo } from "@kafana/client";
import { GAME_NAMES, RESULT_REASONS, client, explain, storeSeat } from "./api.js";
import { fill, h, listTable } from "./dom.js";
import { pagedTable, pager } from "./pager.js";
import { linePlot } from "./plot.js";

const PAGE_SIZE = 50;
const LEAGUES_PAGE = 20;

/** The list of leagues (ListLeagues, a page at a time, by name), and a form that opens one by
 * name. Each row links to the league's page, where its queue is joined. */
export async function leaguesPage(root: HTMLElement): Promise<() => void> {
  const pages = pagedTable("leagues", ["League", "Game", "Players", "Clock", "Season", "Waiting", "Matches", ""], async (token) => {
    const page = await client.leagues.listLeagues({ pageSize: LEAGUES_PAGE, pageToken: token });
    return [page.leagues, page.nextPageToken];
  }, (l) => h("tr", { "data-league": l.league },
    h("td", {}, h("a", { href: `#/l/${encodeURIComponent(l.league)}` }, l.league)),
    h("td", {}, GAME_NAMES[l.spec?.game || Game.TABLIC] ?? ""),
    h("td", {}, l.spec?.players || 2),
    h("td", {}, `${((l.spec?.moveMs ?? 0) / 1000).toFixed(0)} s a move`),
    h("td", {}, l.season),
    h("td", { class: "waiting" }, l.waiting),
    h("td", {}, String(l.matchesSettled)),
    h("td", {}, h("a", { class: "button", href: `#/l/${encodeURIComponent(l.league)}`, "aria-label": `Queue in ${l.league}` }, "Queue"))),
  "No leagues here yet.", [["leagues-prev", "← Back"], ["leagues-next", "More →"]], (error) => `Could not list the leagues: ${explain(error)}`);
  const name = h("input", { id: "league-name", placeholder: "league name", maxlength: 48 });
  fill(root, h("a", { href: "#/", class: "back" }, "← Lobby"), h("h1", {}, "Leagues"), pages.status, pages.list,
    pages.element,
    h("form", { class: "panel", onsubmit: (e: SubmitEvent) => {
      e.preventDefault();
      if (name.value.trim()) location.hash = `#/l/${encodeURIComponent(name.value.trim())}`;
    } }, h("label", { for: "league-name" }, "Open the league "), name, " ", h("button", { type: "submit" }, "Open")));
  await pages.load();
  return () => undefined;
}

/** The queue panel: join (WatchTickets first, so the ticket finds this page), leave; a ticket
 * stores its seat token and opens its table. Needs the API key of a player account. */
function queuePanel(league: string, stop: AbortSignal): HTMLElement {
  const status = h("p", { id: "queue-status", role: "status" });
  const join = h("button", { type: "button", id: "join-queue" }, "Join the queue");
  const leave = h("button", { type: "button", id: "leave-queue", disabled: true }, "Leave the queue");
  let watching: AbortController | undefined;
  join.addEventListener("click", async () => {
    join.disabled = true;
    join.setAttribute("aria-busy", "true");
    join.textContent = "Joining…";
    watching = new AbortController();
    stop.addEventListener("abort", () => watching?.abort());
    const tickets = client.leagues.watchTickets({ league }, { signal: watching.signal });
    try {
      const queued = await client.leagues.joinQueue({ league }).finally(() => {
        join.removeAttribute("aria-busy");
        join.textContent = "Join the queue";
      });
      status.textContent = `${queued.player} is waiting (${queued.waiting} in the queue, rating ${queued.rating.toFixed(1)})…`;
      leave.disabled = false;
      for await (const update of tickets) {
        if (update.update.case !== "ticket") continue;
        const ticket = update.update.value;
        storeSeat(ticket.tableId, { seat: ticket.seat, token: ticket.seatToken, name: ticket.players[ticket.seat] ?? "" });
        watching.abort();
        location.hash = `#/t/${ticket.tableId}`;
        return;
      }
    } catch (error) {
      if (!watching.signal.aborted) status.textContent = `Could not queue: ${explain(error)}`;
    }
    join.disabled = false;
    leave.disabled = true;
  });
  leave.addEventListener("click", async () => {
    leave.disabled = true;
    leave.setAttribute("aria-busy", "true");
    leave.textContent = "Leaving…";
    try {
      await client.leagues.leaveQueue({ league });
      watching?.abort();
      status.textContent = "Left the queue.";
      leave.disabled = true;
      join.disabled = false;
    } catch (error) {
      status.textContent = explain(error);
      leave.disabled = false;
    } finally {
      leave.removeAttribute("aria-busy");
      leave.textContent = "Leave the queue";
    }
  });
  return h("section", { class: "panel" }, h("h2", {}, "Play"), join, " ", leave, status);
}

/** A league's leaderboard into `root`. */
export async function leaguePage(root: HTMLElement, league: string): Promise<() => void> {
  const body = h("div");
  const pages = pager(load, ["board-prev", "← Better"], ["board-next", "Lower →"]);
  const stop = new AbortController();
  fill(root, h("a", { href: "#/l", class: "back" }, "← Leagues"), body, queuePanel(league, stop.signal));
  async function load(): Promise<void> {
    try {
      const info = await client.leagues.getLeague({ league });
      const board = await client.leagues.getLeaderboard({ league, pageSize: PAGE_SIZE, pageToken: pages.token() });
      pages.shown(board.nextPageToken);
      const spec = info.spec;
      fill(body,
        h("h1", {}, `League ${info.league}`),
        h("p", { class: "meta", id: "league-meta" },
          `Season ${info.season} · ${board.total} players on the board · ${info.waiting} waiting · ${info.matchesSettled} of ${info.matchesMade} matches settled`,
          spec ? ` · ${spec.players || 2} players, ${(spec.moveMs / 1000).toFixed(0)} s a move` : ""),
        h("table", { class: "list", id: "leaderboard" },
          h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating"))),
          h("tbody", {}, board.rows.map((row) => h("tr", {},
            h("td", {}, row.rank),
            h("td", {}, h("a", { href: `#/l/${encodeURIComponent(league)}/p/${encodeURIComponent(row.player)}` }, row.player)),
            h("th", {}, row.rating.toFixed(1)))))),
        pages.element);
    } catch (error) {
      fill(body, h("p", { class: "error", role: "alert" }, `No league ${league}: ${explain(error)}`));
    }
  }
  await load();
  return () => stop.abort();
}

/** The rating history as a line plot: mu and the displayed rating (mu - 3 sigma). */
export function ratingPlot(player: PlayerInfo): SVGSVGElement {
  return linePlot(
    [
      { name: "μ", values: player.history.map((p) => p.mu) },
      { name: "rating, μ − 3σ", values: player.history.map((p) => p.mu - 3 * p.sigma) },
    ],
    `rating history of ${player.player}: ${player.history.length} rated matches`,
  );
}

/** A player's page into `root`. */
export async function playerPage(root: HTMLElement, league: string, name: string): Promise<() => void> {
  const back = h("a", { href: `#/l/${encodeURIComponent(league)}`, class: "back" }, `← League ${league}`);
  try {
    const player = await client.leagues.getPlayer({ league, player: name, matches: 20 });
    if (!player.games && !player.rank && !player.matches.length) {
      // the server answers any name with a blank profile: say there is nothing, not a rating
      fill(root, back, h("h1", {}, name),
        h("p", { class: "error", role: "alert", id: "no-player" }, `No rated match of “${name}” in league ${league} this season (names are account names, as on the leaderboard).`));
      return () => undefined;
    }
    fill(root, back,
      h("h1", {}, player.player),
      h("p", { class: "meta", id: "player-meta" },
        `Rating ${player.rating.toFixed(1)} (μ ${player.mu.toFixed(1)}, σ ${player.sigma.toFixed(2)}) · ${player.games} rated matches`,
        player.rank ? ` · rank ${player.rank}` : " · not on the board", player.provisional ? " · provisional" : ""),
      h("section", { class: "panel" }, h("h2", {}, "Rating history"), ratingPlot(player),
),
      h("section", { class: "panel" }, h("h2", {}, "Recent matches"),
        listTable({ id: "player-matches" }, ["Match", "Players", "Result", ""],
          player.matches.map((m) => h("tr", {},
            h("td", {}, String(m.match)),
            h("td", {}, m.players.join(" – ")),
            h("td", {}, m.state === MatchState.SETTLED ? `${m.detail || m.scores.join(" : ")} (${RESULT_REASONS[m.ending] ?? ""})` : "playing"),
            h("td", {}, m.tableId ? h("a", { class: "button", href: m.state === MatchState.SETTLED ? `#/r/${m.tableId}` : `#/t/${m.tableId}?watch` },
              m.state === MatchState.SETTLED ? "Replay" : "Watch") : null))))));
  } catch (error) {
    fill(root, back, h("p", { class: "error", role: "alert" }, `No player ${name}: ${explain(error)}`));
  }
  return () => undefined;
}
