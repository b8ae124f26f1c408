// An app outside the repository: test_thirdparty.py copies this file into a temporary folder
// where @kafana/client was installed from its packed tarball as docs/clients.md says, so it
// imports the package and nothing else (no lib.mjs, no Connect package by name).
//
// It registers an account (its key on the transport), creates in one call a Tablić table with
// hints and a server-played bot (`greedy`) in seat 1, plays seat 0 to the end of the match, asks
// the engine for a hint (Analyze) before every move of its own, checks that the hint names legal
// moves, and plays the engine's choice; the bot answers from the server. A spectator's feed
// (KafanaClient.events) runs alongside. Halfway it prints "HALFWAY <seq>" once the feed has
// every event so far, and waits for "GO" on stdin: meanwhile the driver SIGKILLs the server.
// After GO every call is retried while isRetryable() says so (no server, then a new one on the
// same ports and Redis); the feed must resume by itself and deliver every event exactly once.
// The last line printed is one JSON object of figures; exit status 1 names a failed check.
// Usage: node outside.mjs grpc|connect|grpcweb|connect-fetch|grpcweb-fetch URL (the gRPC port
// for grpc, the --http port for the others)
import { createInterface } from "node:readline";
import {
  EventKind,
  Game,
  KafanaClient,
  ResultReason,
  apiKeyInterceptor,
  asSeat,
  isRetryable,
  refusal,
  stringify,
} from "@kafana/client";
import * as node from "@kafana/client/node";
import * as web from "@kafana/client/web";

const HALFWAY = 15; // own moves before the server is killed (a match is 48 a seat at least)
const BUDGET_MILLIS = 20; // the engine's CPU for each hint
const RETRY_LIMIT_MILLIS = 45_000;

const [protocol, url] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));

function check(condition, message) {
  if (!condition) {
    console.error(`FAILED (${protocol}): ${message}`);
    process.exit(1);
  }
}

/** A Node app's transports (gRPC on HTTP/2; Connect, gRPC-Web on HTTP/1.1), or a page's (fetch). */
const TRANSPORTS = {
  grpc: node.grpcTransport,
  connect: node.connectTransport,
  grpcweb: node.grpcWebTransport,
  "connect-fetch": web.connectTransport,
  "grpcweb-fetch": web.grpcWebTransport,
};

function transportOf(options) {
  const make = TRANSPORTS[protocol];
  check(make !== undefined, `usage: node outside.mjs ${Object.keys(TRANSPORTS).join("|")} URL, not ${protocol}`);
  return make(url, options);
}

let retries = 0;
const retried = {}; // "<code> <reason>" of each failed call retried: how many times
/**
 * `call()`, again while it fails in a way waiting can fix: after 100 ms, or the server's
 * RetryInfo delay up to 250 ms (QUOTA_EXCEEDED analysis_per_caller says 1 s, the longest an
 * analysis may run; ours take about 100 ms).
 */
async function retrying(what, call) {
  const since = Date.now();
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const why = refusal(error);
      check(isRetryable(error), `${what}: ${why.code} ${why.reasonName} ${why.message}`);
      check(Date.now() - since < RETRY_LIMIT_MILLIS, `${what}: still failing after 45 s: ${why.message}`);
      retries += 1;
      const key = `${why.code} ${why.reasonName} ${why.metadata.quota ?? ""}`.trim();
      retried[key] = (retried[key] ?? 0) + 1;
      await sleep(Math.min(why.retryAfterMillis ?? 100, 250));
    }
  }
}

async function main() {
  const started = Date.now();
  const anonymous = new KafanaClient(transportOf({}));
  const name = `outside-${protocol}-${Math.floor(Math.random() * 1e9)}`;
  const { key } = await retrying("Register", () => anonymous.accounts.register({ name }));
  const client = new KafanaClient(transportOf({ interceptors: [apiKeyInterceptor(key)] }));
  const table = await retrying("CreateTable", () =>
    client.createTable({
      name: `outside ${protocol}`,
      hints: true,
      bots: [{ seat: 1, bot: "greedy" }],
      rules: { game: Game.TABLIC, players: 2, variant: { case: "tablic", value: { target: 40 } } },
    }),
  );
  check(table.info?.seats[1]?.bot === "greedy", `seat 1 is not the server's greedy bot: ${stringify(table.info)}`);
  const seats = [await retrying("JoinTable", () => client.join(table.tableId, "north"))];
  check(seats[0].seat === 0, `joined seat ${seats[0].seat}, not 0`);

  const events = [];
  const reconnects = [];
  const feed = (async () => {
    const options = { onReconnect: (why, after) => reconnects.push({ code: why.code, after }) };
    for await (const event of client.events(table.tableId, options)) events.push(event);
  })();
  const feedHas = async (seq) => {
    const until = Date.now() + 20_000;
    while ((events.at(-1)?.seq ?? 0n) < seq) {
      check(Date.now() < until, `the feed has ${events.length} events after 20 s, wanted ${seq}`);
      await sleep(10);
    }
  };

  let current = (await retrying("GetState", () => client.state(table.tableId))).currentSeat;
  let moves = 0;
  let lastSeq = 0n;
  let result;
  let killedAt;
  let goAt; // when the server was gone (killed before GO)
  let backAt; // the end of the first move played after a failed call
  let retriesAtGo;
  const methods = {};
  const botTurnUntil = async () => {
    // The bot (seat 1) plays from the server: wait for our turn or the end.
    const until = Date.now() + RETRY_LIMIT_MILLIS;
    for (;;) {
      const state = await retrying("GetState", () => client.state(table.tableId));
      if (state.result?.reason) return state;
      if (state.currentSeat === 0) return state;
      check(Date.now() < until, "the server's bot did not move for 45 s");
      await sleep(20);
    }
  };
  while (result === undefined) {
    if (current === 1) {
      const state = await botTurnUntil();
      if (state.result?.reason) {
        result = state.result;
        break;
      }
      current = state.currentSeat;
    }
    check(current === 0, `seat ${current} to move after ${moves} moves`);
    const seat = seats[current];
    const legal = await retrying("GetLegalMoves", () => seat.legalMoves());
    check(legal.moves.length > 0, `seat ${current} to move has no legal move`);
    const texts = new Set(legal.moves.map((m) => m.text));
    const hint = await retrying("Analyze", () =>
      client.kafana.analyze({ tableId: table.tableId, budgetMillis: BUDGET_MILLIS }, asSeat(seat.token)),
    );
    check(hint.seq === legal.seq && hint.seat === current, `a hint for seq ${hint.seq} seat ${hint.seat}`);
    check(texts.has(hint.best?.text), `the hint's choice ${hint.best?.text} is not legal: ${[...texts]}`);
    check(hint.moves.length === texts.size && hint.moves.every((m) => texts.has(m.move?.text)), "a hint values other moves");
    methods[hint.method] = (methods[hint.method] ?? 0) + 1;
    const moveId = `${protocol}-${moves}`;
    const answer = await retrying("PlayMove", () => seat.play(hint.best, legal.seq, { clientMoveId: moveId }));
    check(answer.event?.kind === EventKind.MOVE && answer.event.move?.text === hint.best.text, `played ${answer.event?.move?.text}`);
    moves += 1;
    lastSeq = answer.event.seq;
    current = answer.event.currentSeat;
    if (answer.event.matchOver) result = answer.result;
    if (result === undefined && current === 1) {
      const state = await botTurnUntil();
      lastSeq = state.seq;
      if (state.result?.reason) result = state.result;
      else current = state.currentSeat;
    }
    if (moves === HALFWAY) {
      await feedHas(lastSeq);
      console.log(`HALFWAY ${lastSeq}`);
      const go = await lines.next();
      check(go.value === "GO", `the driver said ${JSON.stringify(go.value)}, not GO`);
      killedAt = lastSeq;
      goAt = Date.now();
      retriesAtGo = retries;
    }
    if (goAt !== undefined && backAt === undefined && retries > retriesAtGo) backAt = Date.now();
  }
  check(killedAt !== undefined, `the match ended after ${moves} moves, before the kill`);
  check(result.reason === ResultReason.SCORE && Math.max(...result.scores) >= 40, `result ${stringify(result)}`);

  await feed; // it ends OK once the match is over
  events.forEach((event, i) => check(event.seq === BigInt(i + 1), `feed event ${i} has seq ${event.seq}`));
  check(events.at(-1).matchOver, `the feed ends at ${events.at(-1).seq}, not at the match's end`);
  const moveEvents = events.filter((e) => e.kind === EventKind.MOVE);
  const ours = moveEvents.filter((e) => e.seat === 0).length;
  const bots = moveEvents.filter((e) => e.seat === 1).length;
  check(ours === moves, `the feed has ${ours} moves of seat 0, ${moves} were played`);
  check(bots >= moves - 1 && bots <= moves + 1, `the bot played ${bots} moves to our ${moves}`);
  check(reconnects.length >= 1 && reconnects[0].after === killedAt, `reconnects ${stringify(reconnects)}, killed at ${killedAt}`);
  check(backAt !== undefined, "no call failed while the server was down");
  console.log(
    stringify({
      ok: true,
      protocol,
      moves,
      botMoves: bots,
      events: events.length,
      hints: Object.values(methods).reduce((a, b) => a + b, 0),
      methods,
      killedAt,
      reconnects: reconnects.length,
      firstReconnect: reconnects[0].code,
      retries,
      retried,
      downMillis: backAt - goAt,
      scores: result.scores,
      millis: Date.now() - started,
    }),
  );
  process.exit(0);
}

main().catch((error) => {
  const why = refusal(error);
  console.error(`FAILED (${protocol}): ${why.code} ${why.reasonName} ${why.message}\n${error?.stack ?? ""}`);
  process.exit(1);
});
