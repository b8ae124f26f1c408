// The hand-written layer of @kafana/client (KafanaClient, SeatClient, followEvents, refusal)
// across a server restart, in the same handshake as resume.mjs: the seat's feed reconnects by
// itself (onReconnect tells why: UNAVAILABLE, SERVER_STOPPING) and resumes after the last seq;
// moves are retried with the same client_move_id until a server answers.
// Usage: node client.mjs PROTOCOL URL (PROTOCOL grpc: @kafana/client/node's gRPC transport;
// connect, grpcweb: @kafana/client/web's, on fetch)
import { createInterface } from "node:readline";
import { ErrorReason, Game, isRetryable, KafanaClient, refusal } from "@kafana/client";
import { grpcTransport } from "@kafana/client/node";
import { connectTransport, grpcWebTransport } from "@kafana/client/web";
import { Code, check, checkContiguous, commandLine, done, run } from "./lib.mjs";

const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `call()`, again every 100 ms while it fails in a way waiting can fix (at most 40 s). */
async function retrying(what, call) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      check(isRetryable(error), `${what}: ${Code[refusal(error).code]} ${refusal(error).message}`);
      check(attempt < 400, `${what}: no server after 40 s`);
      await sleep(100);
    }
  }
}

/** The seat to move plays its first legal move; the move is decided once and resent as it was. */
async function playOne(client, seats, tag) {
  const state = await retrying(`${tag} state`, () => client.state(seats[0].tableId));
  const seat = seats[state.currentSeat];
  const legal = await retrying(`${tag} legal moves`, () => seat.legalMoves());
  const move = legal.moves[0];
  return retrying(tag, () => seat.play(move, legal.seq, { clientMoveId: tag }));
}

run(async () => {
  const { protocol, url } = commandLine();
  const transport =
    protocol === "grpc" ? grpcTransport(url) : protocol === "connect" ? connectTransport(url) : grpcWebTransport(url);
  const client = new KafanaClient(transport);
  const table = await client.createTable({ seed: "99", rules: { game: Game.TABLIC, players: 2 } });
  const seats = [await client.join(table.tableId, "nada"), await client.join(table.tableId, "ognjen")];
  check(seats[1].seat === 1 && seats[1].token.length > 0, "JoinTable gave no token");
  for (let i = 0; i < 3; i++) await playOne(client, seats, `before-${i}`);

  const reconnects = [];
  let stopped;
  const stoppedSeen = new Promise((resolve) => (stopped = resolve));
  const events = [];
  const feed = (async () => {
    const options = { idleMillis: 20_000, onReconnect: (why, after) => { reconnects.push({ why, after }); stopped(why); } };
    for await (const event of seats[1].events(options)) events.push(event);
  })();
  const caughtUp = Date.now() + 20_000;
  while (events.at(-1)?.seq !== 5n) {
    check(Date.now() < caughtUp, `the seat's feed has ${events.length} events after 20 s, wanted 5`);
    await sleep(20); // two seats, three moves
  }
  check(events.filter((e) => e.deal).every((e) => e.deal.hand.length > 0), "the seat's feed hides its own cards");
  console.log("WATCHING 5");

  const why = await stoppedSeen;
  console.log(`STOPPED ${Code[why.code]} ${why.reasonName}`);
  check((await input.next()).value === "DOWN", "the driver did not say DOWN");
  let down;
  try {
    await client.serverInfo();
  } catch (error) {
    down = refusal(error);
  }
  check(down !== undefined, "a call succeeded while no server ran");
  console.log(`REFUSED ${Code[down.code]}`);

  for (let i = 0; i < 3; i++) await playOne(client, seats, `after-${i}`);
  await client.closeTable(table.tableId, table.adminToken);
  await feed; // the feed ends once the table is closed
  checkContiguous(events, 1, "the layer's feed");
  check(events.at(-1).matchOver, "the feed did not end with the match");
  check(reconnects[0].why.reason === ErrorReason.SERVER_STOPPING && reconnects[0].after === 5n, `first reconnect: ${JSON.stringify(reconnects[0], (_, v) => (typeof v === "bigint" ? `${v}` : v))}`);
  done({ protocol, events: events.length, reconnects: reconnects.length, firstReconnect: reconnects[0].why.reasonName });
});
