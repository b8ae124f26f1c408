/**
 * The organiser's page (issue 32) on the public CompetitionsService: #/o creates an event
 * (CreateEvent: format, game, rules, clock and fault policy, the registration window: start
 * time, check-in, entry limits); the organiser token it hands out is kept in this browser, and
 * the event's page (#/e/ID) then shows the organiser's panel: add a built-in bot, start, pause
 * and resume with a note, adjudicate a game, withdraw or disqualify an entrant, end, and export
 * (GetEvent with records: every export file as a download). An operator's API key gets the
 * panel on every event (the server lets operators act on any). The formats are the API's own
 * (EventFormat's values in the generated code), so a format the server adds shows here too.
 */
import {
  EventFormat,
  EventFormatSchema,
  EventPhase,
  EventStatus,
  FaultAction,
  Game,
  GameStatus,
  Role,
  TablicPreset,
  type EventInfo,
  type ServerInfo,
} from "@kafana/client";
import type { CallOptions } from "@connectrpc/connect";
import { GAME_NAMES, PRESET_NAMES, client, enumWords, explain, storedApiKey } from "./api.js";
import { fill, h } from "./dom.js";
import { partnershipsSwitch } from "./partnerships.js";

const TOKEN_KEY = "kafana.organiser.";

/** The organiser token this browser keeps for `eventId` ("" for none). */
export function organiserToken(eventId: string): string {
  return localStorage.getItem(TOKEN_KEY + eventId) ?? "";
}

/** The organiser token when this browser keeps one; else nothing (an operator's API key, sent
 * with every call, acts on any event). */
function asOrganiser(eventId: string): CallOptions {
  const token = organiserToken(eventId);
  return token ? { headers: { "kafana-organiser-token": token } } : {};
}

/** For an organiser whose token this browser does not keep (the event made with the CLI or in
 * another browser): paste it, and the page shows the panel. */
export function tokenForm(eventId: string): HTMLElement {
  const input = h("input", { id: "organiser-token", type: "password", autocomplete: "off" });
  return h("details", { class: "panel", id: "organiser-token-form" }, h("summary", {}, "Organiser? Use your token here"),
    h("form", { onsubmit: (e: SubmitEvent) => {
      e.preventDefault();
      if (!input.value.trim()) return;
      localStorage.setItem(TOKEN_KEY + eventId, input.value.trim());
      window.dispatchEvent(new HashChangeEvent("hashchange")); // the page again, with the panel
    } }, h("label", { for: "organiser-token" }, "The event's organiser token "), input, " ", h("button", { type: "submit" }, "Use it"),
    h("p", { class: "hint" }, "Kept in this browser only; sent as kafana-organiser-token with the organiser's calls.")));
}

/** Whether this browser's API key is an operator's (who may act on any event). */
export async function isOperator(): Promise<boolean> {
  if (!storedApiKey()) return false;
  try {
    return (await client.accounts.whoAmI({})).role === Role.OPERATOR;
  } catch {
    return false;
  }
}

/** Each format the API names: [value, "round robin"]. */
function formats(): [string, string][] {
  return Object.entries(enumWords(EventFormatSchema));
}

function select(id: string, options: [string, string][], chosen = ""): HTMLSelectElement {
  return h("select", { id }, options.map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
}

/** A form's row: `control` with its label (and a hint after it); a row already made as is. */
function row(field: Field | HTMLElement): HTMLElement {
  if (field instanceof HTMLElement) return field;
  const [label, control, hint] = field;
  return h("div", { class: "row" }, h("label", { for: control.id }, label, " "), control, hint ? h("span", { class: "hint" }, " ", hint) : null);
}

/** A form's field: its label, its control (which has an id) and a hint. */
type Field = [label: string, control: HTMLElement, hint?: string];

/** The form's sections, each under a heading. */
function sections(parts: [heading: string, fields: (Field | HTMLElement)[]][]): HTMLElement[] {
  return parts.flatMap(([heading, fields]) => [h("h2", {}, heading), ...fields.map(row)]);
}

function number(id: string, value: number, max: number): HTMLInputElement {
  return h("input", { id, type: "number", min: 0, max, value });
}

/** Run `action` with `button` busy; its error (or `done`'s words) in `status`. */
async function busy(button: HTMLButtonElement, status: HTMLElement, action: () => Promise<string>): Promise<void> {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  status.textContent = "Working…";
  try {
    status.textContent = await action();
  } catch (error) {
    status.textContent = `Refused: ${explain(error)}`;
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** #/o: a new event. */
export async function organisePage(root: HTMLElement): Promise<() => void> {
  const status = h("p", { class: "status", role: "status", id: "organise-status" });
  const name = h("input", { id: "event-name", maxlength: 64, required: true, placeholder: "e.g. Sunday-cup" });
  const format = select("event-format", formats(), String(EventFormat.SWISS));
  const game = select("event-game", [[String(Game.TABLIC), GAME_NAMES[Game.TABLIC]!], [String(Game.TAC), GAME_NAMES[Game.TAC]!]]);
  const seats = select("event-seats", [["0", "2 (Tač: 4)"], ["2", "2"], ["3", "3"], ["4", "4"]]);
  // 2 against 2 (CreateEventRequest.partnerships): four Tablić seats a game only
  const partners = partnershipsSwitch("event-partnerships");
  const syncPartners = () => {
    const chosen = Number(game.value) as Game;
    partners.sync(chosen, Number(seats.value) || (chosen === Game.TAC ? 4 : 2)); // 0: the game's default
  };
  game.addEventListener("change", syncPartners);
  seats.addEventListener("change", syncPartners);
  syncPartners();
  const rounds = number("event-rounds", 0, 64);
  const preset = select("event-preset", Object.entries(PRESET_NAMES).map(([v, t]) => [v, t]), String(TablicPreset.SERBIAN));
  const target = number("event-target", 0, 10000);
  const clock = number("event-clock", 10, 3600);
  const timeouts = number("event-timeouts", 3, 100);
  const onTimeout = select("event-on-timeout", [
    [String(FaultAction.DEFAULT_MOVE), "the server plays a default move"],
    [String(FaultAction.FORFEIT_HAND), "the seat forfeits the hand"],
    [String(FaultAction.FORFEIT_MATCH), "the seat forfeits the match"],
  ]);
  const onDisconnect = select("event-on-disconnect", [
    [String(FaultAction.FORFEIT_MATCH), "the seat forfeits the match"],
    [String(FaultAction.FORFEIT_HAND), "the seat forfeits the hand"],
    [String(FaultAction.DEFAULT_MOVE), "the server plays a default move"],
  ]);
  const grace = number("event-grace", 5, 3600);
  const illegal = number("event-illegal", 3, 100);
  const noShow = number("event-no-show", 0, 3600);
  const startAt = h("input", { id: "event-start", type: "datetime-local" });
  const opensAt = h("input", { id: "event-opens", type: "datetime-local" });
  const closesAt = h("input", { id: "event-closes", type: "datetime-local" });
  const duration = h("input", { id: "event-duration", type: "number", min: 0.25, max: 1440, step: "any", value: 20 });
  const checkIn = number("event-check-in", 0, 1440);
  const maxEntrants = number("event-max", 0, 1024);
  const perAccount = number("event-per-account", 1, 1024);
  const submit = h("button", { type: "submit", id: "create-event" }, "Create the event");
  let info: ServerInfo | undefined;
  try {
    info = await client.kafana.getServerInfo({});
  } catch {
    // the form works without it: the formats and presets are the API's own
  }
  async function create(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    await busy(submit, status, async () => {
      const when = (input: HTMLInputElement) => (input.value ? String(new Date(input.value).getTime()) : "0");
      const arena = Number(format.value) === EventFormat.ARENA;
      const seconds = Number(clock.value) || 0;
      const made = await client.competitions.createEvent({
        name: name.value.trim(),
        format: Number(format.value) as EventFormat,
        game: Number(game.value) as Game,
        seatsPerGame: Number(seats.value),
        partnerships: partners.on(),
        rounds: Number(rounds.value) || 0,
        preset: Number(preset.value) as TablicPreset,
        target: Number(target.value) || 0,
        policy: {
          moveMs: seconds * 1000,
          onTimeout: Number(onTimeout.value) as FaultAction,
          timeoutsToForfeit: Number(timeouts.value) || 0,
          disconnectGraceMs: (Number(grace.value) || 0) * 1000,
          onDisconnect: Number(onDisconnect.value) as FaultAction,
          illegalLimit: Number(illegal.value) || 0,
          noShowMs: (Number(noShow.value) || 0) * 1000,
        },
        startAtMs: when(startAt),
        entriesOpenAtMs: when(opensAt),
        entriesCloseAtMs: when(closesAt),
        durationMs: arena ? Math.round((Number(duration.value) || 0) * 60_000) : 0,
        checkInMs: (Number(checkIn.value) || 0) * 60_000,
        maxEntrants: Number(maxEntrants.value) || 0,
        entriesPerAccount: Number(perAccount.value) || 0,
      });
      localStorage.setItem(TOKEN_KEY + made.eventId, made.organiserToken);
      location.hash = `#/e/${made.eventId}`;
      return "Created.";
    });
  }
  fill(root, h("a", { href: "#/e", class: "back" }, "← Events"), h("h1", {}, "Organise an event"),
    h("form", { class: "panel", id: "organise-form", onsubmit: (e: SubmitEvent) => void create(e) },
      sections([
        ["The event", [
          ["Name", name, "no spaces"],
          ["Format", format],
          ["Rounds (Swiss; 0: enough for the entrants)", rounds],
          ["Minutes (arena: it pairs players as they free up for this long)", duration],
          ["Game", game],
          ["Seats per game", seats],
          partners.element,
          ["Tablić preset", preset],
          ["Points to win (0: the preset's)", target],
        ]],
        ["Clock and faults", [
          ["Seconds per move (0: no clock)", clock],
          ["On a timeout", onTimeout],
          ["Timeouts that forfeit the match (0: never)", timeouts],
          ["Seconds the seat to move may go unseen (0: 5)", grace],
          ["Then", onDisconnect],
          ["Illegal moves that forfeit (0: 3)", illegal],
          ["Seconds to show up at a new table (0: not checked)", noShow],
        ]],
        ["Registration", [
          ["Starts by itself at (empty: when you press Start)", startAt],
          ["Entries open at (empty: at once)", opensAt],
          ["Entries close at (empty: at the start)", closesAt],
          ["Check-in: minutes before the start (0: none)", checkIn],
          ["Most entrants (0: 1024)", maxEntrants],
          ["Entries per account", perAccount],
        ]],
      ]),
      h("p", { class: "hint" }, "The organiser token is kept in this browser: the event's page then shows your controls.",
        info?.bots.length ? ` Built-in bots: ${info.bots.map((b) => `${b.name} (${GAME_NAMES[b.game] ?? ""})`).join(", ")}.` : ""),
      submit, status));
  return () => undefined;
}

/** The organiser's panel on an event's page: `update` it with each GetEvent. */
export function organiserPanel(eventId: string): { element: HTMLElement; update: (event: EventInfo) => void } {
  const status = h("p", { class: "status", role: "status", id: "organiser-status" });
  const note = h("input", { id: "organiser-note", maxlength: 200, placeholder: "shown with the status" });
  const botName = h("select", { id: "add-bot" });
  const add = h("button", { type: "button", id: "add-bot-button" }, "Add the bot");
  const start = h("button", { type: "button", id: "start-event" }, "Start now");
  const registration = h("button", { type: "button", id: "registration" }, "Close registration");
  const entries = h("p", { id: "entries-state" });
  const pause = h("button", { type: "button", id: "pause-event" }, "Pause");
  const resume = h("button", { type: "button", id: "resume-event" }, "Resume");
  const end = h("button", { type: "button", id: "end-event" }, "End the event");
  const gameChoice = h("select", { id: "adjudicate-game" });
  const winner = h("select", { id: "adjudicate-winner" });
  const adjudicate = h("button", { type: "button", id: "adjudicate" }, "Decide");
  const entrant = h("select", { id: "remove-entrant" });
  const disqualify = h("input", { type: "checkbox", id: "remove-disqualify" });
  const remove = h("button", { type: "button", id: "remove" }, "Take out");
  const exportButton = h("button", { type: "button", id: "export" }, "Export");
  const downloads = h("ul", { id: "exports" });
  let current: EventInfo | undefined;
  let games = "";
  let entrants = "";
  const counter = { bots: 0 };

  async function offerBots(tries: number): Promise<void> {
    try {
      const info = await client.kafana.getServerInfo({});
      fill(botName, info.bots.filter((b) => b.game === Game.TABLIC).map((b) => h("option", { value: b.name }, b.name)));
    } catch (error) {
      if (tries > 1) setTimeout(() => void offerBots(tries - 1), 1000);
      else status.textContent = `No list of bots: ${explain(error)}`;
    }
  }
  void offerBots(5);
  const calls = () => asOrganiser(eventId);
  add.addEventListener("click", () => void busy(add, status, async () => {
    const taken = new Set(current?.entrants.map((e) => e.name));
    let label = `${botName.value}-bot`;
    while (taken.has(label)) label = `${botName.value}-bot-${++counter.bots}`;
    await client.competitions.enterEvent({ eventId, name: label, bot: botName.value }, calls());
    return `${label} entered.`;
  }));
  start.addEventListener("click", () => void busy(start, status, async () => {
    await client.competitions.startEvent({ eventId }, calls());
    return "Started.";
  }));
  registration.addEventListener("click", () => void busy(registration, status, async () => {
    const open = !current?.entriesOpen;
    const event = await client.competitions.setRegistration({ eventId, open }, calls());
    update(event);
    return open ? "Registration open." : "Registration closed: no new entries until you open it again.";
  }));
  pause.addEventListener("click", () => void busy(pause, status, async () => {
    await client.competitions.pauseEvent({ eventId, note: note.value }, calls());
    return "Paused: no new game starts; games running finish.";
  }));
  resume.addEventListener("click", () => void busy(resume, status, async () => {
    await client.competitions.resumeEvent({ eventId, note: note.value }, calls());
    return "Resumed.";
  }));
  let armed = false; // ending takes a second press
  end.addEventListener("click", () => void busy(end, status, async () => {
    if (!armed) {
      armed = true;
      end.textContent = "Press again to end";
      return "Ending stops the games running; undecided ones are not played. Press again to end.";
    }
    armed = false;
    end.textContent = "End the event";
    await client.competitions.endEvent({ eventId, note: note.value }, calls());
    return "Ended.";
  }));
  adjudicate.addEventListener("click", () => void busy(adjudicate, status, async () => {
    if (!gameChoice.value) return "No game to decide.";
    const side = winner.value === "" ? undefined : Number(winner.value);
    await client.competitions.adjudicateGame({ eventId, gameId: gameChoice.value, winner: side, note: note.value }, calls());
    return `Game ${gameChoice.value} decided.`;
  }));
  remove.addEventListener("click", () => void busy(remove, status, async () => {
    if (!entrant.value) return "Nobody to take out.";
    if (current?.phase === EventPhase.OPEN) { // before the start: a withdrawal, nothing to disqualify from
      await client.competitions.withdrawEntry({ eventId, name: entrant.value }, calls());
      return `${entrant.value} withdrawn.`;
    }
    await client.competitions.removeEntrant({ eventId, name: entrant.value, disqualify: disqualify.checked, note: note.value }, calls());
    return `${entrant.value} ${disqualify.checked ? "disqualified" : "withdrawn"}.`;
  }));
  exportButton.addEventListener("click", () => void busy(exportButton, status, async () => {
    const full = await client.competitions.getEvent({ eventId, records: true });
    const files = Object.entries(full.exports).sort(([a], [b]) => a.localeCompare(b));
    if (full.recordsJsonl && !full.exports["records.jsonl"]) files.push(["records.jsonl", full.recordsJsonl]);
    fill(downloads, files.map(([file, text]) => h("li", {},
      h("a", { href: URL.createObjectURL(new Blob([text], { type: "text/plain" })), download: `${full.name}-${file}`, class: "button" }, file),
      ` ${text.length.toLocaleString()} bytes`)));
    return files.length ? `${files.length} files.` : "Nothing to export yet (the exports come once games are decided).";
  }));

  /** The winner choices of the chosen game: its seats (sides with partnerships), or a draw. */
  function winners(): void {
    const game = current?.rounds.flatMap((r) => r.games).find((g) => g.gameId === gameChoice.value);
    const sides = current?.partnerships ? [`${game?.seats[0]} & ${game?.seats[2]}`, `${game?.seats[1]} & ${game?.seats[3]}`] : game?.seats ?? [];
    fill(winner, sides.map((s, i) => h("option", { value: String(i) }, `${s} wins`)), h("option", { value: "" }, "a draw"));
  }
  gameChoice.addEventListener("change", winners);

  const element = h("section", { class: "panel organiser", id: "organiser", "aria-label": "organiser" },
    h("h2", {}, "Organiser"),
    h("div", { class: "row" }, h("label", { for: "organiser-note" }, "Note "), note),
    h("div", { class: "row" }, start, " ", pause, " ", resume, " ", end),
    h("div", { class: "row", id: "registration-row" }, entries, registration),
    h("div", { class: "row", id: "add-bot-row" }, h("label", { for: "add-bot" }, "Built-in bot "), botName, " ", add),
    h("div", { class: "row", id: "adjudicate-row" }, h("label", { for: "adjudicate-game" }, "Decide game "), gameChoice, " ",
      h("label", { for: "adjudicate-winner", class: "visually-hidden" }, "outcome"), winner, " ", adjudicate),
    h("div", { class: "row", id: "remove-row" }, h("label", { for: "remove-entrant" }, "Entrant "), entrant, " ",
      disqualify, h("label", { for: "remove-disqualify" }, " disqualify"), " ", remove),
    h("div", { class: "row" }, exportButton, downloads),
    status);

  function update(event: EventInfo): void {
    current = event;
    const open = event.phase === EventPhase.OPEN;
    const running = event.phase === EventPhase.STARTED;
    start.hidden = !open;
    (element.querySelector("#registration-row") as HTMLElement).hidden = !open;
    registration.textContent = event.entriesOpen ? "Close registration" : "Open registration";
    const closes = Number(event.entriesCloseAtMs);
    entries.textContent = event.entriesOpen
      ? `Taking entries (${event.entrants.length} of ${event.maxEntrants || 1024})${closes ? ` until ${new Date(closes).toLocaleString()}` : " until the start"}. `
      : "Not taking entries now. ";
    (element.querySelector("#add-bot-row") as HTMLElement).hidden = !open;
    pause.hidden = !running || event.status === EventStatus.PAUSED;
    resume.hidden = !running || event.status !== EventStatus.PAUSED;
    end.hidden = event.phase === EventPhase.FINISHED;
    const undecided = event.rounds.flatMap((r) => r.games).filter((g) => g.status === GameStatus.PLAYING || g.status === GameStatus.WAITING);
    const ids = undecided.map((g) => g.gameId).join();
    if (ids !== games) { // rebuilt only when the games change: a choice being made stays
      games = ids;
      const chosen = gameChoice.value;
      fill(gameChoice, undecided.map((g) => h("option", { value: g.gameId, selected: g.gameId === chosen }, `${g.gameId}: ${g.seats.join(" – ")}`)));
      winners();
    }
    (element.querySelector("#adjudicate-row") as HTMLElement).hidden = !running || undecided.length === 0;
    const names = event.entrants.map((e) => e.name).join();
    if (names !== entrants) {
      entrants = names;
      const chosen = entrant.value;
      fill(entrant, event.entrants.map((e) => h("option", { value: e.name, selected: e.name === chosen }, e.name)));
    }
    (element.querySelector("#remove-row") as HTMLElement).hidden = event.phase === EventPhase.FINISHED || event.entrants.length === 0;
  }
  return { element, update };
}
