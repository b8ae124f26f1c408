"""Check finished matches after a load run: fetch each record and replay it independently.

For every table a user played to the end: GetRecord, `MatchRecord.from_text(...).replay()`,
and then, hand by hand, all 52 cards accounted for and the points adding up (under serbian
25 + tablas, or 22 + tablas when the most-cards bonus is tied), the hands summing to the final
scores, the server's result agreeing with the replay and with the scores the user computed
while playing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.games import tablic
from kafana.v1 import service_pb2, service_pb2_grpc

DECK = 52


@dataclass
class CheckReport:
    """How many matches were checked, and what was wrong with any."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


def hand_problems(state: tablic.MatchState) -> list[str]:
    """What does not add up in a finished match's hands (empty when all is well).

    >>> rules = tablic.Rules.preset("serbian", players=2)
    >>> state = tablic.new_match(rules, seed=3)
    >>> while not state.is_over:
    ...     state = state.apply(state.legal_moves()[-1])
    >>> hand_problems(state)
    []
    """
    rules = state.rules
    problems = []
    card_total = sum(rules.points_by_index)
    for result in state.hand_results:
        where = f"hand {result.hand}"
        if sum(result.cards) != DECK:
            problems.append(f"{where}: {sum(result.cards)} cards captured, not {DECK}")
        if sum(result.card_points) != card_total:
            problems.append(f"{where}: card points {sum(result.card_points)} != {card_total}")
        tied = result.cards.count(max(result.cards)) > 1
        bonus = 0 if tied and not rules.most_cards_tie_to_last else rules.most_cards_points
        if sum(result.most_cards) != bonus:
            problems.append(f"{where}: most-cards bonus {sum(result.most_cards)} != {bonus}")
        expected = card_total + bonus + rules.tabla_points * sum(result.tablas)
        if sum(result.points) != expected:
            problems.append(f"{where}: points {sum(result.points)} != {expected}")
    totals = tuple(sum(r.points[side] for r in state.hand_results) for side in range(rules.sides))
    if totals != state.scores:
        problems.append(f"hands sum to {totals}, the match says {state.scores}")
    if not state.is_over:
        problems.append("the replayed match is not over")
    return problems


def check_match(stub: service_pb2_grpc.KafanaServiceStub, finished: dict[str, Any]) -> list[str]:
    """Problems with one finished table (`finished`: table_id, scores, moves from the user)."""
    table_id = finished["table_id"]
    try:
        answer = stub.GetRecord(service_pb2.GetRecordRequest(table_id=table_id), timeout=30)
    except grpc.RpcError as error:
        return [f"{table_id}: GetRecord failed: {error.code().name} {error.details()}"]
    try:
        state = tablic.MatchRecord.from_text(answer.record).replay()
    except tablic.KafanaError as error:
        return [f"{table_id}: the record does not replay: {error}"]
    problems = [f"{table_id}: {p}" for p in hand_problems(state)]
    if list(state.scores) != list(finished["scores"]):
        problems.append(f"{table_id}: replay scores {state.scores}, user saw {finished['scores']}")
    if list(answer.result.scores) != list(state.scores):
        problems.append(f"{table_id}: result {list(answer.result.scores)} != {state.scores}")
    if len(state.moves()) != finished["moves"]:
        problems.append(f"{table_id}: {len(state.moves())} moves, user played {finished['moves']}")
    return problems


def check_matches(target: str, finished: Iterable[dict[str, Any]]) -> CheckReport:
    """Check every finished match through the server at `target`."""
    report = CheckReport()
    options = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
    with grpc.insecure_channel(target, options=options) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        for item in finished:
            report.checked += 1
            report.problems += check_match(stub, item)
    return report
