"""Tests of the Tablić rules core (`kafana.games.tablic`).

- `test_examples`: every example of the Tablić section of `shared/RULES.md`, by name.
- `test_presets`: each preset and each rule switch; 2, 3, 4 players and partnerships.
- `oracle` + `test_oracle`: a brute-force capture checker against `captures()`.
- `test_validation`: `is_legal`/`apply` against `legal_moves` and the oracle.
- `test_random_matches`: seeded matches checked at every step (cards, scores, views, records).
- `test_perft`: golden legal-move counts (`tests/data/tablic_perft.json`).
- `test_bad_input`, `test_shuffle`, `test_views`, `test_determinize`.
"""
