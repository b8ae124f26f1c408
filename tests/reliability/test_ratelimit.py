"""The token buckets and the client key, without a server; doctests of the new modules."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest
from kafana.service.guard import caller_key
from kafana.service.ratelimit import RateLimit, RateLimiter


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_admits_its_burst_then_the_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(rate=10, burst=5), clock)
    assert [limiter.take("a") for _ in range(5)] == [0.0] * 5
    assert limiter.take("a") == pytest.approx(0.1)
    clock.now = 0.1
    assert limiter.take("a") == 0.0
    assert limiter.take("a") > 0
    clock.now = 100.0  # a long pause refills to the burst, no more
    assert [limiter.take("a") for _ in range(5)] == [0.0] * 5
    assert limiter.take("a") > 0


def test_refused_calls_do_not_drain_the_bucket_further() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(rate=1, burst=1), clock)
    assert limiter.take("a") == 0.0
    waits = [limiter.take("a") for _ in range(100)]
    assert max(waits) == pytest.approx(1.0)  # hammering does not push the wait further out
    clock.now = 1.0
    assert limiter.take("a") == 0.0


def test_looking_takes_nothing() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1), Clock())
    assert limiter.take("a", commit=False) == 0.0
    assert limiter.take("a", commit=False) == 0.0
    assert limiter.take("a") == 0.0
    assert limiter.take("a", commit=False) > 0


def test_clients_are_forgotten_least_recently_used_first() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(rate=1, burst=1, max_clients=3), clock)
    for key in "abcd":
        assert limiter.take(key) == 0.0
    assert limiter.take("a") == 0.0  # "a" was forgotten: a full bucket again
    assert limiter.take("d") > 0  # "d" is remembered


def test_no_limit_and_bad_settings() -> None:
    limiter = RateLimiter(RateLimit(rate=0))
    assert all(limiter.take("a") == 0.0 for _ in range(10_000))
    with pytest.raises(ValueError, match="burst"):
        RateLimiter(RateLimit(rate=5, burst=0.5))


class Peer:
    """Just enough of a servicer context for `client_key`."""

    def __init__(self, peer: str) -> None:
        self._peer = peer

    def peer(self) -> str:
        return self._peer


def test_the_caller_is_its_address_whatever_token_it_sends() -> None:
    # Seat and admin tokens buy no budget of their own: minted seats share their caller's.
    context: Any = Peer("ipv4:10.0.0.7:50123")
    other_port: Any = Peer("ipv4:10.0.0.7:40000")
    v6: Any = Peer("ipv6:[::1]:5000")
    assert caller_key(context) == caller_key(other_port) == "p:ipv4:10.0.0.7"
    assert caller_key(v6) == "p:ipv6:[::1]"


@pytest.mark.parametrize(
    "name",
    [
        "kafana.service.ratelimit",
        "kafana.service.errors",
        "kafana.service.guard",
        "kafana.service.inputs",
        "kafana.service.quotas",
        "kafana.store.counters",
    ],
)
def test_doctests(name: str) -> None:
    failures, _tried = doctest.testmod(importlib.import_module(name))
    assert failures == 0
