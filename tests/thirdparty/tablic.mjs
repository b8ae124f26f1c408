// A whole Tablić match between two seats, with switches set, checked from the outside: the rules
// in force carry every switch (the ones chosen among them), moves go as text (seat 0) and as the
// structured branch (seat 1), hands stay secret, the spectator's feed is contiguous and ends OK
// with the match, and GetRecord has the result. Meanwhile a feed of an idle table gets a
// heartbeat within the period GetServerInfo gives. Usage: node tablic.mjs PROTOCOL URL
import { EventKind } from "@kafana/client/gen/kafana/v1/events_pb";
import { Game, TablicPreset, TablicRulesSchema } from "@kafana/client/gen/kafana/v1/rules_pb";
import { ResultReason, TableStatus } from "@kafana/client/gen/kafana/v1/state_pb";
import { asSeat, check, checkContiguous, collect, commandLine, decode, done, kafanaClient, run } from "./lib.mjs";

const TARGET = 40;

run(async () => {
  const started = Date.now();
  const { protocol, url } = commandLine();
  const kafana = kafanaClient(protocol, url);
  const { heartbeatMillis } = (await kafana.getServerInfo({})).limits;
  const idle = await kafana.createTable({ config: { name: "idle", rules: { game: Game.TABLIC, players: 2 } } });
  const quiet = new AbortController();
  const heartbeat = (async () => {
    const since = Date.now();
    for await (const response of kafana.watchEvents({ tableId: idle.tableId }, { signal: quiet.signal })) {
      if (response.item.case === "heartbeat") return { millis: Date.now() - since, seq: response.item.value.seq };
    }
    return { ended: "OK" };
  })().catch((error) => ({ ended: decode(error).codeName }));

  const created = await kafana.createTable({
    config: {
      name: `third-party tablic ${protocol}`,
      seed: "18446744073709551557", // above 2^53: a JS number would lose digits (jstype string)
      rules: {
        game: Game.TABLIC,
        players: 2,
        variant: { case: "tablic", value: { preset: TablicPreset.SERBIAN, target: TARGET, rankPriority: true } },
      },
    },
  });
  const tableId = created.tableId;
  const rules = created.info?.rules;
  check(rules?.game === Game.TABLIC, `rules in force: game ${rules?.game}`);
  check(rules.variant.case === "tablic", `rules in force: variant ${rules.variant.case}`);
  const tablic = rules.variant.value;
  check(tablic.target === TARGET && tablic.rankPriority === true, `switches not in force: ${JSON.stringify(tablic)}`);
  check(tablic.preset === TablicPreset.SERBIAN, `preset in force: ${tablic.preset}`);
  const unset = TablicRulesSchema.fields
    .filter((f) => f.fieldKind === "scalar" && f.proto.proto3Optional)
    .filter((f) => tablic[f.localName] === undefined)
    .map((f) => f.name);
  check(unset.length === 0, `rules in force leave switches unset: ${unset}`);

  const spectator = collect(kafana, tableId);
  const seats = [];
  for (const name of ["ada", "bora"]) seats.push(await kafana.joinTable({ tableId, name }));
  const tokens = seats.map((s) => s.seatToken);
  check(seats[0].seat === 0 && seats[1].seat === 1, `seats ${seats.map((s) => s.seat)}`);
  const ownFeed = collect(kafana, tableId, { options: asSeat(tokens[1]) });

  const views = await Promise.all([kafana.getState({ tableId }), ...tokens.map((t) => kafana.getState({ tableId }, asSeat(t)))]);
  const [publicView, view0, view1] = views.map((v) => v.game.value);
  check(publicView.hand.length === 0 && publicView.seat === undefined, `a spectator sees a hand: ${publicView.hand}`);
  check(view0.hand.length === 6 && view1.hand.length === 6, `hands ${view0.hand} / ${view1.hand}`);
  check(!view1.hand.some((card) => view0.hand.includes(card)), "two seats hold the same card");
  const other = await kafana.getLegalMoves({ tableId }, asSeat(tokens[1]));
  check(other.moves.length === 0 && other.currentSeat === 0, `seat 1 has moves while seat 0 is to move`);

  let current = views[0].currentSeat;
  let moves = 0;
  let captures = 0;
  let result;
  while (result === undefined) {
    check(current === 0 || current === 1, `no seat to move after ${moves} moves`);
    const legal = await kafana.getLegalMoves({ tableId }, asSeat(tokens[current]));
    check(legal.currentSeat === current && legal.moves.length > 0, `seat ${current} has no legal move`);
    const move = legal.moves.reduce((best, m) =>
      m.game.value.captured.length > best.game.value.captured.length ? m : best,
    );
    check(move.game.case === "tablic", `a legal move without its tablic branch: ${move.text}`);
    const sent = current === 0 ? { text: move.text } : { game: move.game };
    const answer = await kafana.playMove(
      { tableId, move: sent, clientMoveId: `${protocol}-${moves}`, lastSeq: legal.seq },
      asSeat(tokens[current]),
    );
    check(answer.event?.kind === EventKind.MOVE && answer.event.move?.text === move.text, `played ${answer.event?.move?.text}, sent ${move.text}`);
    moves += 1;
    if (move.game.value.captured.length > 0) captures += 1;
    if (answer.event.matchOver) result = answer.result;
    current = answer.event.currentSeat;
  }
  check(result.reason === ResultReason.SCORE, `result reason ${ResultReason[result.reason]}`);
  check(result.winnerSide !== undefined && result.scores[result.winnerSide] >= TARGET, `scores ${result.scores}`);

  const feed = await spectator;
  check(feed.end === "ok", `the spectator's feed ended ${JSON.stringify(feed.end)}, not OK`);
  checkContiguous(feed.events, 1, "spectator feed");
  const last = feed.events.at(-1);
  check(last.matchOver && last.result?.reason === ResultReason.SCORE, "the feed's last event does not end the match");
  const deals = feed.events.filter((e) => e.deal !== undefined);
  check(deals.length >= 2 && deals.every((e) => e.deal.hand.length === 0), "a spectator's deal shows a hand");
  check(feed.events.every((e) => e.state === undefined), "events carry the state without with_state");
  const mine = await ownFeed;
  const myDeals = mine.events.filter((e) => e.deal !== undefined);
  check(mine.end === "ok" && myDeals.length === deals.length, `seat 1's feed: ${myDeals.length} deals`);
  check(myDeals.every((e) => e.deal.hand.length > 0), "seat 1's feed does not show its own cards");

  const record = await kafana.getRecord({ tableId });
  check(record.result?.reason === ResultReason.SCORE && record.record.length > 0, "GetRecord has no result");
  check(BigInt(record.events.length) === last.seq, `GetRecord: ${record.events.length} events, feed ${last.seq}`);
  const final = await kafana.getTable({ tableId });
  check(final.status === TableStatus.FINISHED, `status ${TableStatus[final.status]}`);
  const beat = await heartbeat;
  quiet.abort();
  check(beat.millis !== undefined, `the idle feed ended ${beat.ended} without a heartbeat`);
  check(beat.millis <= 2 * heartbeatMillis + 1000, `the first heartbeat came after ${beat.millis} ms (period ${heartbeatMillis})`);
  check(beat.seq === 0n, `an idle open table's heartbeat says seq ${beat.seq}`);
  done({
    protocol,
    moves,
    captures,
    deals: deals.length,
    events: feed.events.length,
    heartbeats: feed.heartbeats,
    idleHeartbeatMillis: beat.millis,
    scores: result.scores,
    millis: Date.now() - started,
  });
});
