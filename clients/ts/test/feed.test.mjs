// The client layer's feed and refusal decoding against an in-memory KafanaService (Connect's
// router transport): no server, no network. Run: npm test (node --test, after npm run build).
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import {
  ErrorInfoSchema,
  ErrorReason,
  EventSchema,
  KafanaClient,
  KafanaService,
  RetryInfoSchema,
  followAccount,
  followEvents,
  isRetryable,
  refusal,
} from "../dist/index.js";

const event = (seq, extra = {}) => ({ item: { case: "event", value: create(EventSchema, { seq: BigInt(seq), ...extra }) } });
const heartbeat = (seq) => ({ item: { case: "heartbeat", value: { timeMs: 0n, seq: BigInt(seq) } } });

function stopping() {
  const info = create(ErrorInfoSchema, { reason: "SERVER_STOPPING", domain: "kafana" });
  return new ConnectError("the server is stopping", Code.Unavailable, undefined, [{ desc: ErrorInfoSchema, value: info }]);
}

/** Wait `millis`, or less if the call is cancelled. */
function pause(millis, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, millis);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A KafanaService whose WatchEvents plays `scripts[k]` on the k-th call, recording after_seq. */
function fakeServer(scripts) {
  const calls = [];
  const transport = createRouterTransport(({ service }) => {
    service(KafanaService, {
      async *watchEvents(request, context) {
        calls.push({ afterSeq: request.afterSeq, seatToken: context.requestHeader.get("kafana-seat-token") });
        for (const step of scripts[calls.length - 1] ?? []) {
          if (step instanceof Error) throw step;
          if (typeof step === "number") await pause(step, context.signal);
          else yield step;
        }
      },
    });
  });
  return { client: new KafanaClient(transport), calls };
}

test("the feed skips heartbeats, resumes after UNAVAILABLE with after_seq, drops repeats, ends OK", async () => {
  const { client, calls } = fakeServer([
    [event(1), heartbeat(1), event(2), stopping()],
    [event(2), heartbeat(2), event(3), event(4, { matchOver: true })], // 2 again: sent before the break
  ]);
  const reasons = [];
  const seen = [];
  const feed = followEvents(client.kafana, "t1", {
    seatToken: "s3cret",
    retryMillis: 1,
    onReconnect: (why, after) => reasons.push([why.reasonName, after]),
  });
  for await (const e of feed) seen.push(e.seq);
  assert.deepEqual(seen, [1n, 2n, 3n, 4n]);
  assert.deepEqual(calls.map((c) => c.afterSeq), [0n, 2n]);
  assert.deepEqual(calls.map((c) => c.seatToken), ["s3cret", "s3cret"]);
  assert.deepEqual(reasons, [["SERVER_STOPPING", 2n]]);
});

test("the account feed resumes after the last notice id and skips heartbeats", async () => {
  const calls = [];
  const notice = (id) => ({ item: { case: "notice", value: { id, tableId: `t-${id}` } } });
  const scripts = [
    [notice("5-0"), heartbeat(0), notice("6-0"), stopping()],
    [notice("7-0")],
  ];
  const transport = createRouterTransport(({ service }) => {
    service(KafanaService, {
      async *watchAccount(request, context) {
        calls.push([request.after, context.requestHeader.get("authorization")]);
        for (const step of scripts[calls.length - 1]) {
          if (step instanceof Error) throw step;
          yield step;
        }
      },
    });
  });
  const client = new KafanaClient(transport);
  const seen = [];
  const headers = { authorization: "Bearer k1" };
  for await (const n of followAccount(client.kafana, { after: "4-0", headers, retryMillis: 1 })) seen.push(n.id);
  assert.deepEqual(seen, ["5-0", "6-0", "7-0"]);
  assert.deepEqual(calls, [["4-0", "Bearer k1"], ["6-0", "Bearer k1"]]);
});

test("a silent stream (no event, no heartbeat) is reconnected after idleMillis", async () => {
  const { client, calls } = fakeServer([[event(1), 10_000], [event(2, { matchOver: true })]]);
  const seen = [];
  const reasons = [];
  const options = { idleMillis: 50, retryMillis: 1, onReconnect: (why) => reasons.push(why.code) };
  for await (const e of followEvents(client.kafana, "t1", options)) seen.push(e.seq);
  assert.deepEqual(seen, [1n, 2n]);
  assert.deepEqual(calls.map((c) => c.afterSeq), [0n, 1n]);
  assert.deepEqual(reasons, [Code.Unavailable]);
});

test("a refusal with RetryInfo is resumed after its delay, unless the delay is past giveUpMillis", async () => {
  const quota = (seconds) => new ConnectError("too many streams", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "QUOTA_EXCEEDED", domain: "kafana" }) },
    { desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: { seconds: BigInt(seconds), nanos: 30_000_000 } }) },
  ]);
  const soon = fakeServer([[event(1), quota(0)], [event(2, { matchOver: true })]]);
  const seen = [];
  const started = Date.now();
  for await (const e of followEvents(soon.client.kafana, "t1", { retryMillis: 1 })) seen.push(e.seq);
  assert.deepEqual(seen, [1n, 2n]);
  assert.ok(Date.now() - started >= 30, "resumed before the RetryInfo delay");
  const late = fakeServer([[event(1), quota(7200)], [event(2, { matchOver: true })]]);
  await assert.rejects(
    async () => {
      for await (const _ of followEvents(late.client.kafana, "t1", { retryMillis: 1 })) continue;
    },
    (error) => refusal(error).reasonName === "QUOTA_EXCEEDED",
  );
  assert.equal(late.calls.length, 1);
});

test("a refusal that waiting cannot fix ends the feed with that error", async () => {
  const notFound = new ConnectError("no table t9", Code.NotFound, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "TABLE_NOT_FOUND", domain: "kafana" }) },
  ]);
  const { client } = fakeServer([[notFound]]);
  await assert.rejects(
    async () => {
      for await (const _ of followEvents(client.kafana, "t9", { retryMillis: 1 })) assert.fail("an event");
    },
    (error) => refusal(error).reason === ErrorReason.TABLE_NOT_FOUND,
  );
});

test("refusal() reads ErrorInfo and RetryInfo; isRetryable() knows a rate limit", () => {
  const limited = new ConnectError("slow down", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "RATE_LIMITED", domain: "kafana", metadata: { rate: "2" } }) },
    { desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: { seconds: 1n, nanos: 250_000_000 } }) },
  ]);
  // As a client receives it: the details in their wire form, decoded by refusal().
  const incoming = limited.details.map((d) => ({ type: d.desc.typeName, value: toBinary(d.desc, d.value) }));
  const wire = new ConnectError(limited.rawMessage, limited.code, undefined, incoming);
  for (const error of [limited, wire]) {
    const why = refusal(error);
    assert.equal(why.reason, ErrorReason.RATE_LIMITED);
    assert.equal(why.reasonName, "RATE_LIMITED");
    assert.deepEqual(why.metadata, { rate: "2" });
    assert.equal(why.retryAfterMillis, 1250);
    assert.ok(isRetryable(error));
  }
  const plain = refusal(new Error("boom"));
  assert.equal(plain.code, Code.Unknown);
  assert.equal(plain.reason, ErrorReason.ERROR_REASON_UNSPECIFIED);
  assert.equal(plain.retryAfterMillis, undefined);
  assert.ok(!isRetryable(new ConnectError("bad move", Code.InvalidArgument)));
  // A quota that frees up with time carries a RetryInfo: waiting helps; without one it does not.
  const quota = (retry) => new ConnectError("one analysis at a time", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "QUOTA_EXCEEDED", domain: "kafana" }) },
    ...(retry ? [{ desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: { seconds: 0n, nanos: 5_000_000 } }) }] : []),
  ]);
  assert.ok(isRetryable(quota(true)));
  assert.ok(!isRetryable(quota(false)));
  assert.ok(isRetryable(new ConnectError("fetch failed", Code.Unknown, undefined, undefined, new TypeError("fetch failed"))));
});

