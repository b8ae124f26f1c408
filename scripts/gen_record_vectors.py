"""Write the record test vectors of docs/records.md into tests/data/records/.

Each vector is a whole match (Tablić) or game (Tač) played by a seeded random choice among the
legal moves, as JSON: the record text, and what a replay of it must give (the hands' scores, the
final scores or places, the number of moves, the last position's public facts). A test
regenerates them and checks the committed files are the same, and replays each one.

Usage: `python scripts/gen_record_vectors.py [--out DIR]`.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from kafana.games import tablic, tac
from kafana.games.tablic.state import new_match
from kafana.games.tac.state import new_game

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "records"

TABLIC = {
    "tablic-serbian-2p-seed7": (tablic.Rules.preset("serbian"), 7, None),
    "tablic-wild-jack-2p-seed11": (tablic.Rules.preset("wild_jack"), 11, None),
    "tablic-tablanette-2p-seed3": (tablic.Rules.preset("tablanette", target=101), 3, None),
    "tablic-serbian-3p-seed5": (tablic.Rules.preset("serbian", players=3, target=41), 5, None),
    "tablic-partners-4p-seed9": (
        tablic.Rules.preset("serbian", players=4, partnerships=True, target=61),
        9,
        None,
    ),
    "tablic-serbian-2p-decks": (
        tablic.Rules.preset("serbian", target=21),
        None,
        [tablic.shuffle.shuffled_deck(1234, k) for k in range(2)],
    ),
}
TAC = {
    "tac-2p-seed5": (tac.Rules(players=2), 5),
    "tac-4p-calls-playon-seed8": (tac.Rules(players=4, tac_calls=True, play_on=True), 8),
    "tac-2p-two-decks-centre-first-seed2": (tac.Rules(players=2, decks=2, centre_first=True), 2),
}


def _play(state: Any, rng: random.Random) -> Any:
    """Play seeded random legal moves (every move of every seat) until the end."""
    while not state.is_over:
        seat = state.current_seat
        moves = state.legal_moves_for(seat)
        state = state.apply(rng.choice(moves), seat)
    return state


def tablic_vector(name: str) -> dict[str, Any]:
    """One Tablić vector."""
    rules, seed, decks = TABLIC[name]
    state = _play(new_match(rules, seed=seed, decks=decks), random.Random(name))
    record = state.record()
    hands = [
        {
            "hand": h.hand,
            "cards": list(h.cards),
            "card_points": list(h.card_points),
            "most_cards": list(h.most_cards),
            "tablas": list(h.tablas),
            "points": list(h.points),
        }
        for h in state.hand_results
    ]
    return {
        "name": name,
        "game": "tablic",
        "record": record.to_text(),
        "expect": {"moves": len(record.moves), "hands": hands, "scores": list(state.scores)},
    }


def tac_vector(name: str) -> dict[str, Any]:
    """One Tač vector."""
    rules, seed = TAC[name]
    state = _play(new_game(rules, seed=seed), random.Random(name))
    record = state.record()
    view = state.public_view()
    return {
        "name": name,
        "game": "tac",
        "record": record.to_text(),
        "expect": {
            "moves": len(record.moves),
            "places": list(view.places),
            "out_order": list(view.out_order),
            "stalled": view.stalled,
            "central": [c.text for c in view.central],
        },
    }


def vectors() -> dict[str, dict[str, Any]]:
    """Every vector by name."""
    found = {name: tablic_vector(name) for name in TABLIC}
    found |= {name: tac_vector(name) for name in TAC}
    return found


def write(out: Path) -> list[Path]:
    """Write every vector as `out/NAME.json`; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, vector in vectors().items():
        path = out / f"{name}.json"
        path.write_text(json.dumps(vector, indent=1, ensure_ascii=False) + "\n")
        written.append(path)
    return written


def main() -> None:
    """Command line: write the vectors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    for path in write(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
