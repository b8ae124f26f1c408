// A whole Tač game of three seats with `tac_calls` and `play_on` set: the rules in force show
// both (and every other switch), one seat breaks the order on purpose and the next calls "Tač!"
// (the offender gets a penalty), and play goes on until every place is decided.
// Usage: node tac.mjs PROTOCOL URL
import { Game, TacRulesSchema } from "@kafana/client/gen/kafana/v1/rules_pb";
import { ResultReason, TacPhase } from "@kafana/client/gen/kafana/v1/state_pb";
import { asSeat, check, checkContiguous, collect, commandLine, done, kafanaClient, run } from "./lib.mjs";

/** In-order preference: onto the central pile, then another seat's pile, then flip / own pile. */
function rank(move) {
  if (move.text.endsWith("->C")) return 0;
  if (/->P\d+$/.test(move.text)) return 1;
  if (move.text.startsWith("call")) return 3;
  return 2;
}

run(async () => {
  const started = Date.now();
  const { protocol, url } = commandLine();
  const kafana = kafanaClient(protocol, url);
  const created = await kafana.createTable({
    config: {
      name: `third-party tac ${protocol}`,
      seed: "26", // a short game (278 moves with this strategy)
      rules: { game: Game.TAC, players: 3, variant: { case: "tac", value: { tacCalls: true, playOn: true } } },
    },
  });
  const tableId = created.tableId;
  const rules = created.info?.rules;
  check(rules?.game === Game.TAC && rules.players === 3, `rules in force: ${rules?.game} ${rules?.players}`);
  check(rules.variant.case === "tac", `rules in force: variant ${rules.variant.case}`);
  const tac = rules.variant.value;
  check(tac.tacCalls === true && tac.playOn === true, `switches not in force: ${JSON.stringify(tac)}`);
  check(tac.decks === 1 && tac.centreFirst === false, `defaults in force: ${JSON.stringify(tac)}`);
  const unset = TacRulesSchema.fields.filter((f) => tac[f.localName] === undefined).map((f) => f.name);
  check(unset.length === 0, `rules in force leave switches unset: ${unset}`);

  const spectator = collect(kafana, tableId);
  const tokens = [];
  for (const name of ["ana", "boris", "cica"]) tokens.push((await kafana.joinTable({ tableId, name })).seatToken);
  const first = await kafana.getState({ tableId });
  check(first.game.case === "tac" && first.game.value.phase === TacPhase.DRAW, `phase ${first.game.value?.phase}`);
  check(first.game.value.central.length === 1, "three seats on one deck: the spare ace starts the central pile");

  let current = first.currentSeat;
  let moves = 0;
  let offender;
  let penalty = 0;
  let result;
  while (result === undefined) {
    const legal = await kafana.getLegalMoves({ tableId }, asSeat(tokens[current]));
    check(legal.currentSeat === current && legal.moves.length > 0, `seat ${current}: no legal move`);
    let move = [...legal.moves].sort((a, b) => rank(a) - rank(b))[0];
    const seat = current;
    const keep = legal.moves.find((m) => m.text === "play X->D");
    let offence;
    if (offender === undefined && rank(move) === 0 && keep !== undefined) {
      move = offence = keep; // the turned card fits the central pile: keeping it breaks the order
      offender = current;
    }
    const caller = offender !== undefined && penalty === 0 && seat !== offender ? legal.moves.find((m) => m.text.startsWith("call")) : undefined;
    if (caller !== undefined) {
      check(caller.game.value.action.case === "call", `a call without its structure: ${caller.text}`);
      move = caller;
    }
    const sent = seat === 2 ? { game: move.game } : { text: move.text };
    const answer = await kafana.playMove(
      { tableId, move: sent, clientMoveId: `${protocol}-${moves}`, lastSeq: legal.seq },
      asSeat(tokens[seat]),
    );
    const step = answer.event?.step;
    check(step !== undefined && step.move?.text === move.text, `step ${step?.move?.text}, sent ${move.text}`);
    if (move === offence) check(step.offence, "the out-of-order move is not marked as an offence");
    if (move === caller) {
      check(step.penalty > 0, `the call gave no penalty: ${JSON.stringify(step)}`);
      penalty = step.penalty;
    }
    moves += 1;
    if (answer.event.matchOver) result = answer.result;
    current = answer.event.currentSeat;
  }
  check(offender !== undefined && penalty > 0, "no Tač! call was made");
  check(result.reason === ResultReason.OUT, `result reason ${ResultReason[result.reason]}`);
  check([...result.places].sort().join() === "1,2,3", `play_on decides every place: ${result.places}`);

  const feed = await spectator;
  check(feed.end === "ok", `the spectator's feed ended ${JSON.stringify(feed.end)}, not OK`);
  checkContiguous(feed.events, 1, "spectator feed");
  check(feed.events.at(-1).matchOver, "the feed's last event does not end the match");
  const flips = feed.events.filter((e) => e.step?.move?.text === "flip");
  check(flips.length > 0 && flips.every((e) => e.step.card !== ""), "a flip does not show its card");
  done({ protocol, moves, penalty, places: result.places, events: feed.events.length, millis: Date.now() - started });
});
