"""A third-party Node client on the API (issue 17, "What it must show").

The scripts beside this file are what a JavaScript developer writes from `proto/` and the docs:
they use only the generated code of `clients/ts` (protobuf-es v2, `src/gen`) and the Connect
runtime, over gRPC (HTTP/2, `kafana serve --port`) and over the browser protocols (Connect and
gRPC-Web on fetch, `kafana serve --http`); `client.mjs` alone uses the package's hand-written
layer instead. Each plays against real `kafana serve` processes on the session's private
redis-server and prints its figures as one JSON line. `outside.mjs` is an app outside the
repository: it runs in a temporary folder where the package was installed from its packed
tarball as docs/clients.md says, and plays a whole match through a SIGKILL of the server.

The npm packages come from `npm ci` (clients/ts, then this folder), rerun whenever a
package-lock.json changes: a clean clone needs nothing installed by hand.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from signal import SIGKILL, SIGTERM
from typing import Any

import pytest
from kit import RedisServer, Served, flush, free_port, serve

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parents[1] / "clients" / "ts"
PROTOCOLS = ("grpc", "connect", "grpcweb")  # gRPC on HTTP/2; the browser protocols on fetch
SCRIPT_LIMIT_S = 60.0
STAMP = ".kafana-npm-ci"  # in node_modules: the package-lock.json digest npm ci installed


def tool(name: str) -> str:
    """The path of `name` (node, npm); fails (not skips) when it is missing: CI has both."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not on PATH: the third-party client tests need Node.js 20+")
    return path


def run_npm(directory: Path, *args: str, limit: float = 180.0) -> str:
    """`npm ARGS` in `directory`: its output; a failure shows all of it."""
    done = subprocess.run(
        [tool("npm"), *args],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=limit,
    )
    assert done.returncode == 0, f"npm {' '.join(args)} in {directory}:\n{done.stdout}{done.stderr}"
    output: str = done.stdout
    return output


def npm_ci(directory: Path) -> None:
    """`npm ci` in `directory` unless node_modules holds exactly its package-lock.json."""
    lock = (directory / "package-lock.json").read_bytes()
    digest = hashlib.sha256(lock).hexdigest()
    stamp = directory / "node_modules" / STAMP
    if stamp.exists() and stamp.read_text() == digest:
        return
    run_npm(directory, "ci", "--no-audit", "--no-fund")
    stamp.write_text(digest)


def build(directory: Path) -> None:
    """The package's `prepare` (tsc: src/ to dist/), which skips a dist/ built from the same
    sources (clients/ts/scripts/prepare.mjs)."""
    run_npm(directory, "run", "prepare")


@pytest.fixture(scope="module")
def node_app() -> Path:
    """The client package installed and built (dist/), and this folder's app installed."""
    tool("node")
    npm_ci(CLIENT)
    build(CLIENT)
    npm_ci(HERE)
    return HERE


def wait_port(port: int, within: float = 30.0) -> None:
    """Until something accepts connections on 127.0.0.1:`port`."""
    deadline = time.monotonic() + within
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"nothing listens on port {port} after {within} s"
        time.sleep(0.05)


@dataclass
class Server:
    """One `kafana serve` with its gRPC port and its HTTP (Connect, gRPC-Web) port."""

    served: Served
    http: int
    args: tuple[str, ...]

    def url(self, protocol: str) -> str:
        """The base URL a client of `protocol` calls."""
        port = self.served.port if protocol == "grpc" else self.http
        return f"http://127.0.0.1:{port}"

    def stop(self, sig: int = SIGTERM) -> None:
        """Stop it (SIGTERM: graceful; SIGKILL: a crash) and wait for it to exit."""
        self.served.stop(sig)

    def again(self, directory: Path) -> None:
        """Start it again on the same ports (after `stop`)."""
        self.served = start(directory, self.args, self.served.port, self.http).served


def start(directory: Path, args: tuple[str, ...], port: int | None = None, http: int = 0) -> Server:
    """`kafana serve ARGS --http HTTP` (free ports unless given), once both ports answer."""
    http = http or free_port()
    served = serve(directory, *args, "--http", str(http), port=port)
    try:
        served.wait_started()
        wait_port(http)
    except BaseException:
        served.end()
        raise
    return Server(served, http, args)


@pytest.fixture(scope="module")
def redis(private_redis: RedisServer) -> str:
    """The session's private redis-server, emptied once for this module: its URL."""
    return flush(private_redis)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, redis: str) -> Iterator[Server]:
    """The server most scripts play on: Redis, no API key needed, no table quotas (the paging
    script creates 520 tables per protocol)."""
    args: tuple[str, ...] = ("--redis", redis, "--auth", "open", "--grace", "1")
    args += ("--tables-per-hour", "0", "--open-tables", "0")
    running = start(tmp_path_factory.mktemp("serve"), args)
    yield running
    running.served.end()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that allows 2 calls a second after a burst of 5."""
    args = ("--memory", "--auth", "open", "--rate-limit", "2", "--rate-burst", "5")
    running = start(tmp_path_factory.mktemp("limited"), args)
    yield running
    running.served.end()


def launch(
    script: str, protocol: str, url: str, *args: str, directory: Path = HERE
) -> subprocess.Popen[str]:
    """Start `node SCRIPT PROTOCOL URL ARGS` in `directory`, its stdin and output piped."""
    return subprocess.Popen(
        [tool("node"), str(directory / script), protocol, url, *args],
        cwd=directory,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(
    processes: dict[str, subprocess.Popen[str]], script: str, limit: float = SCRIPT_LIMIT_S
) -> dict[str, dict[str, Any]]:
    """Wait for every process (keyed by protocol, or a label), `limit` seconds each; the figures
    of each (its last line, JSON). Every failure is reported, with its output."""
    outputs = {}
    try:
        for protocol, process in processes.items():
            outputs[protocol] = process.communicate(timeout=limit)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    failed = [
        f"node {script} {key} (exit {processes[key].returncode}):\n{out}{err}"
        for key, (out, err) in outputs.items()
        if processes[key].returncode != 0
    ]
    assert not failed, "\n".join(failed)
    figures = {p: json.loads(out.strip().splitlines()[-1]) for p, (out, _) in outputs.items()}
    assert all(f["ok"] is True for f in figures.values())
    return figures


def node(
    script: str, server: Server, *args: str, protocols: tuple[str, ...] = PROTOCOLS
) -> dict[str, dict[str, Any]]:
    """Run `script` over every protocol at once against `server`: each protocol's figures."""
    processes = {p: launch(script, p, server.url(p), *args) for p in protocols}
    return finish(processes, script)


def test_generated_code_is_current(node_app: Path) -> None:
    """clients/ts/src/gen is what `buf generate` makes from proto/ now."""
    run_npm(CLIENT, "run", "check:gen", limit=60)


def test_client_layer(node_app: Path) -> None:
    """@kafana/client's feed and refusal decoding on an in-memory service (npm test)."""
    run_npm(CLIENT, "test", limit=60)


def test_whole_tablic_match(node_app: Path, server: Server) -> None:
    """Two seats play a Tablić match to its end with target and rank_priority set."""
    for figures in node("tablic.mjs", server).values():
        assert figures["moves"] >= 96  # two hands at least: 48 cards a hand
        assert max(figures["scores"]) >= 40
        assert figures["events"] == figures["moves"] + 2  # two seats taken, then only moves


def test_whole_tac_game(node_app: Path, server: Server) -> None:
    """Three seats play Tač with tac_calls and play_on to the last place; a Tač! call is made.
    Over gRPC and Connect only: its 278 moves are the suite's largest cost, and gRPC-Web runs
    the same calls in the Tablić match."""
    for figures in node("tac.mjs", server, protocols=("grpc", "connect")).values():
        assert sorted(figures["places"]) == [1, 2, 3]
        assert figures["penalty"] > 0


def test_error_reasons(node_app: Path, server: Server) -> None:
    """Refusals carry ErrorInfo with the reason and code errors.proto gives."""
    for figures in node("errors.mjs", server).values():
        assert figures["reasons"]["ILLEGAL_MOVE"] == "InvalidArgument"
        assert len(figures["reasons"]) == 11


def test_rate_limit(node_app: Path, limited: Server) -> None:
    """A burst over the rate limit: RESOURCE_EXHAUSTED, RATE_LIMITED, RetryInfo."""
    for figures in node("ratelimit.mjs", limited).values():
        assert figures["refused"] > 0
        assert 0 < figures["retryMillis"] <= 5000


def test_pages_through_more_than_500_tables(node_app: Path, server: Server) -> None:
    """ListTables' page_token walks more than 500 tables, max_page_size at a time: each
    protocol creates 175 tables (in parallel), then each pages through all 525."""
    run = secrets.token_hex(4)
    processes = {p: launch("pages.mjs", p, server.url(p), "175", "525", run) for p in PROTOCOLS}
    for protocol, process in processes.items():
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("CREATED"):
            finish(processes, "pages.mjs")  # reports the failure with the scripts' output
            pytest.fail(f"pages.mjs {protocol} said {line!r}, not CREATED")
    for process in processes.values():
        assert process.stdin is not None
        process.stdin.write("LIST\n")
        process.stdin.flush()
    for figures in finish(processes, "pages.mjs").values():
        assert figures["runs"] >= 525
        assert len(figures["pages"]) >= 2
        assert figures["pages"][0] == 500


def test_feed_resumes_across_restart(node_app: Path, server: Server, tmp_path: Path) -> None:
    """The server stops mid-match: every protocol's feed ends UNAVAILABLE (SERVER_STOPPING), a
    call fails while no server runs, and the feed resumed with after_seq goes on with the next
    event once another server runs on the same ports and Redis. The same through the client
    layer of @kafana/client, whose feed reconnects by itself (client.mjs)."""
    processes = {f"resume {p}": launch("resume.mjs", p, server.url(p)) for p in PROTOCOLS}
    processes |= {f"client {p}": launch("client.mjs", p, server.url(p)) for p in PROTOCOLS}
    said: dict[str, list[str]] = {key: [] for key in processes}

    def expect(prefix: str) -> dict[str, list[str]]:
        words = {}
        for key, process in processes.items():
            line = process.stdout.readline() if process.stdout else ""
            said[key].append(line)
            if not line.startswith(prefix):
                process.kill()
                _, err = process.communicate(timeout=10)
                lines = "".join(said[key])
                pytest.fail(f"{key}: wanted {prefix}:\n{lines}{err}")
            words[key] = line.split()[1:]
        return words

    try:
        expect("WATCHING")
        server.stop()
        for key, words in expect("STOPPED").items():
            assert words == ["Unavailable", "SERVER_STOPPING"], key
        for process in processes.values():
            assert process.stdin is not None
            process.stdin.write("DOWN\n")
            process.stdin.flush()
        refused = expect("REFUSED")
        assert refused["resume grpc"] == refused["client grpc"] == ["Unavailable"]
    finally:
        if server.served.process.poll() is not None:
            server.again(tmp_path)
    for key, figures in finish(processes, "resume.mjs / client.mjs").items():
        if key.startswith("resume"):
            assert figures["streamEnd"] == "Unavailable SERVER_STOPPING", key
            assert figures["resumedFrom"] == figures["before"] + 1, key
        else:
            assert figures["firstReconnect"] == "SERVER_STOPPING", key
            assert figures["events"] == 9, key  # 2 seats, 3 moves, a restart, 3 moves, closed


def new_app(directory: Path) -> Path:
    """An empty Node app (ES modules) in `directory`, outside the repository."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {"name": directory.name.lower(), "private": True, "type": "module"}
    (directory / "package.json").write_text(json.dumps(manifest))
    return directory


@pytest.fixture(scope="module")
def outside_app(node_app: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An app in a temporary folder with @kafana/client installed as docs/clients.md says:
    `npm pack` of clients/ts, then `npm install` of the tarball (its dependencies from the
    registry); outside.mjs copied in."""
    app = new_app(tmp_path_factory.mktemp("outside-app"))
    packed = json.loads(run_npm(app, "pack", "--json", str(CLIENT)))
    tarball = packed[0]["filename"]
    shipped = {entry["path"] for entry in packed[0]["files"]}
    assert {"dist/index.js", "dist/index.d.ts", "dist/node.js", "dist/web.js"} <= shipped
    assert not any(path.startswith(("test/", "node_modules/")) for path in shipped)
    run_npm(app, "install", "--no-audit", "--no-fund", f"./{tarball}")
    shutil.copy(HERE / "outside.mjs", app)
    return app


# Node's gRPC (HTTP/2), Connect and gRPC-Web (HTTP/1.1), and a page's Connect and gRPC-Web (fetch)
OUTSIDE_PROTOCOLS = ("grpc", "connect", "grpcweb", "connect-fetch", "grpcweb-fetch")


def test_outside_app_plays_through_a_sigkill(outside_app: Path, redis: str, tmp_path: Path) -> None:
    """An app installed from the tarball plays a whole Tablić match per transport against a
    server bot seated by the one CreateTable call, with a hint (Analyze) before every move of
    its own; halfway the server is SIGKILLed and another starts on the same ports and Redis:
    calls are retried, the new server plays the bot on, and the feed resumes with every event
    once. On the old client the feeds of Node's transports gave up (Canceled, Aborted)."""
    args = ("--redis", redis, "--auth", "open", "--self-register")
    running = start(tmp_path / "first", args)
    processes = {
        p: launch("outside.mjs", p, running.url(p), directory=outside_app)
        for p in OUTSIDE_PROTOCOLS
    }
    try:
        for protocol, process in processes.items():
            line = process.stdout.readline() if process.stdout else ""
            if not line.startswith("HALFWAY"):
                finish(processes, "outside.mjs")  # reports the failure with the output
                pytest.fail(f"outside.mjs {protocol} said {line!r}, not HALFWAY")
        running.stop(SIGKILL)
        for process in processes.values():
            assert process.stdin is not None
            process.stdin.write("GO\n")
            process.stdin.flush()
        time.sleep(0.5)  # the apps' calls find no server
        running.again(tmp_path / "second")
        # five matches at once against the server's bots: about a minute on 2 cores at load 18
        for protocol, figures in finish(processes, "outside.mjs", limit=180).items():
            assert figures["moves"] >= 48, protocol  # a whole match: two hands at least
            assert figures["hints"] == figures["moves"], protocol
            assert abs(figures["botMoves"] - figures["moves"]) <= 1, protocol
            # 2 seats taken, then only moves
            assert figures["events"] == figures["moves"] + figures["botMoves"] + 2, protocol
            assert figures["reconnects"] >= 1 and figures["retries"] >= 1, protocol
    finally:
        running.served.end()


DOCS = HERE.parents[1] / "docs" / "clients.md"
CONTINUED = (  # what a docs example that goes on from an earlier one has from it
    'import type { KafanaClient, SeatClient } from "@kafana/client";\n'
    "declare const client: KafanaClient;\n"
    "declare const me: SeatClient;\n"
)


def docs_examples() -> list[str]:
    """The TypeScript examples of docs/clients.md's TypeScript section, each a module; one that
    uses `client` / `me` without making them gets them declared (CONTINUED)."""
    text = DOCS.read_text()
    section = text[text.index("### TypeScript and JavaScript") : text.index("### Other languages")]
    blocks = re.findall(r"^```ts\n(.*?)^```", section, flags=re.DOTALL | re.MULTILINE)
    assert len(blocks) >= 2, "docs/clients.md has no TypeScript examples"
    return [b if "const client =" in b else CONTINUED + b for b in blocks]


def test_installs_from_the_repository_path(node_app: Path, tmp_path: Path) -> None:
    """`npm install --install-links <repo>/clients/ts` (docs/clients.md): every entry point
    imports, and TypeScript finds the types through `exports`: a small app and the docs'
    TypeScript examples type-check against the installed package."""
    app = new_app(tmp_path / "path-app")
    run_npm(app, "install", "--no-audit", "--no-fund", "--install-links", str(CLIENT))
    installed = app / "node_modules" / "@kafana" / "client"
    assert not installed.is_symlink() and (installed / "dist" / "index.js").exists()
    (app / "app.ts").write_text(
        'import { KafanaClient, stringify, type Refusal } from "@kafana/client";\n'
        'import { grpcTransport } from "@kafana/client/node";\n'
        'import { connectTransport } from "@kafana/client/web";\n'
        'import { EventSchema } from "@kafana/client/gen/kafana/v1/events_pb";\n'
        'const client: KafanaClient = new KafanaClient(grpcTransport("http://127.0.0.1:1"));\n'
        'const web = new KafanaClient(connectTransport("http://127.0.0.1:1"));\n'
        "const why: Refusal | undefined = undefined;\n"
        "console.log(stringify({ seq: 1n, why }), EventSchema.typeName,"
        " typeof client.serverInfo, typeof web.join);\n"
    )
    examples = [f"docs{i}.ts" for i, _ in enumerate(docs_examples())]
    for name, example in zip(examples, docs_examples(), strict=True):
        (app / name).write_text(example)
    tsc = CLIENT / "node_modules" / "typescript" / "bin" / "tsc"
    options = ("--strict", "--skipLibCheck", "--module", "nodenext", "--target", "es2022")
    checked = subprocess.run(
        [
            tool("node"),
            str(tsc),
            *options,
            "--outDir",
            "out",
            "--types",
            "node",
            "--typeRoots",
            str(CLIENT / "node_modules" / "@types"),
            "app.ts",
            *examples,
        ],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run(
        [tool("node"), "out/app.js"], cwd=app, capture_output=True, text=True, timeout=30
    )
    assert ran.stdout.split() == ['{"seq":"1"}', "kafana.v1.Event", "function", "function"]


ESBUILD = "esbuild@0.28.2"  # a bundler, as a web app's build uses one
PAGE = """\
import { KafanaClient, stringify } from "@kafana/client";
import { connectTransport, grpcWebTransport } from "@kafana/client/web";

const answers = [];
for (const transport of [connectTransport(KAFANA_URL), grpcWebTransport(KAFANA_URL)]) {
  const info = await new KafanaClient(transport).serverInfo();
  answers.push({ api: info.api, games: info.games.length, heartbeat: info.limits.heartbeatMillis });
}
console.log(stringify(answers));
"""


def test_bundles_for_a_web_page(outside_app: Path, server: Server) -> None:
    """A page's code bundled by esbuild for the browser from the installed package: it pulls in
    no Node module (connect-node, node:*), and the bundle, run on fetch, talks Connect and
    gRPC-Web to `kafana serve --http`."""
    run_npm(outside_app, "install", "--no-audit", "--no-fund", ESBUILD)
    (outside_app / "page.js").write_text(PAGE)
    url = json.dumps(server.url("connect"))
    esbuild = outside_app / "node_modules" / ".bin" / "esbuild"
    bundled = subprocess.run(
        [
            str(esbuild),
            "page.js",
            "--bundle",
            "--minify",
            "--platform=browser",
            "--format=esm",
            f"--define:KAFANA_URL={url}",
            "--metafile=meta.json",
            "--outfile=page.bundle.mjs",
        ],
        cwd=outside_app,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bundled.returncode == 0, bundled.stdout + bundled.stderr
    inputs = json.loads((outside_app / "meta.json").read_text())["inputs"]
    assert any("@kafana/client/dist/web.js" in path for path in inputs)
    assert not [p for p in inputs if "connect-node" in p or p.startswith("node:")]
    ran = subprocess.run(
        [tool("node"), "page.bundle.mjs"],
        cwd=outside_app,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    answers = json.loads(ran.stdout)
    assert [a["api"] for a in answers] == ["kafana.v1", "kafana.v1"]
    assert all(a["games"] >= 2 and int(a["heartbeat"]) > 0 for a in answers)
