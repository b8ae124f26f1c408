"""The web app's files (built from clients/web into `static/`), served by `kafana serve --http`.

`/` (and `/index.html`) is the app's page and `/assets/<file>` its scripts and styles; every
other request goes on to the RPC routes untouched. Only GET and HEAD of those paths are
answered here, from files shipped in the package (no npm at run time). The page reaches the
server only through the public API (Connect), like any other client.
"""

from __future__ import annotations

import gzip
import mimetypes
from functools import lru_cache
from pathlib import Path

from kafana.service.web.cors import App, Receive, Scope, Send

STATIC = Path(__file__).with_name("static")
PAGE_PATHS = frozenset({"/", "/index.html"})
ASSETS = "/assets/"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
"""Content-Security-Policy of the page: its own scripts and styles, calls to this server only."""
COMPRESSED = frozenset({".js", ".css", ".html", ".svg", ".json"})
"""Text files sent gzip-compressed to a browser that accepts it (the bundle: 198 KB -> ~60 KB)."""
CHUNK = 16 * 1024
"""Bytes of a file sent at a time."""


@lru_cache(maxsize=64)  # the package ships a handful of files: each read once
def contents(path: Path, mtime_ns: int) -> bytes:
    """`path`'s bytes, shared by every request (`mtime_ns` keys the cache: a rebuilt file is
    read anew). Read per request, 10 HTTP/2 connections x 900 streams reset at once took RSS
    from 378 to 2,437 MB (each request started, with its own 241 KB copy of the bundle)."""
    return path.read_bytes()


@lru_cache(maxsize=64)
def gzipped(path: Path, mtime_ns: int) -> bytes:
    """`path` compressed, once (keyed as `contents`)."""
    return gzip.compress(contents(path, mtime_ns), compresslevel=9, mtime=0)


def accepts_gzip(scope: Scope) -> bool:
    """Whether the request's Accept-Encoding names gzip (without q=0)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"accept-encoding":
            for item in value.decode("latin-1").lower().split(","):
                coding, _, params = item.strip().partition(";")
                if coding.strip() in ("gzip", "*") and params.replace(" ", "") != "q=0":
                    return True
    return False


def asset(path: str) -> Path | None:
    """The file of a request path, or None when it is not one of the app's files."""
    if path in PAGE_PATHS:
        found = STATIC / "index.html"
    elif path.startswith(ASSETS):
        name = path[len(ASSETS) :]
        if not name or "/" in name or "\\" in name or name.startswith("."):
            return None
        found = STATIC / "assets" / name
    else:
        return None
    try:
        return found if found.is_file() else None
    except OSError:  # a name the file system refuses (too long): no such file
        return None


class Pages:
    """ASGI middleware: the app's files for GET/HEAD of `/` and `/assets/*`, else `app`."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a request for one of the app's files; pass any other on."""
        found = None
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            found = asset(scope["path"])
        if found is None:
            await self.app(scope, receive, send)
            return
        compress = found.suffix in COMPRESSED and accepts_gzip(scope)
        mtime_ns = found.stat().st_mtime_ns
        body = gzipped(found, mtime_ns) if compress else contents(found, mtime_ns)
        kind = TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0] or "text/html"
        if kind == "text/html":
            kind = "text/html; charset=utf-8"
        # Asset names carry their content's hash: cached for good; the page is checked again.
        cache = "no-cache" if found.name == "index.html" else "public, max-age=31536000, immutable"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", cache.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"content-security-policy", POLICY.encode()),
            (b"referrer-policy", b"no-referrer"),
            (b"vary", b"accept-encoding"),
        ]
        if compress:
            headers.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if scope["method"] == "HEAD":
            body = b""
        # In chunks: each is sent as the client takes the last (an HTTP/2 stream holds about
        # two at most), not the whole file held for a client that never reads it.
        for start in range(0, max(len(body), 1), CHUNK):
            end = start + CHUNK
            await send(
                {
                    "type": "http.response.body",
                    "body": body[start:end],
                    "more_body": end < len(body),
                }
            )
