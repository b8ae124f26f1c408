"""A tournament game on a table: the table it is played on, and its result from the record.

Shared by every runner that plays a game on a service table (the hosted director, `kafana
tournament run --server`): `game_table_config` makes the table (the event's rules and clock,
the game's seed and decks), `game_result` turns the table's record into the `GameResult`
(scores, ending, every fault with its reason code, the fair record).
"""

from __future__ import annotations

from dataclasses import replace

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, commitment
from kafana.competitions.model import Ending, GameResult, GameSpec, forfeit_places
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.tournament import Tournament
from kafana.competitions.wire import rules_spec
from kafana.games.protocol import places_by_score
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2

FORFEITS = {
    state_pb2.EVENT_REASON_TIMEOUT: Reason.TIMEOUT,
    state_pb2.EVENT_REASON_TIMEOUTS: Reason.TIMEOUTS,
    state_pb2.EVENT_REASON_DISCONNECT: Reason.DISCONNECT,
    state_pb2.EVENT_REASON_ILLEGAL_MOVE: Reason.ILLEGAL_MOVE,
    state_pb2.EVENT_REASON_NO_SHOW: Reason.NO_SHOW,
}
"""A FORFEIT event's reason -> the fault (any other reason, e.g. "left": the runner's note)."""


def table_faults(events: list[events_pb2.Event], notes: list[Fault], seats: int = 0) -> list[Fault]:
    """Faults from the table's events (the fault policy's timeouts, disconnects, illegal moves,
    no-shows, forfeits) plus the runner's own notes (a note for a fault the table recorded
    gives it its detail). `seats`: the game's seats (a close for a no-show faults them all)."""
    out: list[Fault] = []
    moves = 0
    left: dict[int, int] = {}  # seat -> moves played when it left (a forfeit)
    away: set[int] = set()  # seats whose turns the server plays while they are disconnected
    for event in events:
        seat, reason = event.seat, event.reason
        if event.kind == events_pb2.EVENT_KIND_MOVE:
            if reason == state_pb2.EVENT_REASON_TIMEOUT:
                out.append(Fault(seat, Reason.TIMEOUT, Action.DEFAULT_MOVE, moves))
            elif reason == state_pb2.EVENT_REASON_DISCONNECT:
                if seat not in away:  # one fault per absence, not one per move played for it
                    out.append(Fault(seat, Reason.DISCONNECT, Action.DEFAULT_MOVE, moves))
                away.add(seat)
            else:
                away.discard(seat)
            moves += 1
        elif event.kind == events_pb2.EVENT_KIND_FORFEIT and reason in FORFEITS:
            out.append(Fault(seat, FORFEITS[reason], Action.FORFEIT_MATCH, moves))
        elif event.kind == events_pb2.EVENT_KIND_FORFEIT:
            left.setdefault(seat, moves)
        elif (
            event.kind == events_pb2.EVENT_KIND_CLOSED and reason == state_pb2.EVENT_REASON_NO_SHOW
        ):
            out += [Fault(s, Reason.NO_SHOW, Action.FORFEIT_MATCH, moves) for s in range(seats)]
    for note in notes:  # a disconnect: when it left, else the moves played by the end
        same = [i for i, f in enumerate(out) if (f.seat, f.reason) == (note.seat, note.reason)]
        if same:
            out[same[-1]] = replace(out[same[-1]], detail=note.detail)
            continue
        at = left.get(note.seat, moves)
        out.append(Fault(note.seat, note.reason, note.action, at, note.detail))
    return out


def _answer(action: Action) -> rules_pb2.TimeoutPolicy.ValueType:
    return (
        rules_pb2.TIMEOUT_POLICY_FORFEIT
        if action is Action.FORFEIT_MATCH
        else rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
    )


def clock_spec(policy: FaultPolicy) -> rules_pb2.ClockSpec:
    """The table clock that enforces `policy` (every table of an event gets it).

    `forfeit_hand` answers are the referee's (the clock plays the default move); after a
    disconnect they are default moves while the seat is away. Illegal moves forfeit at
    `illegal_limit` when the policy says `forfeit_match` (else they are only refused).
    """
    return rules_pb2.ClockSpec(
        move_millis=policy.move_ms,
        policy=_answer(policy.on_timeout),
        forfeit_after_timeouts=policy.timeouts_to_forfeit,
        disconnect_grace_millis=policy.disconnect_grace_ms,
        on_disconnect=_answer(policy.on_disconnect),
        no_show_millis=policy.no_show_ms,
        illegal_limit=policy.illegal_limit if policy.on_illegal is Action.FORFEIT_MATCH else 0,
    )


def game_table_config(spec: GameSpec, seed: int, tournament: Tournament) -> rules_pb2.TableConfig:
    """The table of one game: the event's game, seats and rules, the fault policy's clock, the
    game's seed and decks."""
    config = tournament.config
    players = len(spec.seats) or config.players
    rules = rules_spec(
        config.game, config.preset, config.target, players, config.partnerships, config.switches
    )
    return rules_pb2.TableConfig(
        rules=rules,
        decks=[rules_pb2.Deck(cards=[card.text for card in deck]) for deck in spec.decks],
        clock=clock_spec(config.policy),
        name=f"{config.name}/{spec.game_id}",
        seed=seed,
    )


ENDINGS = {
    state_pb2.RESULT_REASON_SCORE: Ending.SCORE,
    state_pb2.RESULT_REASON_OUT: Ending.SCORE,  # Tač: played out (places, no scores)
    state_pb2.RESULT_REASON_STALLED: Ending.SCORE,  # Tač: drawn, no card reached the centre
    state_pb2.RESULT_REASON_CLOSED: Ending.NOT_PLAYED,
    state_pb2.RESULT_REASON_ABANDONED: Ending.NOT_PLAYED,
    state_pb2.RESULT_REASON_NO_SHOW: Ending.NOT_PLAYED,
}
"""A table's result reason -> the game's ending (any other reason: a forfeit)."""


def result_places(
    sides: int,
    ending: Ending,
    places: tuple[int, ...],
    scores: tuple[int, ...],
    winner: int | None,
    loser: int | None,
) -> tuple[int, ...]:
    """Every side's place in a played game (1 is best, ties share): the table's places (Tač),
    else by points (Tablić at 2, 3 or 4 sides); a forfeit puts the forfeiting side last and
    the others by points (Tač, no points: the table's winner first). () when nothing ranks
    the sides (a game not played, adjudicated: its winner decides).

    >>> result_places(3, Ending.SCORE, (), (40, 12, 30), 0, None)
    (1, 3, 2)
    >>> result_places(3, Ending.FORFEIT, (), (), 2, 0)
    (3, 2, 1)
    """
    if ending is Ending.SCORE:
        if places:
            return places
        return places_by_score(scores) if len(scores) == sides else ()
    if ending is not Ending.FORFEIT or loser is None or not 0 <= loser < sides:
        return ()
    if len(scores) == sides:
        return forfeit_places(sides, loser, scores)
    if winner is None or winner == loser:
        return forfeit_places(sides, loser)
    return tuple(1 if s == winner else sides if s == loser else 2 for s in range(sides))


def game_result(
    spec: GameSpec,
    deal: str | int,
    table_id: str,
    answer: service_pb2.GetRecordResponse,
    tournament: Tournament,
    notes: list[Fault],
) -> GameResult:
    """The game's result from the table's record: scores, ending, faults, fair record.

    `deal`: the game's secret or its deal seed (callers of either kind); the record reveals
    the tournament's secret of the game, from which the seed follows."""
    result = answer.result
    faults = table_faults(list(answer.events), notes, len(spec.seats))
    ending = ENDINGS.get(result.reason, Ending.FORFEIT)
    winner = result.winner_side if result.HasField("winner_side") else None
    scores = tuple(int(s) for s in result.scores)
    if ending is Ending.SCORE and len(set(scores)) == 1:
        winner = None
    secret = tournament.secret_of(spec.game_id)  # the table dealt from deal_seed(secret)
    del deal
    fair = FairRecord(
        commitment(secret),
        secret,
        answer.record,
        (
            ("event", tournament.config.name),
            *((("deal", CHOSEN),) if tournament.config.chosen else ()),
            ("game", spec.game_id),
            ("table", table_id),
            ("seats", " ".join(spec.seats)),
            ("ending", f"{ending.value} {result.detail}".strip()),
            *(("fault", f.code()) for f in faults),
        ),
    )
    loser = spec.side_of(result.forfeit_seat) if result.HasField("forfeit_seat") else None
    places = result_places(
        len(spec.sides), ending, tuple(int(p) for p in result.places), scores, winner, loser
    )
    return GameResult(
        spec.game_id, scores, winner, ending, tuple(faults), fair.to_text(), table_id, "", places
    )
