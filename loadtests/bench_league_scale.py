"""A league at scale: thousands of bot accounts on several `kafana serve` processes, one Redis.

Starts its own redis-server on a free loopback port (never the shared one), makes the accounts
in it (an organiser and `--accounts` bots, each with its API key), starts `--servers` processes
(`kafana serve --redis ... --auth required`), creates a league on them with the organiser's key
and runs `--drivers` load-generator processes (`league_driver.py`): each multiplexes its share
of the accounts on a few channels per server, every call with its account's key, and keeps
`--active` accounts playing (the SDK's `play_league`: ticket stream, queue, seat loop, a fast
bot) for `--duration` seconds. Then it prints:

* rated matches per second (settled in the measured window), matches and accounts that played;
* ticket-to-first-move p50/p99 (a match's creation to the first move on its table, server
  clock) and ticket delivery p50/p99 (creation to the player's stream);
* the three consistency checks of `league_checks.py`: every match settled once and rated once,
  no seat taken by anyone else, the leaderboard equal to the rated results replayed.

Exit status 1 if a check fails.

    .venv/bin/python loadtests/bench_league_scale.py                  # 10,000 accounts, 5 min
    .venv/bin/python loadtests/bench_league_scale.py --quick          # 200 accounts, 30 s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / d) for d in ("server", "bots", "clients")]

import league_checks  # noqa: E402
import psutil  # type: ignore[import-untyped, unused-ignore]  # noqa: E402
from kafana.service.accounts_book import AccountBook  # noqa: E402
from kafana.store.accounts_redis import RedisAccounts  # noqa: E402
from kafana.store.client import RedisClient  # noqa: E402
from kafana.store.redis_server import free_port, redis_server  # noqa: E402
from kafana_client.connection import ConnectOptions, Deadlines  # noqa: E402
from kafana_client.keyed import keyed_client  # noqa: E402
from kafana_client.leagues import Leagues  # noqa: E402
from run import stop  # noqa: E402

KAFANA = str(Path(sys.executable).parent / "kafana")
LEAGUE = "bench"
QUICK = {"accounts": 200, "servers": 2, "drivers": 1, "active": 100, "duration": 30.0}
CHECKERS = 64  # accounts whose keys the checks' reads take turns with


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The benchmark's options (`--quick`: the small run CI uses)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--accounts", type=int, default=10_000)
    p.add_argument("--servers", type=int, default=2, help="kafana serve processes")
    p.add_argument("--drivers", type=int, default=2, help="load-generator processes")
    p.add_argument("--channels", type=int, default=2, help="channels per server per driver")
    p.add_argument("--active", type=int, default=1000, help="accounts playing at once")
    p.add_argument("--duration", type=float, default=300.0, help="seconds of play")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds not measured")
    p.add_argument("--watchers", type=int, default=0, help="accounts holding only a ticket stream")
    p.add_argument("--target", type=int, default=11, help="points to win a match")
    p.add_argument("--move-ms", type=int, default=10_000, help="the league's clock")
    p.add_argument("--join-deadline-ms", type=int, default=10_000)
    p.add_argument("--bot", default="random", help="the bots' registry name")
    p.add_argument(
        "--band-edges", default="", help="the league's rating bands, e.g. 23,27 (none: one band)"
    )
    p.add_argument("--quick", action="store_true", help=f"a small run: {QUICK}")
    p.add_argument("--json", default="", help="write every figure here")
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    args = p.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            if getattr(args, name) == p.get_default(name):
                setattr(args, name, value)
        args.warmup = min(args.warmup, 5.0)
    return args


async def make_accounts(url: str, count: int) -> dict[str, str]:
    """An organiser ("org") and `count` bot accounts in the store: {name: key}."""
    client = RedisClient.from_url(url)
    try:
        book = AccountBook(RedisAccounts(client))
        keys = {"org": (await book.create("org", "organiser"))[1]}
        names = [f"bot{i:05d}" for i in range(count)]
        for start in range(0, count, 500):
            made = await asyncio.gather(
                *(book.create(n, "bot") for n in names[start : start + 500])
            )
            keys.update((account.name, key) for account, key in made)
        return keys
    finally:
        await client.close()


def start_servers(url: str, count: int, work: Path, stack: ExitStack) -> list[tuple[str, Any]]:
    """`count` `kafana serve` processes on free ports: (target, process), once serving."""
    servers = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    for _ in range(count):
        port = free_port()
        log = open(work / f"serve-{port}.log", "wb")  # noqa: SIM115 (closed by the stack)
        stack.callback(log.close)
        command = [KAFANA, "serve", "--redis", url, "--auth", "required", "--port", str(port)]
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        stack.callback(stop, process, 20.0)
        servers.append((f"127.0.0.1:{port}", process, work / f"serve-{port}.log"))
    deadline = time.monotonic() + 60
    for _target, process, log_path in servers:
        while b"serving on port" not in log_path.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"kafana serve did not start:\n{log_path.read_text()}")
            time.sleep(0.1)
    return [(target, process) for target, process, _log in servers]


async def create_league(target: str, key: str, args: argparse.Namespace) -> None:
    """The league, made with the organiser's key."""
    channel = ConnectOptions(target).aio_channel()
    try:
        client = keyed_client(channel, key)
        await client.wait_ready(30)
        await Leagues(client).create(
            LEAGUE,
            target=args.target,
            move_ms=args.move_ms,
            join_deadline_ms=args.join_deadline_ms,
            band_edges=[float(e) for e in args.band_edges.split(",") if e.strip()],
        )
    finally:
        await channel.close()


def run_drivers(
    args: argparse.Namespace, targets: list[str], keys_path: Path, work: Path
) -> list[Any]:
    """The load generators, side by side; what each saw."""
    processes = []
    per_driver = max(1, args.active // args.drivers)
    for i in range(args.drivers):
        out = work / f"driver-{i}.json"
        log = open(work / f"driver-{i}.log", "wb")  # noqa: SIM115 (closed below)
        command = [
            sys.executable, str(Path(__file__).with_name("league_driver.py")),
            "--keys", str(keys_path), "--servers", ",".join(targets), "--league", LEAGUE,
            "--index", str(i), "--of", str(args.drivers), "--channels", str(args.channels),
            "--active", str(per_driver), "--duration", str(args.duration),
            "--bot", args.bot, "--out", str(out),
            "--watchers", str(args.watchers // args.drivers),
        ]  # fmt: skip
        processes.append(
            (subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT), log, out)
        )
    results = []
    for process, log, out in processes:
        code = process.wait()
        log.close()
        if code != 0 or not out.exists():
            raise SystemExit(f"a driver failed ({code}):\n{Path(log.name).read_text()[-4000:]}")
        results.append(json.loads(out.read_text()))
    return results


async def wait_settled(clients: list[Any], limit_s: float) -> None:
    """Until every match made is settled (no-shows and forfeits take the league's deadlines)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        info = await Leagues(clients[0]).get(LEAGUE)
        if info.matches_settled >= info.matches_made:
            return
        await asyncio.sleep(1.0)


def percentiles(values: list[float]) -> tuple[float, float]:
    """(p50, p99); (nan, nan) for no values."""
    if not values:
        return float("nan"), float("nan")
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered), p99


async def check(
    targets: list[str], keys: dict[str, str], drivers: list[Any], args: argparse.Namespace
) -> dict[str, Any]:
    """Fetch the league's published data and run the checks; the figures."""
    names = [n for n in sorted(keys) if n != "org"][:CHECKERS]
    channels = [ConnectOptions(t, deadlines=Deadlines(default=60.0)).aio_channel() for t in targets]
    try:
        clients = [keyed_client(channels[i % len(channels)], keys[n]) for i, n in enumerate(names)]
        await wait_settled(clients, 30 + 4 * (args.move_ms + args.join_deadline_ms) / 1000)
        data = await league_checks.published(clients, LEAGUE)
    finally:
        for channel in channels:
            await channel.close()
    tickets = [t for d in drivers for t in d["tickets"]]
    told = [s for d in drivers for s in d["settled"]]
    started = min(d["started"] for d in drivers) * 1000
    ended = max(d["ended"] for d in drivers) * 1000
    window = (started + args.warmup * 1000, ended)
    rated = [m for m in data.matches.values() if m.rated]
    in_window = [m for m in rated if window[0] <= m.settled_ms <= window[1]]
    first = league_checks.first_moves_ms(data)
    delivery = [t["received_ms"] - t["created_ms"] for t in tickets]
    checks = {
        "settled once and rated once": league_checks.settled_once(data, told),
        "no seat taken by anyone else": league_checks.seats_kept(data, tickets),
        "leaderboard = rated results replayed": league_checks.board_replayed(data),
    }
    bands = len(data.info.band_matches) or 1
    played_in: dict[str, set[int]] = {}
    for m in data.matches.values():
        for p in m.players:
            played_in.setdefault(p, set()).add(m.match % bands)
    return {
        "band_matches": list(data.info.band_matches),
        "moved_band": sum(1 for seen in played_in.values() if len(seen) > 1),
        "matches_made": int(data.info.matches_made),
        "matches_settled": int(data.info.matches_settled),
        "rated": len(rated),
        "endings": league_checks.endings(data),
        "rated_per_s": len(in_window) / max(1e-9, (window[1] - window[0]) / 1000),
        "window_s": (window[1] - window[0]) / 1000,
        "accounts_played": len({p for m in data.matches.values() for p in m.players}),
        "board_size": len(data.board),
        "first_move_ms": percentiles([float(v) for v in first]),
        "delivery_ms": percentiles([float(v) for v in delivery]),
        "activations": sum(d["activations"] for d in drivers),
        "driver_errors": [e for d in drivers for e in d["errors"]][:20],
        "unfinished_slots": sum(d["unfinished"] for d in drivers),
        "watchers": sum(d.get("watchers", 0) for d in drivers),
        "heartbeats": sum(d.get("heartbeats", 0) for d in drivers),
        "checks": checks,
    }


def report(args: argparse.Namespace, figures: dict[str, Any]) -> bool:
    """Print the figures and the checks; whether every check holds."""
    p50, p99 = figures["first_move_ms"]
    d50, d99 = figures["delivery_ms"]
    print(
        f"league of {args.accounts:,} accounts on {args.servers} servers, {args.drivers} drivers "
        f"x {args.channels} channels per server, {args.active} playing at once, "
        f"target {args.target}, {args.bot} bots, {args.duration:.0f} s"
        + (f"; {figures['watchers']:,} more only watching their tickets" if args.watchers else "")
    )
    print(
        f"matches: {figures['matches_made']} made, {figures['matches_settled']} settled, "
        f"{figures['rated']} rated; {figures['accounts_played']:,} accounts played; "
        f"board {figures['board_size']:,} players"
    )
    if figures["band_matches"]:
        print(
            f"rating bands: {figures['band_matches']} matches made in each; "
            f"{figures['moved_band']} accounts played in more than one"
        )
    print(f"endings: {figures['endings']}")
    print(
        f"rated matches per second: {figures['rated_per_s']:.1f} "
        f"(over {figures['window_s']:.0f} s after a {args.warmup:.0f} s warm-up)"
    )
    print(f"ticket to first move: p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    print(f"ticket delivery: p50 {d50:.0f} ms, p99 {d99:.0f} ms")
    cpu = figures.get("cpu_s", {})
    if cpu:
        print(
            "CPU seconds: "
            + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
            + f"; load average {figures['load']}"
        )
    if figures["driver_errors"]:
        print(f"driver errors ({len(figures['driver_errors'])} shown): {figures['driver_errors']}")
    ok = True
    for name, problems in figures["checks"].items():
        print(f"check {name}: {'OK' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  {problem}")
        ok = ok and not problems
    return ok


def main() -> None:
    """Run the benchmark; exit 1 when a check fails."""
    args = parse()
    work = Path(tempfile.mkdtemp(prefix="kafana-league-scale-"))
    with ExitStack() as stack:
        redis = stack.enter_context(redis_server(work / "redis"))
        t0 = time.monotonic()
        keys = asyncio.run(make_accounts(redis.url, args.accounts))
        print(f"{len(keys) - 1:,} accounts made in {time.monotonic() - t0:.1f} s", flush=True)
        keys_path = work / "keys.json"
        keys_path.write_text(json.dumps({k: v for k, v in keys.items() if k != "org"}))
        servers = start_servers(redis.url, args.servers, work, stack)
        targets = [target for target, _process in servers]
        asyncio.run(create_league(targets[0], keys["org"], args))
        watched = [psutil.Process(process.pid) for _t, process in servers]
        watched.append(psutil.Process(redis.process.pid) if redis.process else psutil.Process())
        before = [sum(p.cpu_times()[:2]) for p in watched]
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        drivers = run_drivers(args, targets, keys_path, work)
        after = [sum(p.cpu_times()[:2]) for p in watched]
        waited = resource.getrusage(resource.RUSAGE_CHILDREN)  # the drivers: they have ended
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        figures = asyncio.run(check(targets, keys, drivers, args))
        figures["cpu_s"] = {
            **{f"server{i}": after[i] - before[i] for i in range(len(servers))},
            "redis": after[-1] - before[-1],
            "drivers": waited.ru_utime + waited.ru_stime - children.ru_utime - children.ru_stime,
        }
        figures["load"] = load
    ok = report(args, figures)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), **figures}, indent=1))
    if args.keep:
        print(f"work directory kept: {work}")
    else:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
