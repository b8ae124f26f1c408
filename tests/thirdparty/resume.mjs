// A feed followed across a server restart. The script plays a few moves, follows the table's
// feed, prints "WATCHING <seq>" and waits; the driver (test_thirdparty.py) then stops the server
// (SIGTERM), the script prints "STOPPED ..." when the stream ends, the driver writes "DOWN" on
// its stdin once the server has exited, the script prints "REFUSED <code>" after a call failed,
// and the driver starts another server on the same ports and Redis. The stream must end
// UNAVAILABLE (reason SERVER_STOPPING), never OK, and the feed resumed with after_seq must go on
// with the next seq: nothing lost, nothing twice.
// Usage: node resume.mjs PROTOCOL URL
import { EventKind } from "@kafana/client/gen/kafana/v1/events_pb";
import { Game } from "@kafana/client/gen/kafana/v1/rules_pb";
import { createInterface } from "node:readline";
import { asAdmin, asSeat, Code, check, checkContiguous, collect, commandLine, decode, done, kafanaClient, run } from "./lib.mjs";

const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next event of a WatchEvents iterator (heartbeats skipped); undefined once it ends OK. */
async function nextEvent(stream) {
  for (;;) {
    const { done: over, value } = await stream.next();
    if (over) return undefined;
    if (value.item.case === "event") return value.item.value;
  }
}

/** Play `count` moves: each seat to move trails or captures with its first legal move. */
async function playSome(kafana, tableId, tokens, count, tag) {
  let seq;
  for (let i = 0; i < count; i++) {
    const state = await kafana.getState({ tableId });
    const seat = state.currentSeat;
    const legal = await kafana.getLegalMoves({ tableId }, asSeat(tokens[seat]));
    const answer = await kafana.playMove(
      { tableId, move: legal.moves[0], clientMoveId: `${tag}-${i}`, lastSeq: legal.seq },
      asSeat(tokens[seat]),
    );
    seq = answer.event.seq;
  }
  return seq;
}

run(async () => {
  const { protocol, url } = commandLine();
  const kafana = kafanaClient(protocol, url);
  const created = await kafana.createTable({ config: { seed: "77", rules: { game: Game.TABLIC, players: 2 } } });
  const tableId = created.tableId;
  const tokens = [];
  for (const name of ["lea", "mile"]) tokens.push((await kafana.joinTable({ tableId, name })).seatToken);
  const before = await playSome(kafana, tableId, tokens, 4, "before");

  const stream = kafana.watchEvents({ tableId, afterSeq: 0n })[Symbol.asyncIterator]();
  const seen = [];
  while (seen.at(-1)?.seq !== before) {
    const event = await nextEvent(stream);
    check(event !== undefined, "the feed ended OK before the match was over");
    seen.push(event);
  }
  console.log(`WATCHING ${before}`);

  // The driver stops the server now.
  let ended;
  try {
    const event = await nextEvent(stream);
    check(event === undefined, `an event while nothing was played: ${event?.seq}`);
    ended = { code: Code.Ok };
  } catch (error) {
    ended = decode(error);
  }
  check(ended.code !== Code.Ok, "the feed ended OK when the server stopped, mid-match");
  check(ended.code === Code.Unavailable, `the feed ended ${ended.codeName}, not Unavailable: ${ended.message}`);
  check(ended.info?.reason === "SERVER_STOPPING", `the feed's end has reason ${ended.info?.reason}, not SERVER_STOPPING`);

  // The driver says "DOWN" once the old server has exited: a call fails now (with a gRPC client
  // UNAVAILABLE; fetch() says only that it failed). Then it starts the new one.
  console.log(`STOPPED ${ended.codeName} ${ended.info?.reason}`);
  const line = await input.next();
  check(line.value === "DOWN", `the driver said ${JSON.stringify(line.value)}, not DOWN`);
  let down;
  try {
    await kafana.getTable({ tableId }, { timeoutMs: 2000 });
  } catch (error) {
    down = decode(error);
  }
  check(down !== undefined, "a call succeeded while no server ran");
  check(protocol !== "grpc" || down.code === Code.Unavailable, `a gRPC call without a server: ${down.codeName}`);
  console.log(`REFUSED ${down.codeName}`);
  const refusedAt = Date.now();
  let attempts = 0;
  for (;;) {
    attempts += 1;
    try {
      await kafana.getTable({ tableId }, { timeoutMs: 2000 });
      break;
    } catch (error) {
      check(Date.now() - refusedAt < 45_000, `no server back after 45 s: ${decode(error).message}`);
      await sleep(100);
    }
  }
  const downtime = Date.now() - refusedAt;

  // Resume after the last seq seen, play on, and end the match: the feed then ends OK.
  const resumed = collect(kafana, tableId, { afterSeq: seen.at(-1).seq });
  const after = await playSome(kafana, tableId, tokens, 4, "after");
  await kafana.closeTable({ tableId }, asAdmin(created.adminToken));
  const rest = await resumed;
  check(rest.end === "ok", `the resumed feed ended ${JSON.stringify(rest.end)}`);
  checkContiguous(rest.events, before + 1n, "resumed feed");
  check(rest.events.filter((e) => e.kind === EventKind.MOVE).at(-1).seq === after, "the moves after the restart are not in the feed");
  check(rest.events.at(-1).kind === EventKind.CLOSED && rest.events.at(-1).matchOver, "the last event is not the close");
  done({
    protocol,
    before: Number(before),
    resumedFrom: Number(seen.at(-1).seq) + 1,
    events: rest.events.length,
    streamEnd: `${ended.codeName} ${ended.info?.reason}`,
    whileDown: `${down.codeName} ${down.info?.reason ?? ""}`.trim(),
    attempts,
    downtimeMillis: downtime,
  });
});
