// The feed and isRetryable() when the server dies without a word (SIGKILL): a KafanaService on
// real loopback sockets (gRPC on HTTP/2, Connect and gRPC-Web on HTTP/1.1, connect-node's
// adapter) whose every connection is reset at once, then listens again on the same port. Each
// transport reports the crash in its own words (Canceled "http/2 stream closed", Aborted
// ECONNRESET, Unknown TypeError "terminated"): the feed must resume on each, exactly once.
// Run: npm test (node --test, after the build).
import assert from "node:assert/strict";
import http from "node:http";
import http2 from "node:http2";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { EventSchema, KafanaClient, KafanaService, followEvents, isConnectionLost, isRetryable, refusal } from "../dist/index.js";
import { connectTransport, grpcTransport, grpcWebTransport } from "../dist/node.js";
import * as web from "../dist/web.js";

/** A table whose events the test appends; WatchEvents sends those after after_seq, then waits. */
function table() {
  const events = [];
  const waiting = new Set();
  return {
    events,
    calls: [],
    append(seq, matchOver = false) {
      events.push(create(EventSchema, { seq: BigInt(seq), matchOver }));
      for (const wake of waiting) wake();
    },
    async *watch(request, context) {
      this.calls.push(request.afterSeq);
      let next = events.findIndex((e) => e.seq > request.afterSeq);
      if (next < 0) next = events.length;
      for (;;) {
        while (next < events.length) {
          const event = events[next++];
          yield { item: { case: "event", value: event } };
          if (event.matchOver) return;
        }
        await new Promise((resolve) => {
          waiting.add(resolve);
          context.signal.addEventListener("abort", resolve);
        }).finally(() => waiting.clear());
        if (context.signal.aborted) return;
      }
    },
  };
}

/** A server on `port` (0: a free one) speaking HTTP/2 (gRPC) or HTTP/1.1; `crash` resets all. */
async function listen(state, h2, port = 0) {
  const handler = connectNodeAdapter({
    routes: (router) => router.service(KafanaService, { watchEvents: (request, context) => state.watch(request, context) }),
  });
  const server = h2 ? http2.createServer(handler) : http.createServer(handler);
  const sockets = new Set();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    /** As a SIGKILL: every connection reset, nothing listening until `listen` again. */
    async crash() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    },
  };
}

const TRANSPORTS = {
  "gRPC (node, HTTP/2)": [true, (url) => grpcTransport(url)],
  "Connect (node, HTTP/1.1)": [false, (url) => connectTransport(url)],
  "gRPC-Web (node, HTTP/1.1)": [false, (url) => grpcWebTransport(url)],
  "Connect (fetch)": [false, (url) => web.connectTransport(url)],
  "gRPC-Web (fetch)": [false, (url) => web.grpcWebTransport(url)],
};

for (const [name, [h2, transportOf]] of Object.entries(TRANSPORTS)) {
  test(`${name}: the feed resumes after the server is killed mid-stream, every event once`, { timeout: 20_000 }, async () => {
    const state = table();
    for (const seq of [1, 2, 3]) state.append(seq);
    let server = await listen(state, h2);
    const client = new KafanaClient(transportOf(`http://127.0.0.1:${server.port}`));
    const reconnects = [];
    const seen = [];
    let sawThree;
    const three = new Promise((resolve) => (sawThree = resolve));
    const feed = (async () => {
      const options = { retryMillis: 20, maxRetryMillis: 50, onReconnect: (why, after) => reconnects.push({ why, after }) };
      for await (const event of followEvents(client.kafana, "t1", options)) {
        seen.push(event.seq);
        if (event.seq === 3n) sawThree();
      }
    })();
    await three;
    let rawGotThree;
    const rawReady = new Promise((resolve) => (rawGotThree = resolve));
    const raw = (async () => {
      try {
        for await (const _ of client.kafana.watchEvents({ tableId: "t1", afterSeq: 2n })) rawGotThree();
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    await rawReady;
    await server.crash();
    const broken = await raw; // the same crash, as a plain stream of the generated client sees it
    assert.ok(broken !== undefined, "a stream ended OK when its server was killed");
    assert.ok(isConnectionLost(broken), `not a lost connection: ${refusal(broken).code} ${refusal(broken).message}`);
    assert.ok(isRetryable(broken));
    for (const seq of [4, 5]) state.append(seq);
    await new Promise((resolve) => setTimeout(resolve, 150)); // reconnects find nobody listening
    server = await listen(state, h2, server.port);
    state.append(6, true);
    await feed;
    assert.deepEqual(seen, [1n, 2n, 3n, 4n, 5n, 6n]);
    assert.ok(reconnects.length >= 1, "no reconnect");
    assert.equal(reconnects[0].after, 3n);
    assert.deepEqual(state.calls.at(-1), 3n); // the last (successful) stream resumed after 3
    await server.crash();
  });
}

test("a feed the caller aborts (even before it starts) ends Canceled, not retryable", { timeout: 20_000 }, async () => {
  for (const [name, [h2, transportOf]] of Object.entries(TRANSPORTS)) {
    const state = table();
    const server = await listen(state, h2);
    const client = new KafanaClient(transportOf(`http://127.0.0.1:${server.port}`));
    const stop = new AbortController();
    stop.abort();
    await assert.rejects(
      async () => {
        for await (const _ of followEvents(client.kafana, "t1", { signal: stop.signal })) assert.fail("an event");
      },
      (error) => refusal(error).code === Code.Canceled && !isConnectionLost(error) && !isRetryable(error),
      name,
    );
    await server.crash();
  }
});
