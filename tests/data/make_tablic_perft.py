"""Write `tablic_perft.json`: golden counts of legal moves over seeded random playouts.

A playout of (rules, seed) starts `new_match(rules, seed=seed)`, draws every move with
`random.Random(seed).choice(state.legal_moves())`, and stops after the first `HANDS` hands
(or when the match ends); a few more play whole matches (`FULL_SEEDS`). Its count is the sum
of `len(state.legal_moves())` over every position where a move is chosen. Like chess perft,
any change in dealing, captures, trails, turn order or scoring changes the counts.

Before writing, the legal moves of the first `--check` seeds of every rule set are compared,
position by position, with the brute-force oracle of `tests/games/tablic/oracle.py`, so the
stored numbers are independently right, not just what the engine says.

    .venv/bin/python tests/data/make_tablic_perft.py [--check 3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from kafana.games import tablic
from kafana.games.tablic import MatchState, Move, Rules

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "tablic_perft.json"
HANDS = 2
SEEDS = tuple(range(20))
FULL_SEEDS = tuple(range(3))
SHAPES = ((2, False), (3, False), (4, False), (4, True))


def rule_sets() -> dict[str, Rules]:
    """Every preset at every table shape, by name."""
    return {
        f"{preset}-{'2v2' if partnerships else players}": Rules.preset(
            preset, players=players, partnerships=partnerships
        )
        for preset in tablic.PRESETS
        for players, partnerships in SHAPES
    }


def playout(
    rules: Rules,
    seed: int,
    check: Callable[[MatchState, list[Move]], None] | None = None,
    hands: int | None = HANDS,
) -> int:
    """The perft count of one playout (`hands` None: the whole match).

    `check` sees every position and its legal moves.
    """
    rng = random.Random(seed)
    state = tablic.new_match(rules, seed=seed)
    count = 0
    while not state.is_over and (hands is None or state.hand_no < hands):
        moves = state.legal_moves()
        if check is not None:
            check(state, moves)
        count += len(moves)
        state = state.apply(rng.choice(moves))
    return count


def oracle_check(state: MatchState, moves: list[Move]) -> None:
    """Compare the legal moves with the brute-force oracle."""
    games = str(HERE.parent / "games")
    if games not in sys.path:
        sys.path.insert(0, games)
    from tablic.oracle import oracle_legal_moves  # type: ignore[import-not-found]

    seat = state.current_seat
    assert seat is not None
    expected = oracle_legal_moves(state.hand(seat), state.table, state.rules)
    got = {(move.card, move.captured) for move in moves}
    if got != expected or len(moves) != len(got):
        raise SystemExit(f"engine and oracle differ at {state!r}: {got ^ expected}")


def compute(check_seeds: int = 0) -> dict[str, object]:
    """Every count, checking the first `check_seeds` seeds of each rule set with the oracle."""
    counts: dict[str, list[int]] = {}
    full: dict[str, list[int]] = {}
    for name, rules in rule_sets().items():
        counts[name] = [
            playout(rules, seed, oracle_check if i < check_seeds else None)
            for i, seed in enumerate(SEEDS)
        ]
        full[name] = [playout(rules, seed, hands=None) for seed in FULL_SEEDS]
    return {
        "about": (
            "Sum of len(legal_moves()) over the first `hands` hands of seeded random playouts "
            "(moves drawn with random.Random(seed)), and over whole matches for "
            "`full_match_seeds`; written by tests/data/make_tablic_perft.py"
        ),
        "hands": HANDS,
        "seeds": list(SEEDS),
        "counts": counts,
        "totals": {name: sum(values) for name, values in counts.items()},
        "full_match_seeds": list(FULL_SEEDS),
        "full_match_counts": full,
    }


def render(data: dict[str, object]) -> str:
    """JSON with one line per rule set, so that a diff names the rule set that changed."""
    lines = ["{"]
    items = sorted(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, dict):
            lines.append(f"  {json.dumps(key)}: {{")
            inner = sorted(value.items())
            for j, (name, numbers) in enumerate(inner):
                tail = "," if j < len(inner) - 1 else ""
                lines.append(f"    {json.dumps(name)}: {json.dumps(numbers)}{tail}")
            lines.append("  }" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", type=int, default=3, help="seeds per rule set to oracle-check")
    args = parser.parse_args()
    data = compute(args.check)
    OUTPUT.write_text(render(data))
    print(f"wrote {OUTPUT} ({sum(data['totals'].values())} legal moves in all)")  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
