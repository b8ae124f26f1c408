"""Check a fair record: the commitment, every deal from the revealed seed, and every move.

>>> from kafana.games import tablic
>>> from kafana.competitions.fairness import commitment
>>> from kafana.competitions.envelope import FairRecord
>>> state = tablic.new_match(tablic.Rules(target=11), seed=5)
>>> while not state.is_over:
...     state = state.apply(state.legal_moves()[-1])
>>> fair = FairRecord(commitment(5), 5, state.record().to_text())
>>> verify(fair).finished
True
"""

from __future__ import annotations

from dataclasses import dataclass

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment
from kafana.errors import KafanaError
from kafana.games.tablic import shuffled_deck


class VerificationError(KafanaError, ValueError):
    """A fair record that does not check out; the message says which check failed."""


@dataclass(frozen=True)
class Verified:
    """What a successful check established."""

    seed: int
    hands: int  # deals recomputed from the seed
    moves: int  # moves replayed
    scores: tuple[int, ...]
    finished: bool  # the record's final scores were present and matched


def verify(fair: FairRecord) -> Verified:
    """Recompute the commitment and every deal from the revealed seed, then replay.

    Raises `VerificationError` naming the first check that fails.
    """
    if fair.revealed is None:
        raise VerificationError("the seed has not been revealed yet")
    seed = fair.revealed
    if not check_commitment(seed, fair.commitment):
        raise VerificationError(
            f"the revealed seed {seed} does not match the commitment {fair.commitment}"
        )
    try:
        record = fair.match_record()
    except KafanaError as exc:
        raise VerificationError(f"the match record does not parse: {exc}") from None
    if record.seed != seed:
        raise VerificationError(f"the record was dealt from seed {record.seed}, not {seed}")
    for k, deck in enumerate(record.decks):
        if deck != shuffled_deck(seed, k):
            raise VerificationError(f"deck {k} of the record is not deal {k} of seed {seed}")
    try:
        final = record.replay()
    except KafanaError as exc:
        raise VerificationError(f"the moves do not replay: {exc}") from None
    hands = len(final.hand_results) if final.is_over else final.hand_no + 1
    return Verified(seed, hands, len(record.moves), final.scores, record.scores is not None)
