/**
 * JSON for what the API returns. `seq`, `last_seq` and the other uint64 fields are bigint, which
 * JSON.stringify refuses ("Do not know how to serialize a BigInt"). Two ways out:
 * - a message: `toJson(EventSchema, event)` / `toJsonString(...)` (protobuf-es, re-exported
 *   here) give the proto3 JSON mapping (uint64 as decimal strings, enums by name), which
 *   `fromJson` / `fromJsonString` read back into the message;
 * - any value holding bigints (a log line, your own state): `stringify(value)`, or
 *   `JSON.stringify(value, jsonReplacer)`, writes each bigint as its decimal string.
 */
export { create, fromJson, fromJsonString, toJson, toJsonString } from "@bufbuild/protobuf";

/** A JSON.stringify replacer that writes a bigint as its decimal string ("42"). */
export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** JSON.stringify that writes bigints as decimal strings (`space` as JSON.stringify's). */
export function stringify(value: unknown, space?: number | string): string {
  return JSON.stringify(value, jsonReplacer, space);
}
