"""Instructions per move of a server process: a figure other jobs on the machine cannot move.

    .venv/bin/python loadtests/instructions.py --moves 300 900

Runs each server (the baseline servicer, then `kafana serve`) under valgrind's callgrind on a
private redis-server, plays `--moves` PlayMove calls against it from one client (whole matches
followed with the local engine, as the load test's `TableUser`), stops it and reads the
instructions it executed. Two move counts are run for each; the difference divided by the
difference in moves is the cost of one move, start-up and shutdown cancelled out. User-space
instructions only: the kernel's share of socket calls is not in it, and instructions are not
time (a cache miss costs more than an add), so it complements the load test's CPU per move on
a machine whose other jobs swing those by ±30%.

Kafana runs as `kafana serve` with its timers ticking once a minute, no once-a-second
collection and no watchdog on its Redis connections (see `KAFANA`): under valgrind those
per-second timers were charged to a few dozen moves each, more the busier the machine.
`--kafana-command` measures any other command (`kafana serve` itself, the baseline with
`--lane`); `--only` measures one server, `--keep DIR` keeps the callgrind files for
`callgrind_annotate`. `--accounts` makes a player account in the store and sends its API key
with every call, as the load test's users do, so the count includes what a keyed move costs:
the authenticator and the YOUR_TURN notices. `--parallel N` plays as N players at once (a
thread each on one channel, each with its own matches and, with `--accounts`, its own key), so
N calls are in flight as in the load runs rather than one at a time.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.games import tablic
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc, state_pb2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from kafana.store.redis_server import free_port  # noqa: E402
from run import BASELINE_COMMAND, driver_keys, redis_server, server_command, stop  # noqa: E402

# `kafana serve` as the load runs start it, but with its timers ticking every 60 s (the clock
# sweeper, the rapid-reset watch, the store's health probe), no once-a-second collection and
# no watchdog on the Redis connections: under valgrind a move takes ~50 times its wall time,
# so timers that cost per second would be charged to few moves, more of them the busier the
# machine (with them, runs of one tree differed by 4%).
KAFANA = f"{sys.executable} {Path(__file__).resolve()} --serve {{redis}} {{port}}"
SERVE = f"{Path(sys.executable).parent / 'kafana'} serve --redis {{redis}} --port {{port}}"
SERVE += " --grace 1 --rate-limit 0 --auth open"
QUIET_TICK_S = 60.0
RULES_SPEC = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)
RULES = tablic.Rules.preset("serbian", players=2)
TOTALS = re.compile(r"^(?:summary|totals): (\d+)", re.MULTILINE)


def next_move(
    state: tablic.MatchState,
    rng: random.Random,
    table_id: str,
    seq: int,
    tokens: list[str],
    metadata: tuple[tuple[str, str], ...],
) -> tuple[tablic.Move, service_pb2.PlayMoveRequest, tuple[tuple[str, str], ...]]:
    """A random legal move of the seat to move at `seq`, its PlayMove request and the call's
    metadata (`metadata` and the seat's token, from `tokens` by seat)."""
    seat = state.current_seat
    assert seat is not None
    move = rng.choice(state.legal_moves())
    request = service_pb2.PlayMoveRequest(
        table_id=table_id,
        move=state_pb2.Move(text=str(move)),
        client_move_id=str(seq + 1),
        last_seq=seq,
    )
    return move, request, (*metadata, ("kafana-seat-token", tokens[seat]))


def check_answer(answer: service_pb2.PlayMoveResponse, seq: int) -> None:
    """Refuse an answer that is not the move after `seq`."""
    if answer.event.seq != seq + 1:
        raise RuntimeError(f"move at {seq} answered seq {answer.event.seq}")


Metadata = tuple[tuple[str, str], ...]


def play(target: str, moves: int, seed: int, players: Sequence[Metadata] = ((),)) -> None:
    """`moves` PlayMove calls, whole matches one after another, as `TableUser` plays them:
    one player a thread on one channel, each with its metadata (e.g. its API key), seed and
    share of the moves (one player: the calls one at a time; more: that many in flight)."""
    with grpc.insecure_channel(target) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        shares = [moves // len(players) + (k < moves % len(players)) for k in range(len(players))]
        if len(players) == 1:
            play_matches(stub, moves, seed, players[0])
            return
        with ThreadPoolExecutor(len(players)) as pool:
            jobs = [
                pool.submit(play_matches, stub, share, seed + k, metadata)
                for k, (share, metadata) in enumerate(zip(shares, players, strict=True))
            ]
            for job in jobs:
                job.result()


def play_matches(stub: Any, moves: int, seed: int, metadata: Metadata) -> None:
    """One player's `moves` PlayMove calls, one after another (see `play`)."""
    rng = random.Random(seed)
    done = 0
    while done < moves:
        match_seed = rng.getrandbits(63)
        config = rules_pb2.TableConfig(rules=RULES_SPEC, seed=match_seed)
        created = stub.CreateTable(service_pb2.CreateTableRequest(config=config), metadata=metadata)
        table_id = created.table_id
        joined = [
            stub.JoinTable(
                service_pb2.JoinTableRequest(table_id=table_id, seat=s), metadata=metadata
            )
            for s in range(2)
        ]
        seq = max(j.state.seq for j in joined)
        state = tablic.new_match(RULES, seed=match_seed)
        tokens = [j.seat_token for j in joined]
        while not state.is_over and done < moves:
            move, request, call = next_move(state, rng, table_id, seq, tokens, metadata)
            check_answer(stub.PlayMove(request, timeout=60, metadata=call), seq)
            seq += 1
            done += 1
            state = state.apply(move)


def wait_serving(port: int, process: subprocess.Popen[bytes], timeout: float = 900.0) -> None:
    """Until a gRPC channel to the port is ready (valgrind starts Python slowly)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                grpc.channel_ready_future(channel).result(timeout=2)
                return
            except grpc.FutureTimeoutError:
                continue
    raise RuntimeError(f"no server on port {port} after {timeout} s")


def instructions(
    template: str,
    redis_url: str,
    moves: int,
    work: Path,
    seed: int,
    players: Sequence[Metadata] = ((),),
) -> int:
    """Instructions a server executed, from start to exit, serving `moves` moves
    (`players`: see `play`)."""
    port = free_port()
    out = work / f"callgrind.{moves}.{port}"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    command += server_command(template, redis_url, port)
    with open(work / f"server.{port}.log", "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    try:
        wait_serving(port, process)
        play(f"127.0.0.1:{port}", moves, seed, players)
    finally:
        stop(process, timeout=300)  # SIGTERM: callgrind writes its counts as the server exits
    found = TOTALS.search(out.read_text(errors="replace"))
    if found is None:
        raise RuntimeError(f"no instruction count in {out}")
    return int(found.group(1))


def serve_quietly(redis_url: str, port: int) -> None:
    """`kafana serve` without per-second timers (see KAFANA), until SIGTERM."""
    import asyncio

    from kafana.service.collector import calm_full_collections
    from kafana.service.ratelimit import RateLimit
    from kafana.service.server import create_server, serve_until_signal
    from kafana.service.settings import Settings
    from kafana.store.redis_store import RedisStore

    async def serve() -> None:
        store = RedisStore.from_url(redis_url + "?timeout=0")  # no watchdog timer per lane
        settings = Settings(port=port, clock_tick=QUIET_TICK_S, rate_limit=RateLimit(rate=0))
        kafana = create_server(store, settings)
        kafana.resets.interval = kafana.probe_s = QUIET_TICK_S
        try:
            await serve_until_signal(kafana, lambda line: print(line, flush=True), grace=1.0)
        finally:
            await store.close()

    calm_full_collections()
    asyncio.run(serve())


def main() -> int:
    """Measure both servers at both move counts; print instructions per move and the ratio."""
    if sys.argv[1:2] == ["--serve"]:
        serve_quietly(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, nargs=2, default=[300, 900], metavar=("FEW", "MANY"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kafana-command",
        default=KAFANA,
        help=f"{{redis}} and {{port}} filled in; `kafana serve` with its timers: '{SERVE}'",
    )
    parser.add_argument(
        "--only", choices=("baseline", "kafana"), help="measure one server (no ratio)"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the callgrind files here (for callgrind_annotate)"
    )
    parser.add_argument(
        "--accounts",
        action="store_true",
        help="call with a player account's API key, as the load test's users do (notices told)",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="players at once, each a thread with its own matches (and key): calls in flight",
    )
    args = parser.parse_args()
    if args.parallel < 1:
        parser.error(f"--parallel is at least 1, not {args.parallel}")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    few, many = args.moves
    work = args.keep or Path(tempfile.mkdtemp(prefix="kafana-instructions-"))
    work.mkdir(parents=True, exist_ok=True)
    per_move: dict[str, float] = {}
    try:
        with redis_server(work) as (_process, redis_port):
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
            players: list[Metadata] = [()] * args.parallel
            if args.accounts:
                keys = driver_keys(redis_url, args.parallel, "instructions")
                players = [(("authorization", f"Bearer {key}"),) for key in keys]
            for kind, template in (("baseline", BASELINE_COMMAND), ("kafana", args.kafana_command)):
                if args.only not in (None, kind):
                    continue
                counts = [
                    instructions(template, redis_url, n, work, args.seed, players)
                    for n in args.moves
                ]
                per_move[kind] = (counts[1] - counts[0]) / (many - few)
                print(
                    f"{kind}: {counts[0]:,} instructions for {few} moves, {counts[1]:,} for "
                    f"{many}: {per_move[kind]:,.0f} per move",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.only:
        return 0
    print(f"baseline/kafana instructions per move: {per_move['baseline'] / per_move['kafana']:.2f}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
