"""The authenticator's per-call fast path (`Authenticator.known`): a caller from the key cache
alone, never one the full check (`resolve`) would refuse or make otherwise."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from kafana.service.auth import Authenticator, AuthPolicy, Caller
from kafana.store.accounts import KEY_CHARS, Account, AccountStore, key_hash, new_key


class Context:
    """What the authenticator reads of a call: its peer."""

    def __init__(self, peer: str = "ipv4:10.0.0.7:5555") -> None:
        self._peer = peer

    def peer(self) -> str:
        return self._peer


def bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"), ("kafana-seat-token", "abc"))


def test_known_callers_come_from_the_cache_alone_and_only_when_valid() -> None:
    clock = [100.0]
    auth = Authenticator(
        cast(AccountStore, object()), AuthPolicy(mode="required"), clock=lambda: clock[0]
    )
    ann = Account("ann", "player", 1)
    context: Any = Context()
    assert auth.known("PlayMove", context, ()) is None  # no key: `resolve` decides
    assert auth.known("PlayMove", context, bearer("kfk_ann")) is None  # not looked up yet
    auth.cache.put(key_hash("kfk_ann"), ann)
    auth.cache.put(key_hash("kfk_nobody"), None)  # looked up: unknown
    caller = auth.known("PlayMove", context, bearer("kfk_ann"))
    assert caller == Caller.of(ann, "ipv4:10.0.0.7")
    assert auth.known("PlayMove", context, bearer("kfk_ann")) is caller  # made once
    other: Any = Context("ipv4:10.0.0.8:1")
    assert auth.known("PlayMove", other, bearer("kfk_ann")) == Caller.of(ann, "ipv4:10.0.0.8")
    again: Any = Context("ipv4:10.0.0.7:6666")  # the same address, another connection
    assert auth.known("PlayMove", again, bearer("kfk_ann")) == caller
    assert auth.known("PlayMove", context, bearer("kfk_nobody")) is None
    assert auth.known("CreateAccount", context, bearer("kfk_ann")) is None  # role: refused
    auth.cache.forget("ann")  # revoked here
    assert auth.known("PlayMove", context, bearer("kfk_ann")) is None
    auth.cache.put(key_hash("kfk_ann"), ann)
    clock[0] += auth.policy.cache_s + 1  # the cache's word expired: looked up again
    assert auth.known("PlayMove", context, bearer("kfk_ann")) is None


def test_resolve_agrees_with_the_fast_path() -> None:
    auth = Authenticator(cast(AccountStore, object()), AuthPolicy(mode="required"))
    ann = Account("ann", "player", 1)
    auth.cache.put(key_hash("kfk_ann"), ann)
    context: Any = Context()
    resolved = asyncio.run(auth.resolve("PlayMove", None, context, bearer("kfk_ann")))
    assert resolved == auth.known("PlayMove", context, bearer("kfk_ann"))


def test_a_key_longer_than_any_real_one_is_not_remembered() -> None:
    # A review (7 Dec): every bearer string was kept in the fast path's memo before any
    # check; distinct 7,000-character made-up keys took RSS from 72 to 146 MB (the memo is
    # bounded in entries, and cleared when full: refilled at once)
    auth = Authenticator(cast(AccountStore, object()), AuthPolicy(mode="required"))
    context: Any = Context()
    for n in range(50):
        made_up = f"kfk_{n:04d}" + "x" * 7000
        assert auth.known("PlayMove", context, bearer(made_up)) is None
    assert len(auth._digests) == 0
    assert len(new_key()) <= KEY_CHARS  # every real key is remembered
