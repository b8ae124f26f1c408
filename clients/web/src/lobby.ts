/**
 * The lobby: tables of both games (ListTables, a page at a time, filtered by game and status
 * on the server), a form that creates a table (game, preset, switches, seats, clock) and one
 * that starts a match against a built-in bot (one CreateTable with `bots`).
 */
import { fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import {
  Game,
  RulesSpecSchema,
  TableStatus,
  TimeoutPolicy,
  type GameOffer,
  type ServerInfo,
  type TableInfo,
} from "@kafana/client";
import {
  PRESET_NAMES,
  STATUS_NAMES,
  client,
  explain,
  gameName,
  playerName,
  seatNames,
  setApiKey,
  setPlayerName,
  storeSeat,
  storedApiKey,
  storedSeat,
} from "./api.js";
import { fill, h } from "./dom.js";
import { pagedList } from "./pager.js";
import { partnershipsSwitch } from "./partnerships.js";

const PAGE_SIZE = 20;

let info: ServerInfo | undefined;

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
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
    [String(TableStatus.OPEN), "open: seats free"],
    [String(TableStatus.PLAYING), "live"],
    [String(TableStatus.FINISHED), "finished"],
    ["0", "any"],
  ], String(TableStatus.OPEN));
  const pages = pagedList(list, status, async (token) => {
    const page = await client.kafana.listTables({
      game: Number(gameFilter.value) as Game,
      status: Number(statusFilter.value) as TableStatus,
      pageSize: PAGE_SIZE,
      pageToken: token,
    });
    return [page.tables, page.nextPageToken];
  }, (tables) => tables.length ? tableRows(tables) : emptyList(Number(statusFilter.value) as TableStatus),
  [["prev-page", "← Newer"], ["next-page", "Older →"]]);
  const load = pages.load;
  /** Nothing in this status: say so, and offer the live tables when none is open. */
  function emptyList(wanted: TableStatus): HTMLElement {
    const named = STATUS_NAMES[wanted];
    return h("p", { class: "empty" }, named ? `No ${named} tables.` : "No tables yet.",
      wanted === TableStatus.OPEN ? [" ", h("button", { type: "button", id: "show-live", onclick: () => {
        statusFilter.value = String(TableStatus.PLAYING);
        restart();
      } }, "Show live tables")] : null);
  }
  const restart = () => {
    pages.reset();
    void load();
  };
  gameFilter.addEventListener("change", restart);
  statusFilter.addEventListener("change", restart);

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
      h("label", { for: "api-key" }, "API key "), keyInput,
      info?.selfRegister ? registerBox(nameInput, keyInput) : null),
    status,
    h("div", { class: "columns" },
      h("section", { class: "panel" },
        h("h2", {}, "Tables"),
        h("div", { class: "filters" }, h("label", { for: "filter-game" }, "Game "), gameFilter, h("label", { for: "filter-status" }, "Status "), statusFilter,
          h("button", { type: "button", onclick: restart }, "Refresh")),
        list,
        pages.element),
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

/** Self-registration (when the server allows it: `ServerInfo.self_register`): Register makes a
 * player account of the name typed above and its API key, kept in this browser and shown once. */
function registerBox(nameInput: HTMLInputElement, keyInput: HTMLInputElement): HTMLElement {
  const said = h("p", { id: "register-status", class: "hint", role: "status" });
  const button = h("button", { type: "button", id: "register" }, "Get an API key");
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const made = await client.accounts.register({ name: nameInput.value.trim() });
      setApiKey(made.key);
      keyInput.value = made.key;
      keyInput.type = "text"; // shown once: readable, to be copied
      fill(said, `Account ${made.account?.name ?? ""} made. Its key is kept in this browser and sent with every call; copy it from the box above to use it elsewhere: it is shown only now.`);
    } catch (error) {
      fill(said, `No account: ${explain(error)}`);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });
  return h("div", { class: "register" }, button, said);
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
    body.appendChild(
      h("tr", { "data-table": table.tableId },
        h("td", { class: "name" }, table.name || table.tableId),
        h("td", { class: "game" }, gameName(table.rules)),
        h("td", { class: "state" }, STATUS_NAMES[table.status] ?? ""),
        h("td", { class: "players" }, names.join(", ")),
        h("td", { class: "actions" }, actions)),
    );
  }
  // a phone's row stacks (name, game and status, seats, actions): no sideways scroll to the actions
  return h("table", { class: "list stack" },
    h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", {}, "Game"), h("th", {}, "Status"), h("th", {}, "Seats"), h("th", {}, ""))),
    body);
}

function offer(game: Game): GameOffer | undefined {
  return info?.games.find((g) => g.game === game);
}

function createForm(status: HTMLElement): HTMLElement {
  const game = select("new-game", [[String(Game.TABLIC), "Tablić"], [String(Game.TAC), "Tač"]]);
  const players = h("select", { id: "new-players", "aria-label": "players" });
  const preset = h("select", { id: "new-preset" });
  const switches = h("fieldset", { class: "switches" });
  const clock = h("input", { id: "new-clock", type: "number", min: 0, max: 3600, value: 60 });
  const name = h("input", { id: "new-name", maxlength: 40, placeholder: "optional" });
  const sit = h("input", { id: "new-sit", type: "checkbox", checked: true });
  const partners = partnershipsSwitch("new-partnerships");
  const syncPartners = () => partners.sync(Number(game.value) as Game, Number(players.value));
  players.addEventListener("change", syncPartners);
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
    syncPartners();
  }
  game.addEventListener("change", refresh);
  refresh();

  const submit = h("button", { type: "submit", id: "create-table" }, "Create table");
  async function create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true; // pending until the table is made (or refused)
    submit.setAttribute("aria-busy", "true");
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
        partnerships: partners.on(),
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
    } finally {
      submit.disabled = false;
      submit.removeAttribute("aria-busy");
    }
  }
  return h("form", { class: "panel", id: "create-form", onsubmit: (e: SubmitEvent) => void create(e) },
    h("h2", {}, "New table"),
    h("div", { class: "row" }, h("label", { for: "new-game" }, "Game "), game, " ", players),
    partners.element,
    h("div", { class: "row" }, h("label", { for: "new-preset" }, "Preset "), preset),
    h("div", { class: "row" }, h("label", { for: "new-clock" }, "Seconds per move (0: none) "), clock),
    h("div", { class: "row" }, h("label", { for: "new-name" }, "Name "), name),
    h("div", { class: "row" }, sit, " ", h("label", { for: "new-sit" }, "Take the first seat")),
    h("details", {}, h("summary", {}, "Rules switches"), switches),
    submit);
}

/** The bots the server offers for `game` (ServerInfo.bots, strongest last). */
function botsFor(game: Game): [string, string][] {
  const offered = (info?.bots ?? []).filter((b) => b.game === game);
  return offered.map((b, i) => [b.name, `${i + 1}: ${b.name}${b.summary ? ` (${b.summary})` : ""}`]);
}

/** "Play a bot": one CreateTable with the chosen built-in bot in every seat but the first (the
 * server plays them), then this browser takes seat 1. Either game, at any number of players the
 * server offers (GameOffer.players); four Tablić players may be 2 against 2 (the person's partner
 * a bot too); hints on if asked (the Hint button). No event is made. */
function botForm(status: HTMLElement): HTMLElement {
  const game = select("bot-game", [[String(Game.TABLIC), "Tablić"], [String(Game.TAC), "Tač"]]);
  const level = h("select", { id: "bot-level" });
  const players = h("select", { id: "bot-players" });
  const partners = partnershipsSwitch("bot-partnerships");
  const syncPartners = () => partners.sync(Number(game.value) as Game, Number(players.value));
  players.addEventListener("change", syncPartners);
  const target = h("input", { id: "bot-target", type: "number", min: 1, max: 10000, value: 101 });
  const targetRow = h("div", { class: "row" }, h("label", { for: "bot-target" }, "Points to win "), target);
  const clock = h("input", { id: "bot-clock", type: "number", min: 0, max: 3600, value: 60 });
  const hints = h("input", { id: "bot-hints", type: "checkbox", checked: true });
  const button = h("button", { type: "submit", id: "play-bot" }, "Play");

  function refresh(): void {
    const chosen = Number(game.value) as Game;
    const bots = botsFor(chosen);
    fill(level, bots.map(([v, t]) => h("option", { value: v, selected: v === "greedy" }, t)));
    fill(players, (offer(chosen)?.players ?? [2]).map((n) => h("option", { value: n }, `${n} players`)));
    syncPartners();
    targetRow.hidden = chosen !== Game.TABLIC;
    hints.disabled = chosen !== Game.TABLIC; // Analyze values Tablić positions
  }
  game.addEventListener("change", refresh);
  refresh();

  async function start(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    status.textContent = "Starting a match against the bot…";
    try {
      const tac = Number(game.value) === Game.TAC;
      const seconds = Number(clock.value) || 0;
      const seats = Number(players.value) || 2;
      const made = await client.createTable({
        rules: fromJson(RulesSpecSchema, tac
          ? { game: Game.TAC, players: seats, tac: seats > 4 ? { decks: 2 } : {} } // 8 players: two decks
          : { game: Game.TABLIC, players: seats, partnerships: partners.on(), tablic: { target: Number(target.value) || 101 } }),
        name: `${playerName()} vs ${level.value}${seats > 2 ? ` ×${seats - 1}` : ""}`.slice(0, 80),
        clock: seconds ? { moveMillis: seconds * 1000, policy: TimeoutPolicy.DEFAULT_MOVE } : undefined,
        hints: !tac && hints.checked,
        bots: Array.from({ length: seats - 1 }, (_, i) => ({ seat: i + 1, bot: level.value })),
      });
      localStorage.setItem(`kafana.admin.${made.tableId}`, made.adminToken);
      const seat = await client.join(made.tableId, playerName(), 0);
      storeSeat(made.tableId, { seat: seat.seat, token: seat.token, name: playerName() });
      status.textContent = "";
      location.hash = `#/t/${made.tableId}`;
    } catch (error) {
      status.textContent = `Could not start: ${explain(error)}`;
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  }
  return h("form", { class: "panel", id: "bot-form", onsubmit: (e: SubmitEvent) => void start(e) },
    h("h2", {}, "Play a bot"),
    h("div", { class: "row" }, h("label", { for: "bot-game" }, "Game "), game),
    h("div", { class: "row" }, h("label", { for: "bot-players" }, "Players "), players,
      h("small", { class: "hint" }, " you and bots in the other seats")),
    partners.element,
    h("div", { class: "row" }, h("label", { for: "bot-level" }, "Bot "), level),
    targetRow,
    h("div", { class: "row" }, h("label", { for: "bot-clock" }, "Seconds per move (0: none) "), clock),
    h("div", { class: "row" }, hints, " ", h("label", { for: "bot-hints" }, "Hints (the engine's advice, Tablić)")),
    button);
}
