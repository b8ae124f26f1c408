"""Which server process a table's calls go to: rendezvous hashing over the deployment's targets.

Every process of a deployment serves every table (the store is shared), but each keeps a
bounded cache of the tables it served. Sending all calls of one table to one process keeps
that table in one cache instead of in every process's, and a move then costs no reload.
Rendezvous (highest random weight) hashing gives every client the same choice without
coordination, and when a process goes away only its own tables move, each to its next choice.

>>> order = ranking("t-42", ("a:1", "b:1", "c:1"))
>>> sorted(order) == ["a:1", "b:1", "c:1"], order == ranking("t-42", ("c:1", "a:1", "b:1"))
(True, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def weight(target: str, key: str) -> int:
    """The target's weight for `key`: 64 bits of BLAKE2b of both (the same in every client)."""
    digest = hashlib.blake2b(f"{target}\0{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def ranking(key: str, targets: Sequence[str]) -> list[str]:
    """`targets` in the order `key`'s calls try them: the highest weight first."""
    return sorted(targets, key=lambda target: (weight(target, key), target), reverse=True)
