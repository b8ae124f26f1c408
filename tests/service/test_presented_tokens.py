"""`tokens.presented_hash`: a token's hash kept for its next call, the kept ones bounded."""

from __future__ import annotations

import pytest
from kafana.service import tokens


def test_the_hash_is_the_tokens_and_the_kept_ones_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "HASHES_KEPT", 5)
    monkeypatch.setattr(tokens, "_presented", {})
    for n in range(23):
        token = f"token-{n}"
        assert tokens.presented_hash(token) == tokens.token_hash(token)
        assert tokens.presented_hash(token) is tokens.presented_hash(token)  # kept
        assert 0 < len(tokens._presented) <= 5
