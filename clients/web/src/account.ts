/**
 * The account page (#/me): who the API key this browser keeps belongs to (WhoAmI), its games
 * (the account's notices kept by the server, WatchAccount from the first one: each table it
 * was seated at and how the game ended) and its ratings (GetPlayer in every league ListLeagues
 * gives). All on the public API; without a key there is no account to show.
 */
import { NoticeKind, Role, type LeagueInfo, type PlayerInfo, type Result, type TableInfo } from "@kafana/client";
import { GAME_NAMES, RESULT_REASONS, client, explain, renumbered, seatNames, sideNamesOf, storedApiKey } from "./api.js";
import { fill, h, listTable } from "./dom.js";

/** Leagues looked at, at most (4 pages of ListLeagues). */
const MAX_LEAGUES = 200;
/** GetPlayer calls in flight at once. */
const AT_ONCE = 4;
/** Games shown, newest first. */
const MAX_GAMES = 20;
/** The notices kept are sent at once: a stream quiet this long has sent them all. */
const QUIET_MS = 1200;
const ROLES: Record<number, string> = { [Role.PLAYER]: "player", [Role.BOT]: "bot", [Role.ORGANISER]: "organiser", [Role.OPERATOR]: "operator" };

/** One game of the account's, from its notices. */
interface Game {
  tableId: string;
  seat: number;
  timeMs: number;
  result?: Result;
}

/** The account's games from its kept notices (SEATED, GAME_OVER), newest first. */
async function gamesOf(signal: AbortSignal): Promise<Game[]> {
  const games = new Map<string, Game>();
  const quiet = new AbortController();
  signal.addEventListener("abort", () => quiet.abort());
  let timer = setTimeout(() => quiet.abort(), QUIET_MS * 3);
  try {
    for await (const item of client.kafana.watchAccount({ after: "0-0" }, { signal: quiet.signal })) {
      if (item.item.case === "heartbeat") break;
      const notice = item.item.value;
      if (notice?.tableId && (notice.kind === NoticeKind.SEATED || notice.kind === NoticeKind.GAME_OVER)) {
        const game = games.get(notice.tableId) ?? { tableId: notice.tableId, seat: notice.seat, timeMs: Number(notice.timeMs) };
        if (notice.kind === NoticeKind.GAME_OVER) game.result = notice.result;
        games.set(notice.tableId, game);
      }
      clearTimeout(timer);
      timer = setTimeout(() => quiet.abort(), QUIET_MS);
    }
  } catch (error) {
    if (!quiet.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    quiet.abort();
  }
  return [...games.values()].sort((a, b) => b.timeMs - a.timeMs).slice(0, MAX_GAMES);
}

/** Every league (bounded), then the account's standing in each one it has played. */
async function ratingsOf(name: string): Promise<{ league: LeagueInfo; player: PlayerInfo }[]> {
  const leagues: LeagueInfo[] = [];
  let token = "";
  do {
    const page = await client.leagues.listLeagues({ pageSize: 50, pageToken: token });
    leagues.push(...page.leagues);
    token = page.nextPageToken;
  } while (token && leagues.length < MAX_LEAGUES);
  const found: { league: LeagueInfo; player: PlayerInfo }[] = [];
  let next = 0;
  const worker = async () => { // a few calls at a time: the server's rate limit is shared
    while (next < leagues.length) {
      const league = leagues[next++]!;
      const player = await client.leagues.getPlayer({ league: league.league, player: name, matches: 1 });
      if (player.games > 0) found.push({ league, player });
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return found.sort((a, b) => a.league.league.localeCompare(b.league.league));
}

function gameRow(game: Game, info: TableInfo | undefined): HTMLElement {
  const names = seatNames(info);
  const result = game.result;
  let outcome = "playing";
  if (result) {
    const won = result.winnerSide !== undefined && info?.seats.find((s) => s.seat === game.seat)?.side === result.winnerSide;
    const lost = result.winnerSide !== undefined && !won;
    const detail = renumbered(result.detail, names, sideNamesOf(info));
    outcome = `${won ? "won" : lost ? "lost" : "no winner"}: ${detail} (${RESULT_REASONS[result.reason] ?? ""})`;
  }
  return h("tr", { "data-table": game.tableId },
    h("td", {}, new Date(game.timeMs).toLocaleString()),
    h("td", {}, info ? GAME_NAMES[info.rules?.game ?? 0] ?? "" : "?"),
    h("td", {}, info ? names.map((n, seat) => (seat === game.seat ? `${n} (you)` : n)).join(" – ") : "(expired)"),
    h("td", { class: "outcome" }, outcome),
    h("td", {}, h("a", { class: "button", href: result ? `#/r/${game.tableId}` : `#/t/${game.tableId}` }, result ? "Replay" : "Open")));
}

/** The account page into `root`. */
export async function accountPage(root: HTMLElement): Promise<() => void> {
  const stop = new AbortController();
  const back = h("a", { href: "#/", class: "back" }, "← Lobby");
  if (!storedApiKey()) {
    fill(root, back, h("h1", {}, "Your account"),
      h("p", { class: "empty", id: "no-account" }, "This browser has no API key: type one in the lobby (API key), or get one there where the server allows it. The account's games and ratings show here."));
    return () => undefined;
  }
  let me;
  try {
    me = await client.accounts.whoAmI({});
  } catch (error) {
    fill(root, back, h("h1", {}, "Your account"), h("p", { class: "error", role: "alert" }, `The API key this browser keeps is refused: ${explain(error)}`));
    return () => undefined;
  }
  const games = h("div", { class: "tables", id: "account-games" }, h("p", { class: "status", role: "status" }, "Reading your games…"));
  const ratings = h("div", { class: "tables", id: "account-ratings" }, h("p", { class: "status", role: "status" }, "Reading your ratings…"));
  fill(root, back, h("h1", {}, me.name),
    h("p", { class: "meta", id: "account-meta" }, `${ROLES[me.role] ?? "account"} · since ${new Date(Number(me.createdMs)).toLocaleDateString()}`),
    h("section", { class: "panel" }, h("h2", {}, "Ratings"), ratings),
    h("section", { class: "panel" }, h("h2", {}, "Recent games"), games));
  const name = me.name;
  void ratingsOf(name).then((rows) => fill(ratings, rows.length
    ? listTable({}, ["League", "Game", "Rating", "Rank", "Matches"],
        rows.map(({ league, player }) => h("tr", {},
          h("td", {}, h("a", { href: `#/l/${encodeURIComponent(league.league)}/p/${encodeURIComponent(name)}` }, league.league)),
          h("td", {}, GAME_NAMES[league.spec?.game || 1] ?? ""),
          h("th", {}, `${player.rating.toFixed(1)}${player.provisional ? " (provisional)" : ""}`),
          h("td", {}, player.rank || "–"),
          h("td", {}, player.games))))
    : h("p", { class: "empty" }, "No rated league match yet.")),
  (error: unknown) => fill(ratings, h("p", { class: "error", role: "alert" }, explain(error))));
  void gamesOf(stop.signal).then(async (found) => {
    const infos = await Promise.all(found.map((g) => client.kafana.getTable({ tableId: g.tableId }).catch(() => undefined)));
    if (stop.signal.aborted) return;
    fill(games, found.length
      ? listTable({}, ["When", "Game", "Players", "Result", ""], found.map((g, i) => gameRow(g, infos[i])))
      : h("p", { class: "empty" }, "No game in the last day (the server keeps an account's news for a day)."));
  }, (error: unknown) => {
    if (!stop.signal.aborted) fill(games, h("p", { class: "error", role: "alert" }, explain(error)));
  });
  return () => stop.abort();
}
