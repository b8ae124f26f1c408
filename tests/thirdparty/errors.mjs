// Refusals as a third party sees them: a google.rpc.Status whose ErrorInfo (domain "kafana")
// names the reason, with the status code errors.proto gives it: an illegal move, a move out of
// turn, the PlayMove idempotency rules, a wrong token, an unknown table, a bad page token.
// Usage: node errors.mjs PROTOCOL URL
import { fromBinary } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { Game } from "@kafana/client/gen/kafana/v1/rules_pb";
import { TableStateSchema } from "@kafana/client/gen/kafana/v1/state_pb";
import { asSeat, Code, check, commandLine, done, expectRefusal, kafanaClient, run } from "./lib.mjs";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const DECK = RANKS.flatMap((rank) => ["C", "D", "H", "S"].map((suit) => rank + suit));

run(async () => {
  const started = Date.now();
  const { protocol, url } = commandLine();
  const kafana = kafanaClient(protocol, url);
  const { tableId } = await kafana.createTable({ config: { rules: { game: Game.TABLIC, players: 2 } } });
  const tokens = [];
  for (const name of ["ivo", "jana"]) tokens.push((await kafana.joinTable({ tableId, name })).seatToken);
  const state = await kafana.getState({ tableId }, asSeat(tokens[0]));
  const view = state.game.value;
  const seq = state.seq;
  const play = (token, move, clientMoveId, lastSeq = seq) =>
    kafana.playMove({ tableId, move, clientMoveId, lastSeq }, asSeat(token));
  const reasons = {};
  const note = (got) => {
    reasons[got.info.reason] = got.codeName;
    return got;
  };

  const foreign = DECK.find((card) => !view.hand.includes(card) && !view.table.includes(card));
  const illegal = note(
    await expectRefusal(() => play(tokens[0], { text: foreign }, "illegal-1"), Code.InvalidArgument, "ILLEGAL_MOVE", `playing ${foreign}, not in the hand`),
  );
  check(illegal.message.length > 0, "ILLEGAL_MOVE without a message for people");
  note(await expectRefusal(() => play(tokens[0], { game: { case: "tablic", value: { card: view.hand[0], captured: [foreign] } } }, "illegal-2"), Code.InvalidArgument, "ILLEGAL_MOVE", "capturing a card not on the table"));
  note(await expectRefusal(() => play(tokens[1], { text: view.hand[0] }, "turn-1"), Code.FailedPrecondition, "NOT_YOUR_TURN", "seat 1 playing on seat 0's turn"));
  note(await expectRefusal(() => play(tokens[0], { text: view.hand[0] }, ""), Code.InvalidArgument, "MOVE_ID_MISSING", "no client_move_id"));
  note(await expectRefusal(() => play(tokens[0], { text: view.hand[0] }, "seq-0", 0n), Code.InvalidArgument, "LAST_SEQ_MISSING", "no last_seq"));
  note(await expectRefusal(() => play(tokens[0], { text: view.hand[0] }, "seq-ahead", seq + 5n), Code.FailedPrecondition, "SEQ_AHEAD", "last_seq ahead"));
  note(await expectRefusal(() => play("not-a-token", { text: view.hand[0] }, "token-1"), Code.Unauthenticated, "TOKEN_INVALID", "a wrong seat token"));

  const first = await play(tokens[0], { text: view.hand[0] }, "trail-1");
  const again = await play(tokens[0], { text: view.hand[0] }, "trail-1");
  check(!first.duplicate && again.duplicate && again.event.seq === first.event.seq, "a retry with the same id is not answered as a duplicate");
  note(await expectRefusal(() => play(tokens[0], { text: view.hand[1] }, "trail-1"), Code.AlreadyExists, "MOVE_ID_REUSED", "the same id for another move"));
  const hand1 = (await kafana.getState({ tableId }, asSeat(tokens[1]))).game.value.hand;
  const stale = note(await expectRefusal(() => play(tokens[1], { text: hand1[0] }, "stale-1", seq), Code.FailedPrecondition, "STALE_SEQ", "last_seq behind"));
  const header = stale.metadata.get("kafana-state-bin");
  check(header !== null, "STALE_SEQ without the current state in kafana-state-bin");
  const current = fromBinary(TableStateSchema, base64Decode(header));
  check(current.seq === first.event.seq && current.currentSeat === 1, `kafana-state-bin is at seq ${current.seq}`);

  note(await expectRefusal(() => kafana.getTable({ tableId: "no-such-table" }), Code.NotFound, "TABLE_NOT_FOUND", "an unknown table"));
  note(await expectRefusal(() => kafana.listTables({ pageToken: "garbage" }), Code.InvalidArgument, "INVALID_PAGE_TOKEN", "a made-up page token"));
  note(await expectRefusal(() => kafana.getRecord({ tableId }), Code.FailedPrecondition, "MATCH_NOT_OVER", "a record before the end"));
  done({ protocol, reasons, millis: Date.now() - started });
});
