"""Counted words in command output: `1 match`, `2 matches` (never "1 matches settled")."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """`count` and `word`, plural unless `count` is 1 (English: -es after ch, sh, s, x).

    >>> plural(1, "match"), plural(2, "match"), plural(0, "player"), plural(1, "deal")
    ('1 match', '2 matches', '0 players', '1 deal')
    """
    if count == 1:
        return f"1 {word}"
    return f"{count} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{count} {word}s"
