"""The store's own errors: callers never see a Redis client library's classes."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """The store cannot serve now (unreachable, restarting, loading, failing over, read-only):
    every call is safe to retry later."""


class StoreError(Exception):
    """Redis refused a command: an error reply that no retry will change."""


class NoScriptError(StoreError):
    """`NOSCRIPT`: the server does not hold the script (restarted, flushed): load it again."""


class RedirectError(StoreError):
    """`MOVED` or `ASK` from a Redis Cluster node: the slot is served at `host:port`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        kind, slot, where = message.split(" ", 2)
        self.ask = kind == "ASK"
        self.slot = int(slot)
        host, _, port = where.rpartition(":")
        self.host, self.port = host, int(port)


UNAVAILABLE_REPLIES = ("LOADING", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "BUSY")
"""Error replies that mean 'not now' (a server loading, failing over, busy): retry later."""


def reply_error(message: str) -> Exception:
    """The exception for the error reply `message` (without its leading `-`).

    >>> type(reply_error("NOSCRIPT No matching script.")).__name__
    'NoScriptError'
    >>> type(reply_error("LOADING Redis is loading the dataset in memory")).__name__
    'StoreUnavailable'
    >>> reply_error("MOVED 3999 127.0.0.1:6381").port
    6381
    """
    code = message.split(" ", 1)[0]
    if code == "NOSCRIPT":
        return NoScriptError(message)
    if code in ("MOVED", "ASK"):
        return RedirectError(message)
    if code in UNAVAILABLE_REPLIES:
        return StoreUnavailable(message)
    return StoreError(message)
