/**
 * The lobby: tables of both games (ListTables, a page at a time, by game and status), a form
 * that creates a table (game, preset, switches, seats, clock) and one that starts a match
 * against a built-in bot. The API seats built-in bots only in hosted events, so "play a bot"
 * is a two-entrant round-robin event (CreateEvent, EnterEvent twice, StartEvent, WatchEntry).
 */
import { fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import {
  EventFormat,
  Game,
  RulesSpecSchema,
  TableStatus,
  TimeoutPolicy,
  type GameOffer,
  type ServerInfo,
  type TableInfo,
} from "@kafana/client";
import {
  GAME_NAMES,
  PRESET_NAMES,
  STATUS_NAMES,
  client,
  explain,
  freshId,
  playerName,
  seatNames,
  setApiKey,
  setPlayerName,
  storeSeat,
  storedApiKey,
  storedSeat,
} from "./api.js";
import { fill, h } from "./dom.js";

/** Built-in Tablić bots, weakest first (kafana_bots.registry). */
export const BOT_LEVELS: readonly [string, string][] = [
  ["random", "1: random"],
  ["greedy", "2: greedy"],
  ["heuristic", "3: heuristic"],
  ["ismcts", "4: search (ismcts)"],
];
const PAGE_SIZE = 20;

let info: ServerInfo | undefined;

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** A name the server accepts for an event entrant (no spaces or braces). */
function entrantName(name: string): string {
  return (name.replace(/[\s{}]+/g, "_").slice(0, 60) || "guest");
}

const REFRESH_MS = 5000;

/** The lobby page into `root` (its table list refreshed every few seconds); the answer stops
 * the refreshing. */
export async function lobbyPage(root: HTMLElement): Promise<() => void> {
  const status = h("p", { class: "status", role: "status" });
  const list = h("div", { class: "tables", "aria-live": "polite" });
  const nameInput = h("input", { id: "player-name", value: playerName(), maxlength: 40 });
  nameInput.addEventListener("change", () => setPlayerName(nameInput.value.trim() || "guest"));
  const keyInput = h("input", { id: "api-key", type: "password", value: storedApiKey(), placeholder: "only if the server asks" });
  keyInput.addEventListener("change", () => setApiKey(keyInput.value.trim()));
  const gameFilter = select("filter-game", [["0", "any game"], [String(Game.TABLIC), "Tablić"], [String(Game.TAC), "Tač"]]);
  const statusFilter = select("filter-status", [
    ["0", "open and live"],
    [String(TableStatus.OPEN), "open"],
    [String(TableStatus.PLAYING), "live"],
    [String(TableStatus.FINISHED), "finished"],
  ]);
  const pages: string[] = [""];
  let next = "";
  const prevButton = h("button", { type: "button", id: "prev-page" }, "← Newer");
  const nextButton = h("button", { type: "button", id: "next-page" }, "Older →");

  async function load(): Promise<void> {
    const token = pages[pages.length - 1];
    const wanted = Number(statusFilter.value) as TableStatus;
    try {
      const page = await client.kafana.listTables({
        game: Number(gameFilter.value) as Game,
        status: wanted,
        pageSize: PAGE_SIZE,
        pageToken: token,
      });
      next = page.nextPageToken;
      const shown = wanted ? page.tables : page.tables.filter((t) => t.status !== TableStatus.FINISHED);
      fill(list, shown.length ? tableRows(shown) : h("p", { class: "empty" }, "No tables here yet."));
      prevButton.disabled = pages.length <= 1;
      nextButton.disabled = next === "";
      status.textContent = "";
    } catch (error) {
      status.textContent = explain(error);
    }
  }
  const restart = () => {
    pages.length = 1;
    void load();
  };
  gameFilter.addEventListener("change", restart);
  statusFilter.addEventListener("change", restart);
  prevButton.addEventListener("click", () => {
    if (pages.length > 1) pages.pop();
    void load();
  });
  nextButton.addEventListener("click", () => {
    if (next) pages.push(next);
    void load();
  });

  try {
    info ??= await client.serverInfo();
  } catch (error) {
    status.textContent = explain(error);
  }
  fill(
    root,
    h("h1", {}, "Kafana"),
    h("p", { class: "server" }, info ? `Server ${info.version}, ${info.api}` : ""),
    h("section", { class: "panel who" },
      h("label", { for: "player-name" }, "Your name "), nameInput, " ",
      h("label", { for: "api-key" }, "API key "), keyInput),
    status,
    h("div", { class: "columns" },
      h("section", { class: "panel" },
        h("h2", {}, "Tables"),
        h("div", { class: "filters" }, h("label", {}, "Game ", gameFilter), h("label", {}, "Status ", statusFilter),
          h("button", { type: "button", onclick: restart }, "Refresh")),
        list,
        h("div", { class: "pager" }, prevButton, nextButton)),
      h("div", {},
        botForm(status),
        createForm(status))),
  );
  await load();
  const timer = setInterval(() => {
    if (!document.hidden && !list.contains(document.activeElement)) void load();
  }, REFRESH_MS);
  return () => clearInterval(timer);
}

function select(id: string, options: [string, string][], value?: string): HTMLSelectElement {
  const element = h("select", { id });
  for (const [v, text] of options) element.appendChild(h("option", { value: v, selected: v === value }, text));
  return element;
}

function tableRows(tables: TableInfo[]): HTMLElement {
  const body = h("tbody");
  for (const table of tables) {
    const names = seatNames(table);
    const free = table.seats.filter((s) => !s.taken).length;
    const mine = storedSeat(table.tableId);
    const actions: HTMLElement[] = [];
    if (mine && table.status !== TableStatus.FINISHED) {
      actions.push(h("a", { href: `#/t/${table.tableId}`, class: "button" }, "Play"));
    } else if (table.status === TableStatus.OPEN && free > 0) {
      actions.push(h("a", { href: `#/t/${table.tableId}`, class: "button" }, "Take a seat"));
    }
    if (table.status === TableStatus.FINISHED) {
      actions.push(h("a", { href: `#/r/${table.tableId}`, class: "button" }, "Replay"));
    } else {
      actions.push(h("a", { href: `#/t/${table.tableId}?watch`, class: "button watch" }, "Watch"));
    }
    const rules = table.rules;
    const preset = rules?.variant.case === "tablic" ? PRESET_NAMES[rules.variant.value.preset] ?? "" : "";
    body.appendChild(
      h("tr", { "data-table": table.tableId },
        h("td", {}, table.name || table.tableId),
        h("td", {}, GAME_NAMES[rules?.game ?? 0] ?? "?", preset ? ` (${preset})` : ""),
        h("td", {}, STATUS_NAMES[table.status] ?? ""),
        h("td", {}, names.join(", ")),
        h("td", { class: "actions" }, actions)),
    );
  }
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", {}, "Game"), h("th", {}, "Status"), h("th", {}, "Seats"), h("th", {}, ""))),
    body);
}

function offer(game: Game): GameOffer | undefined {
  return info?.games.find((g) => g.game === game);
}

function createForm(status: HTMLElement): HTMLElement {
  const game = select("new-game", [[String(Game.TABLIC), "Tablić"], [String(Game.TAC), "Tač"]]);
  const players = h("select", { id: "new-players" });
  const preset = h("select", { id: "new-preset" });
  const switches = h("fieldset", { class: "switches" });
  const clock = h("input", { id: "new-clock", type: "number", min: 0, max: 3600, value: 60 });
  const name = h("input", { id: "new-name", maxlength: 40, placeholder: "optional" });
  const sit = h("input", { id: "new-sit", type: "checkbox", checked: true });
  const fields: { name: string; type: string; input: HTMLInputElement }[] = [];

  function refresh(): void {
    const chosen = offer(Number(game.value) as Game);
    fill(players, (chosen?.players ?? [2]).map((n) => h("option", { value: n }, `${n} players`)));
    fill(preset, (chosen?.presets ?? []).map((p) => {
      const value = p.variant.case === "tablic" ? p.variant.value.preset : 0;
      return h("option", { value }, PRESET_NAMES[value] ?? "default");
    }));
    preset.disabled = Number(game.value) !== Game.TABLIC;
    fields.length = 0;
    const defaults = chosen?.defaults ? (toJson(RulesSpecSchema, chosen.defaults) as JsonObject) : {};
    const branch = (defaults[Number(game.value) === Game.TAC ? "tac" : "tablic"] ?? {}) as JsonObject;
    const rows: HTMLElement[] = [h("legend", {}, "Switches")];
    for (const sw of chosen?.switches ?? []) {
      if (sw.type !== "bool" && sw.type !== "uint32") continue;
      const id = `switch-${sw.name}`;
      const current = branch[camel(sw.name)];
      const input = sw.type === "bool"
        ? h("input", { id, type: "checkbox", checked: current === true })
        : h("input", { id, type: "number", min: 0, value: current === undefined ? "" : String(current) });
      fields.push({ name: sw.name, type: sw.type, input });
      rows.push(h("div", { class: "switch" }, input, " ", h("label", { for: id, title: sw.description }, sw.name.replace(/_/g, " ")),
        h("small", {}, " ", sw.description)));
    }
    fill(switches, rows);
  }
  game.addEventListener("change", refresh);
  refresh();

  async function create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const tac = Number(game.value) === Game.TAC;
    const branch: JsonObject = {};
    if (!tac) branch.preset = Number(preset.value);
    for (const field of fields) {
      if (field.type === "bool") branch[field.name] = field.input.checked;
      else if (field.input.value !== "") branch[field.name] = Number(field.input.value);
    }
    try {
      const rules = fromJson(RulesSpecSchema, {
        game: Number(game.value),
        players: Number(players.value),
        [tac ? "tac" : "tablic"]: branch,
      });
      const seconds = Number(clock.value) || 0;
      const made = await client.createTable({
        rules,
        name: name.value.trim(),
        clock: seconds ? { moveMillis: seconds * 1000, policy: TimeoutPolicy.DEFAULT_MOVE } : undefined,
      });
      localStorage.setItem(`kafana.admin.${made.tableId}`, made.adminToken);
      if (sit.checked) {
        const seat = await client.join(made.tableId, playerName());
        storeSeat(made.tableId, { seat: seat.seat, token: seat.token, name: playerName() });
      }
      location.hash = `#/t/${made.tableId}`;
    } catch (error) {
      status.textContent = `Could not create the table: ${explain(error)}`;
    }
  }
  return h("form", { class: "panel", id: "create-form", onsubmit: (e: SubmitEvent) => void create(e) },
    h("h2", {}, "New table"),
    h("div", { class: "row" }, h("label", { for: "new-game" }, "Game "), game, " ", players),
    h("div", { class: "row" }, h("label", { for: "new-preset" }, "Preset "), preset),
    h("div", { class: "row" }, h("label", { for: "new-clock" }, "Seconds per move (0: none) "), clock),
    h("div", { class: "row" }, h("label", { for: "new-name" }, "Name "), name),
    h("div", { class: "row" }, sit, " ", h("label", { for: "new-sit" }, "Take the first seat")),
    h("details", {}, h("summary", {}, "Rules switches"), switches),
    h("button", { type: "submit", id: "create-table" }, "Create table"));
}

function botForm(status: HTMLElement): HTMLElement {
  const level = select("bot-level", BOT_LEVELS.map(([v, t]) => [v, t]), "greedy");
  const target = h("input", { id: "bot-target", type: "number", min: 1, max: 10000, value: 101 });
  const clock = h("input", { id: "bot-clock", type: "number", min: 0, max: 3600, value: 60 });
  const button = h("button", { type: "submit", id: "play-bot" }, "Play");

  async function start(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    button.disabled = true;
    status.textContent = "Starting a match against the bot…";
    try {
      const me = entrantName(playerName());
      const bot = `${level.value}-bot`;
      const made = await client.competitions.createEvent({
        name: `web-${me}-vs-${level.value}-${freshId().slice(0, 6)}`,
        format: EventFormat.ROUND_ROBIN,
        target: Number(target.value) || 0,
        policy: {
          moveMs: (Number(clock.value) || 0) * 1000,
          disconnectGraceMs: 120_000,
          illegalLimit: 1000,
        },
      });
      const organiser = { headers: { "kafana-organiser-token": made.organiserToken } };
      const entry = await client.competitions.enterEvent({ eventId: made.eventId, name: me === bot ? `${me}-1` : me });
      await client.competitions.enterEvent({ eventId: made.eventId, name: bot, bot: level.value });
      await client.competitions.startEvent({ eventId: made.eventId }, organiser);
      const stop = new AbortController();
      const updates = client.competitions.watchEntry(
        { eventId: made.eventId },
        { headers: { "kafana-entry-token": entry.entryToken }, signal: stop.signal },
      );
      for await (const update of updates) {
        const game = update.assignment;
        if (game && game.tableId) {
          storeSeat(game.tableId, { seat: game.seat, token: game.seatToken, name: entry.name });
          stop.abort();
          location.hash = `#/t/${game.tableId}`;
          return;
        }
        if (update.eventOver) break;
      }
      status.textContent = "The event ended before a table was made.";
    } catch (error) {
      if (!location.hash.startsWith("#/t/")) status.textContent = `Could not start: ${explain(error)}`;
    } finally {
      button.disabled = false;
    }
  }
  return h("form", { class: "panel", id: "bot-form", onsubmit: (e: SubmitEvent) => void start(e) },
    h("h2", {}, "Play a bot (Tablić)"),
    h("div", { class: "row" }, h("label", { for: "bot-level" }, "Level "), level),
    h("div", { class: "row" }, h("label", { for: "bot-target" }, "Points to win "), target),
    h("div", { class: "row" }, h("label", { for: "bot-clock" }, "Seconds per move (0: none) "), clock),
    button);
}
