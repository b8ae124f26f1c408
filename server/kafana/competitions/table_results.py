"""A tournament game on a table: the table it is played on, and its result from the record.

Shared by every runner that plays a game on a service table (the hosted director, `kafana
tournament run --server`): `game_table_config` makes the table (the event's rules and clock,
the game's seed and decks), `game_result` turns the table's record into the `GameResult`
(scores, ending, every fault with its reason code, the fair record).
"""

from __future__ import annotations

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment
from kafana.competitions.model import Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault, Reason
from kafana.competitions.tournament import Tournament
from kafana.v1 import events_pb2, rules_pb2, service_pb2


def table_faults(events: list[events_pb2.Event], notes: list[Fault]) -> list[Fault]:
    """Faults from the table's events (timeouts, forfeits) plus the runner's own notes."""
    out: list[Fault] = []
    moves = 0
    left: dict[int, int] = {}  # seat -> moves played when it left (a forfeit)
    for event in events:
        if event.kind == events_pb2.EVENT_KIND_MOVE:
            if event.reason == "timeout":
                out.append(Fault(event.seat, Reason.TIMEOUT, Action.DEFAULT_MOVE, moves))
            moves += 1
        elif event.kind == events_pb2.EVENT_KIND_FORFEIT and event.reason == "timeout":
            out.append(Fault(event.seat, Reason.TIMEOUT, Action.FORFEIT_MATCH, moves))
        elif event.kind == events_pb2.EVENT_KIND_FORFEIT:
            left.setdefault(event.seat, moves)
    for note in notes:  # a disconnect: when it left, else the moves played by the end
        at = left.get(note.seat, moves)
        out.append(Fault(note.seat, note.reason, note.action, at, note.detail))
    return out


def game_table_config(spec: GameSpec, seed: int, tournament: Tournament) -> rules_pb2.TableConfig:
    """The table of one game: the event's rules and clock, the game's seed and decks."""
    config = tournament.config
    policy = config.policy
    rules = rules_pb2.RulesSpec(
        game="tablic", preset=config.preset, players=2, target=config.rules.target
    )
    forfeit = policy.on_timeout is Action.FORFEIT_MATCH
    clock = rules_pb2.ClockSpec(
        move_millis=policy.move_ms,
        policy=rules_pb2.TIMEOUT_POLICY_FORFEIT
        if forfeit
        else rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
    )
    return rules_pb2.TableConfig(
        rules=rules,
        decks=[rules_pb2.Deck(cards=[card.text for card in deck]) for deck in spec.decks],
        clock=clock,
        name=f"{config.name}/{spec.game_id}",
        seed=seed,
    )


ENDINGS = {"score": Ending.SCORE, "closed": Ending.NOT_PLAYED, "abandoned": Ending.NOT_PLAYED}
"""A table's result reason -> the game's ending (any other reason: a forfeit)."""


def game_result(
    spec: GameSpec,
    seed: int,
    table_id: str,
    answer: service_pb2.GetRecordResponse,
    tournament: Tournament,
    notes: list[Fault],
) -> GameResult:
    """The game's result from the table's record: scores, ending, faults, fair record."""
    result = answer.result
    faults = table_faults(list(answer.events), notes)
    ending = ENDINGS.get(result.reason, Ending.FORFEIT)
    winner = result.winner_side if result.HasField("winner_side") else None
    scores = tuple(int(s) for s in result.scores)
    if ending is Ending.SCORE and len(set(scores)) == 1:
        winner = None
    fair = FairRecord(
        commitment(seed),
        seed,
        answer.record,
        (
            ("event", tournament.config.name),
            ("game", spec.game_id),
            ("table", table_id),
            ("seats", " ".join(spec.seats)),
            ("ending", f"{ending.value} {result.detail}".strip()),
            *(("fault", f.code()) for f in faults),
        ),
    )
    return GameResult(spec.game_id, scores, winner, ending, tuple(faults), fair.to_text(), table_id)
