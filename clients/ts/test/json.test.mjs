// JSON for messages with uint64 (bigint) fields: JSON.stringify refuses a bigint; the package's
// stringify / jsonReplacer and the re-exported protobuf-es toJson / fromJson do not.
// Run: npm test (node --test, after the build).
import assert from "node:assert/strict";
import { test } from "node:test";
import { EventSchema, create, fromJsonString, jsonReplacer, newMoveId, stringify, toJson, toJsonString } from "../dist/index.js";

const event = create(EventSchema, { seq: 18446744073709551615n, currentSeat: 1, matchOver: true });

test("an event with a uint64 seq: JSON.stringify refuses it, stringify writes the digits", () => {
  assert.throws(() => JSON.stringify(event), TypeError);
  const plain = JSON.parse(stringify({ event, at: 3n }));
  assert.equal(plain.event.seq, "18446744073709551615");
  assert.equal(plain.at, "3");
  assert.equal(JSON.stringify({ seq: 5n }, jsonReplacer), '{"seq":"5"}');
});

test("toJson gives the proto3 JSON mapping, which fromJson reads back exactly", () => {
  assert.deepEqual(toJson(EventSchema, event), { seq: "18446744073709551615", currentSeat: 1, matchOver: true });
  const back = fromJsonString(EventSchema, toJsonString(EventSchema, event));
  assert.equal(back.seq, 18446744073709551615n);
  assert.equal(back.matchOver, true);
});

test("newMoveId: a fresh id of 1..64 characters each time, even without crypto.randomUUID", () => {
  const ids = new Set([newMoveId(), newMoveId()]);
  const randomUUID = crypto.randomUUID;
  try {
    crypto.randomUUID = undefined; // a page on plain http
    ids.add(newMoveId());
  } finally {
    crypto.randomUUID = randomUUID;
  }
  assert.equal(ids.size, 3);
  for (const id of ids) assert.ok(id.length >= 1 && id.length <= 64, id);
});
