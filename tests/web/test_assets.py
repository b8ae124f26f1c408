"""The web app shipped in the Python package: built from the sources committed beside it, and
served by `kafana.service.web.pages` without touching the RPC routes."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import re
from pathlib import Path
from typing import Any

from kafana.service.web.pages import STATIC, Pages
from kit import spy

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "clients" / "web"
TOP = ("index.html", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts")


COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*)")


def code(path: Path) -> bytes:
    """A source as the digest reads it: a .ts file without its whole-line comments."""
    if path.suffix != ".ts":
        return path.read_bytes()
    lines = path.read_text(encoding="utf-8").split("\n")
    return "\n".join(line for line in lines if not COMMENT_LINE.match(line)).encode()


def source_digest() -> str:
    """The digest clients/web/scripts/stamp.mjs writes to static/BUILD (the same files; the
    bundle carries no comments, so a .ts file's whole-line comments are left out)."""
    paths = [WEB / name for name in TOP]
    paths += [p for p in (WEB / "src").rglob("*") if p.is_file()]
    paths += [p for p in (REPO / "clients" / "ts" / "src").rglob("*") if p.is_file()]
    digest = hashlib.sha256()
    for name in sorted(p.relative_to(REPO).as_posix() for p in paths):
        digest.update(name.encode() + b"\0" + code(REPO / name) + b"\0")
    return digest.hexdigest()


def test_committed_build_is_current() -> None:
    stamp = (STATIC / "BUILD").read_text().strip()
    assert stamp == source_digest(), (
        "server/kafana/service/web/static is older than its sources: "
        "run `npm ci && npm run build` in clients/web and commit the result"
    )


def test_page_names_only_files_that_ship() -> None:
    page = (STATIC / "index.html").read_text()
    named = re.findall(r'(?:src|href)="\./(assets/[^"]+)"', page)
    assert any(n.endswith(".js") for n in named) and any(n.endswith(".css") for n in named)
    for name in named:
        assert (STATIC / name).is_file(), name


async def call(
    app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request through the ASGI `app`: status, headers, body."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": headers or []}
    await app(scope, receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


class Rpc:
    """Stands in for the RPC application: records what reached it."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.paths.append(f"{scope['method']} {scope['path']}")
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b"rpc"})


def test_pages_serve_the_app_and_pass_everything_else_on() -> None:
    rpc = Rpc()
    app = Pages(rpc)
    script = next((STATIC / "assets").glob("*.js")).name

    async def run() -> None:
        status, headers, body = await call(app, "GET", "/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert b'id="app"' in body and headers["cache-control"] == "no-cache"
        assert "connect-src 'self'" in headers["content-security-policy"]
        status, headers, body = await call(app, "GET", f"/assets/{script}")
        assert status == 200 and headers["content-type"].startswith("text/javascript")
        assert "immutable" in headers["cache-control"] and len(body) > 1000
        status, _, body = await call(app, "HEAD", "/index.html")
        assert status == 200 and body == b""
        for method, path in [
            ("POST", "/kafana.v1.KafanaService/ListTables"),
            ("GET", "/kafana.v1.KafanaService/GetState"),
            ("GET", "/assets/../pages.py"),
            ("GET", "/assets/missing.js"),
            ("POST", "/"),
        ]:
            assert (await call(app, method, path))[0] == 418
        assert rpc.paths[0] == "POST /kafana.v1.KafanaService/ListTables"
        assert len(rpc.paths) == 5

    asyncio.run(run())


def test_a_comment_does_not_need_a_rebuild_but_code_does(tmp_path: Path) -> None:
    plain, commented, changed = tmp_path / "a.ts", tmp_path / "b.ts", tmp_path / "c.ts"
    plain.write_text("const a = 1;\nexport { a };\n")
    commented.write_text("/**\n * The answer.\n */\nconst a = 1; // one\n// x\nexport { a };\n")
    changed.write_text("const a = 2;\nexport { a };\n")
    assert code(plain) != code(commented)  # a comment after code counts
    commented.write_text("/**\n * The answer.\n */\nconst a = 1;\n  // x\nexport { a };\n")
    assert code(plain) == code(commented) != code(changed)


def test_assets_go_gzip_compressed_to_a_browser_that_accepts_it() -> None:
    """The bundle compressed for `Accept-Encoding: gzip` (it went out whole: 198 KB), the
    same bytes once inflated; plain for a client that does not ask, or refuses gzip."""
    app = Pages(Rpc())
    script = next((STATIC / "assets").glob("*.js"))
    browser = [(b"accept-encoding", b"gzip, deflate, br, zstd")]

    async def run() -> None:
        status, headers, body = await call(app, "GET", f"/assets/{script.name}", browser)
        assert status == 200 and headers["content-encoding"] == "gzip"
        assert headers["vary"] == "accept-encoding"
        assert int(headers["content-length"]) == len(body) < script.stat().st_size // 2
        assert gzip.decompress(body) == script.read_bytes()
        _, headers, body = await call(app, "GET", "/", browser)
        assert headers["content-encoding"] == "gzip" and b'id="app"' in gzip.decompress(body)
        for plain in ([], [(b"accept-encoding", b"gzip;q=0, identity")]):
            _, headers, body = await call(app, "GET", f"/assets/{script.name}", plain)
            assert "content-encoding" not in headers and body == script.read_bytes()

    asyncio.run(run())


def test_a_file_is_read_once_and_shared_by_every_request(monkeypatch: Any) -> None:
    # A review (7 Dec): each request for a file without gzip read its own copy (241 KB for the
    # bundle); HTTP/2 streams reset at once still started the app, so 10 connections x 900
    # requests (~100 KB sent) took RSS from 378 MB to 2,437 MB
    reads = spy(monkeypatch, Path, "read_bytes")
    script = next((STATIC / "assets").glob("*.js")).name
    app = Pages(Rpc())

    async def run() -> list[bytes]:
        return [(await call(app, "GET", f"/assets/{script}"))[2] for _ in range(5)]

    bodies = asyncio.run(run())
    assert len(set(bodies)) == 1 and len(bodies[0]) > 1000
    assert [path.name for (path,) in reads].count(script) <= 1  # cached before: 0
