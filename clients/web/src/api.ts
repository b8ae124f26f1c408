/**
 * The one way this app reaches the server: the public kafana.v1 API through @kafana/client
 * (clients/ts: generated protobuf-es code and Connect), Connect's JSON over fetch on the page's
 * own origin (`kafana serve --http`). Seat and entry tokens stay in this browser's storage.
 */
import type { DescEnum } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import {
  AUTHORIZATION_HEADER,
  EventReason,
  EventReasonSchema,
  Game,
  KafanaClient,
  ResultReason,
  ResultReasonSchema,
  SeatClient,
  TableStatus,
  TableStatusSchema,
  TablicPresetSchema,
  refusal,
  type RulesSpec,
  type TableInfo,
} from "@kafana/client";
import { connectTransport } from "@kafana/client/web";

const KEY_ITEM = "kafana.apiKey";

/** Sends the API key this browser was given (lobby, "API key"), when there is one. */
const apiKey: Interceptor = (next) => async (request) => {
  const key = localStorage.getItem(KEY_ITEM);
  if (key) request.header.set(AUTHORIZATION_HEADER, `Bearer ${key}`);
  return next(request);
};

/** The client of the server that served this page. */
export const client = new KafanaClient(
  connectTransport(location.origin, { json: true, interceptors: [apiKey] }),
);

/** The API key sent with every call ("" for none). */
export function storedApiKey(): string {
  return localStorage.getItem(KEY_ITEM) ?? "";
}

/** Set (or clear, with "") the API key. */
export function setApiKey(key: string): void {
  if (key) localStorage.setItem(KEY_ITEM, key);
  else localStorage.removeItem(KEY_ITEM);
}

/** A seat this browser took: kept per table so that a reload plays on. */
export interface StoredSeat {
  seat: number;
  token: string;
  name: string;
}

const SEAT_KEY = "kafana.seat.";

/** The seat this browser holds at `tableId`, if any. */
export function storedSeat(tableId: string): StoredSeat | undefined {
  const text = localStorage.getItem(SEAT_KEY + tableId);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as StoredSeat;
  } catch {
    return undefined;
  }
}

/** Remember a seat taken at `tableId`. */
export function storeSeat(tableId: string, seat: StoredSeat): void {
  localStorage.setItem(SEAT_KEY + tableId, JSON.stringify(seat));
}

/** A SeatClient for a stored seat. */
export function seatClient(tableId: string, seat: StoredSeat): SeatClient {
  return new SeatClient(client.kafana, tableId, seat.seat, seat.token, undefined);
}

/** The player's name, remembered between visits. */
export function playerName(): string {
  return localStorage.getItem("kafana.name") || "guest";
}

/** Remember the player's name. */
export function setPlayerName(name: string): void {
  localStorage.setItem("kafana.name", name);
}

/** A random id (client_move_id): works without a secure context too, unlike randomUUID. */
export function freshId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A refusal as people read it: "ILLEGAL_MOVE: 7H cannot take 5C" (the server's own words). */
export function explain(error: unknown): string {
  const why = refusal(error);
  return why.reasonName ? `${why.reasonName}: ${why.message}` : why.message || String(error);
}

/** The server's reason name alone ("ILLEGAL_MOVE"), or "". */
export function reasonOf(error: unknown): string {
  return refusal(error).reasonName;
}

/**
 * Each value of an enum the API names, in words for people, as the Python SDK's `convert.word`
 * says them: WILD_JACK is "wild jack" ("Wild jack" with `capital`), UNSPECIFIED left out. `own`
 * words the values whose name says too little; a value the API adds is named without a change here.
 */
export function enumWords(schema: DescEnum, own: Record<number, string> = {}, capital = false): Record<number, string> {
  const words: Record<number, string> = {};
  for (const { number, localName } of schema.values) {
    if (number === 0) continue;
    const text = localName.toLowerCase().replace(/_/g, " ");
    words[number] = own[number] ?? (capital ? text.charAt(0).toUpperCase() + text.slice(1) : text);
  }
  return words;
}

export const GAME_NAMES: Record<number, string> = { [Game.TABLIC]: "Tablić", [Game.TAC]: "Tač" };
export const STATUS_NAMES = enumWords(TableStatusSchema, { [TableStatus.PLAYING]: "live" });
export const PRESET_NAMES = enumWords(TablicPresetSchema, {}, true);

/** A game and its preset: "Tablić (Serbian)", "Tač". */
export function gameName(rules: RulesSpec | undefined): string {
  const preset = rules?.variant.case === "tablic" ? PRESET_NAMES[rules.variant.value.preset] : undefined;
  return `${GAME_NAMES[rules?.game ?? 0] ?? "?"}${preset ? ` (${preset})` : ""}`;
}

/** A game's rules in a line: "Tablić (Serbian) · 4 players · 2 against 2 · to 101". */
export function gameLine(rules: RulesSpec | undefined): string {
  if (!rules) return "";
  const tablic = rules.variant.case === "tablic" ? rules.variant.value : undefined;
  return [
    gameName(rules),
    rules.players ? counted(rules.players, "player") : "",
    rules.partnerships ? "2 against 2" : "",
    tablic?.target ? `to ${tablic.target}` : "",
  ].filter(Boolean).join(" · ");
}
export const EVENT_REASONS = enumWords(EventReasonSchema, {
  [EventReason.TIMEOUT]: "timed out: the server played for the seat",
  [EventReason.TIMEOUTS]: "timed out too often",
  [EventReason.DISCONNECT]: "disconnected",
  [EventReason.NO_SHOW]: "did not show up",
  [EventReason.ILLEGAL_MOVE]: "too many illegal moves",
  [EventReason.ADMIN]: "closed by the table's admin",
});
export const RESULT_REASONS = enumWords(ResultReasonSchema, {
  [ResultReason.SCORE]: "on points",
  [ResultReason.OUT]: "played out",
  [ResultReason.FORFEIT]: "by forfeit",
});

/** The name at each seat ("seat 2" while free). */
export function seatNames(info: TableInfo | undefined): string[] {
  const players = info?.rules?.players ?? info?.seats.length ?? 0;
  const names: string[] = [];
  for (let seat = 0; seat < players; seat++) {
    const found = info?.seats.find((s) => s.seat === seat);
    names.push(found?.taken && found.name ? found.name : `seat ${seat + 1}`);
  }
  return names;
}

/**
 * The server's result detail ("side 1 won 31-28", "seat 0 forfeited (left)": 0-based numbers)
 * in the page's one numbering: names where there are names, else 1-based ("Mira", "seat 2").
 */
export function renumbered(detail: string, seats: readonly string[], sides: readonly string[]): string {
  return detail.replace(/\b(seat|side) (\d+)\b/g, (_all, kind: string, number: string) => {
    const n = Number(number);
    const name = kind === "seat" ? seats[n] : sides[n];
    return name ?? `${kind} ${n + 1}`;
  });
}

/** Names of each side ("Ana & Ivo" with partnerships). */
export function sideNamesOf(info: TableInfo | undefined): string[] {
  const sides: string[][] = [];
  seatNames(info).forEach((name, seat) => (sides[sideOf(info, seat)] ??= []).push(name));
  return sides.map((s) => s.join(" & "));
}

/** The side of each seat (partnerships: seats 0 and 2 are side 0). */
export function sideOf(info: TableInfo | undefined, seat: number): number {
  return info?.seats.find((s) => s.seat === seat)?.side ?? seat;
}

/** A count with its word: "1 tabla", "3 tablas", "0 points" (`many`: the plural, if not +s). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A clock reading: "1:05" from 65000 ms. */
export function clockText(millis: number): string {
  const seconds = Math.max(0, Math.ceil(millis / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
