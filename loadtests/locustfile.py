"""Locust users of the Kafana service: whole Tablić matches, and the stateless capture call.

Run headless through `loadtests/run.py` (which starts Redis and the servers), or by hand:

    .venv/bin/locust -f loadtests/locustfile.py --headless -u 20 -r 20 -t 30s \\
        --targets 127.0.0.1:50051 --results /tmp/out.json TableUser

`TableUser` creates a table with an explicit seed, takes both seats (it holds both tokens) and
follows the match with the local engine, so each move is exactly one PlayMove call. `--think`
sleeps after each move; `--pace` instead spaces a table's moves that many seconds apart
(0 for both: as fast as the server answers). `CapturesUser` hammers Captures with random
tables. Results (requests after `--warmup`, finished tables, a sample of active ones, latency
per time slice) are written as JSON to `--results` when the test stops.
"""

from __future__ import annotations

import gc
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gevent  # type: ignore[import-untyped, unused-ignore]
from locust import User, events, task
from locust.env import Environment

from grpc_locust import ChannelPool  # isort: skip  (switches grpc to gevent first)
from stats import summarize  # isort: skip
import grpc  # type: ignore[import-untyped, unused-ignore]  # isort: skip
from kafana.errors import TooManyMovesError
from kafana.games import tablic
from kafana.service.collector import PERIOD_S, calm_full_collections, collect_young
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc, state_pb2

RULES_SPEC = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)
RULES = tablic.Rules.preset("serbian", players=2)
SEAT_TOKEN = "kafana-seat-token"  # the seat a call plays for travels in metadata
SLICE_SECONDS = 10.0
ACTIVE_SAMPLE = 200
TICK_S = 0.05  # the driver's own health: how late a timer due every 50 ms runs


def cancelled(exception: BaseException | None) -> bool:
    """Whether a call ended as CANCELLED on the client side."""
    code = getattr(exception, "code", None)
    return callable(code) and code() == grpc.StatusCode.CANCELLED


@dataclass
class Results:
    """What the listeners gather; written as JSON when the test stops."""

    started: float = field(default_factory=time.time)
    origin: float = 0.0  # slices count from here (several drivers share it); 0: `started`
    warmup: float = 0.0
    # With `--seated N`, the window opens only once N tables are in play and one `pace` more
    # has passed (every table has moved since), however long the ramp took; `--measure S`
    # then closes it S seconds later and stops the run.
    seated: int = 0
    pace: float = 0.0
    measure: float = 0.0
    seated_at: float = 0.0
    times: dict[str, list[float]] = field(default_factory=dict)
    # With `--raw` (several drivers, merged by run.py): when each timed request ended.
    raw: bool = False
    stamps: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    slices: dict[int, list[float]] = field(default_factory=dict)
    finished: list[dict[str, Any]] = field(default_factory=list)
    active: dict[str, int] = field(default_factory=dict)
    peak_active: int = 0
    at_stop: dict[str, int] = field(default_factory=dict)  # tables in play when stopping
    stopping: bool = False
    first_in_window: float = 0.0
    last_in_window: float = 0.0
    # Per slice: the driver's longest hub lag and its collections (count, total and longest ms).
    lag: dict[int, float] = field(default_factory=dict)
    collections: dict[int, list[float]] = field(default_factory=dict)

    def opens(self) -> float:
        """When the measured window opens (infinity while tables are still being seated)."""
        start = self.started + self.warmup
        if self.seated:
            if not self.seated_at:
                return float("inf")
            start = max(start, self.seated_at + self.pace)
        return start

    def closes(self) -> float:
        """When the measured window closes (infinity without `--measure`)."""
        return self.opens() + self.measure if self.measure else float("inf")

    def table_in_play(self, table_id: str, seq: int) -> None:
        """A table has both seats taken; the moment the last of `seated` is, is kept."""
        self.active[table_id] = seq
        self.peak_active = max(self.peak_active, len(self.active))
        if self.seated and not self.seated_at and len(self.active) >= self.seated:
            self.seated_at = time.time()

    def slice_of(self, now: float) -> int:
        """The 10-s slice of a wall time."""
        return int((now - (self.origin or self.started)) // SLICE_SECONDS)

    def lagged(self, now: float, millis: float) -> None:
        """The driver's hub ran a timer `millis` late."""
        key = self.slice_of(now)
        self.lag[key] = max(self.lag.get(key, 0.0), millis)

    def collected(self, now: float, millis: float) -> None:
        """The driver spent `millis` in one garbage collection."""
        counter = self.collections.setdefault(self.slice_of(now), [0, 0.0, 0.0])
        counter[0] += 1
        counter[1] += millis
        counter[2] = max(counter[2], millis)

    def record(self, name: str, response_time: float, exception: BaseException | None) -> None:
        """One request, counted only after the warm-up (errors are always counted)."""
        now = time.time()
        if self.stopping and cancelled(exception):
            return  # a call cut short by locust stopping its users, not an answer
        if exception is not None:
            self.error_count += 1
            if len(self.errors) < 20:
                self.errors.append(f"{name}: {exception!r}"[:400])
        if name == "PlayMove" or name == "Captures":
            self.slices.setdefault(self.slice_of(now), []).append(response_time)
        if not self.opens() <= now <= self.closes():
            return
        if not self.first_in_window:
            self.first_in_window = now
        self.last_in_window = now
        if exception is not None:
            self.failures[name] = self.failures.get(name, 0) + 1
        else:
            self.times.setdefault(name, []).append(response_time)
            if self.raw:
                self.stamps.setdefault(name, []).append(now)

    def error(self, text: str) -> None:
        """A check of the driver failed (not a gRPC error)."""
        self.error_count += 1
        if len(self.errors) < 20:
            self.errors.append(text[:400])

    def as_json(self, options: Any) -> dict[str, Any]:
        """Everything a run needs to report and check (with `--raw`, the samples too)."""
        window = max(self.last_in_window - self.first_in_window, 1e-9)
        raw: dict[str, Any] = {}
        if self.raw:
            raw["raw"] = {
                "times": self.times,
                "stamps": self.stamps,
                "slices": {str(k): v for k, v in self.slices.items()},
                "lag": {str(k): v for k, v in self.lag.items()},
                "collections": {str(k): v for k, v in self.collections.items()},
                "at_stop": self.at_stop,
            }
        return {
            **raw,
            "kind": options.kind,
            "targets": options.targets,
            "started": self.origin or self.started,
            "window_s": window,
            "window": [self.first_in_window, self.last_in_window],
            "seated_at": self.seated_at,
            "requests": {n: summarize(t) for n, t in sorted(self.times.items())},
            "failures": self.failures,
            "error_count": self.error_count,
            "errors": self.errors,
            "slices": [
                {
                    "t": k * SLICE_SECONDS,
                    **summarize(v),
                    "driver_lag_ms": self.lag.get(k, 0.0),
                    "driver_gc": self.collections.get(k, [0, 0.0, 0.0]),
                }
                for k, v in sorted(self.slices.items())
            ],
            "finished": self.finished,
            "active_sample": list(self.at_stop)[:ACTIVE_SAMPLE],
            "active_at_end": len(self.at_stop),
            "active_seq_mean": sum(self.at_stop.values()) / max(len(self.at_stop), 1),
            "peak_active": self.peak_active,
        }


RESULTS = Results()
POOL: list[ChannelPool] = []
KEYS: list[str] = []  # API keys (--keys): user n calls with key n (of this driver's share)


def _options(parser: Any) -> None:
    group = parser.add_argument_group("kafana")
    group.add_argument("--targets", default="127.0.0.1:50051", help="host:port,host:port")
    group.add_argument("--channels", type=int, default=2, help="connections per target")
    group.add_argument("--think", type=float, default=0.0, help="seconds after each move")
    group.add_argument("--pace", type=float, default=0.0, help="seconds between a table's moves")
    group.add_argument("--warmup", type=float, default=0.0, help="seconds not measured")
    group.add_argument(
        "--seated", type=int, default=0, help="measure only once this many tables are in play"
    )
    group.add_argument(
        "--measure", type=float, default=0.0, help="seconds measured, then stop (0: until -t)"
    )
    group.add_argument("--results", default="", help="write results JSON here at the end")
    group.add_argument("--kind", default="kafana", help="kafana or baseline (for the report)")
    group.add_argument("--seed", type=int, default=1, help="base seed of users' choices")
    group.add_argument(
        "--origin", type=float, default=0.0, help="start time (epoch s) shared by several drivers"
    )
    group.add_argument("--raw", action="store_true", help="also write every sample (run.py)")
    group.add_argument(
        "--keys", default="", help="a file of API keys, one a line: each user calls with its own"
    )
    group.add_argument(
        "--first-key", type=int, default=0, help="this driver's first user's line in --keys"
    )


def _init(environment: Environment, **_kwargs: Any) -> None:
    options = environment.parsed_options
    if options is None:
        return
    RESULTS.warmup = options.warmup
    RESULTS.seated = options.seated
    RESULTS.pace = options.pace
    RESULTS.measure = options.measure
    RESULTS.raw = options.raw
    targets = [t for t in options.targets.split(",") if t]
    POOL.append(ChannelPool(targets, options.channels, environment.events.request.fire))
    if options.keys:
        KEYS.extend(Path(options.keys).read_text().split())


def _start(environment: Environment, **_kwargs: Any) -> None:
    RESULTS.started = time.time()
    options = environment.parsed_options
    RESULTS.origin = options.origin if options is not None else 0.0
    gevent.spawn(_watch_hub)
    # 10,000 users each hold a match state that lives until their next move: left to itself
    # the driver's collector walks all of them in each full collection (1-2 s pauses, every
    # in-flight call's time stretched by them). The server's policy instead: survivors frozen,
    # a small full collection every second.
    calm_full_collections()
    gevent.spawn(_collect_often)
    if RESULTS.measure:
        gevent.spawn(_stop_after_window, environment)


def _stop_after_window(environment: Environment) -> None:
    """Stop the run once the measured window has closed."""
    while time.time() < RESULTS.closes():
        gevent.sleep(0.5)
    if environment.runner is not None:
        environment.runner.quit()


def _collect_often() -> None:
    """A small full collection every second, its survivors frozen (see kafana's collector)."""
    while not RESULTS.stopping:
        gevent.sleep(PERIOD_S)
        collect_young()


def _watch_hub() -> None:
    """Record how late the driver's hub runs a timer (its own lag, not the servers')."""
    while not RESULTS.stopping:
        due = time.perf_counter() + TICK_S
        gevent.sleep(TICK_S)
        RESULTS.lagged(time.time(), max(0.0, (time.perf_counter() - due) * 1000))


_collecting: list[float] = []


def _collection(phase: str, info: dict[str, Any]) -> None:
    """Time each of the driver's garbage collections."""
    if phase == "start":
        _collecting[:] = [time.perf_counter()]
    elif _collecting:
        RESULTS.collected(time.time(), (time.perf_counter() - _collecting[0]) * 1000)


gc.callbacks.append(_collection)


def _request(
    name: str, response_time: float, exception: BaseException | None, **_kwargs: Any
) -> None:
    RESULTS.record(name, response_time, exception)


def _user_error(user_instance: Any, exception: BaseException, tb: Any, **_kwargs: Any) -> None:
    if isinstance(exception, grpc.RpcError):
        return  # counted already by the request event
    if not (RESULTS.stopping and cancelled(exception)):
        RESULTS.error(f"{type(user_instance).__name__}: {exception!r}")


def _stopping(environment: Environment, **_kwargs: Any) -> None:
    RESULTS.at_stop = dict(RESULTS.active)
    RESULTS.stopping = True


def _stop(environment: Environment, **_kwargs: Any) -> None:
    options = environment.parsed_options
    if options is not None and options.results:
        with open(options.results, "w", encoding="utf-8") as out:
            json.dump(RESULTS.as_json(options), out)


events.init_command_line_parser.add_listener(_options)  # type: ignore[no-untyped-call]
events.init.add_listener(_init)  # type: ignore[no-untyped-call]
events.test_start.add_listener(_start)  # type: ignore[no-untyped-call]
events.request.add_listener(_request)  # type: ignore[no-untyped-call]
events.user_error.add_listener(_user_error)  # type: ignore[no-untyped-call]
events.test_stopping.add_listener(_stopping)  # type: ignore[no-untyped-call]
events.test_stop.add_listener(_stop)  # type: ignore[no-untyped-call]

_numbers: Iterator[int] = iter(range(1 << 62))


class KafanaUser(User):
    """A user with a stub on a shared channel and its own seeded random generator."""

    abstract = True

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.number = next(_numbers)
        options = environment.parsed_options
        self.rng = random.Random((options.seed if options else 1) * 1_000_003 + self.number)
        self.stub = service_pb2_grpc.KafanaServiceStub(POOL[0].pick(self.number))
        self.options = options
        first = options.first_key if options else 0
        # Its own account's key, if the run made some: the server's quotas charge each user.
        self.auth: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {KEYS[(first + self.number) % len(KEYS)]}"),)
            if KEYS
            else ()
        )


class TableUser(KafanaUser):
    """Creates a table, takes both seats and plays the whole match, move by move."""

    def wait_time(self) -> float:
        """No wait between matches: a user always has a table in play."""
        return 0.0

    @task
    def play_match(self) -> None:
        """One match from CreateTable to the last PlayMove."""
        seed = self.rng.getrandbits(63)
        config = rules_pb2.TableConfig(rules=RULES_SPEC, seed=seed, name=f"load {self.number}")
        created = self.stub.CreateTable(
            service_pb2.CreateTableRequest(config=config), metadata=self.auth
        )
        table_id = created.table_id
        seats = [
            self.stub.JoinTable(
                service_pb2.JoinTableRequest(table_id=table_id, seat=s, name="b"),
                metadata=self.auth,
            )
            for s in range(RULES.players)
        ]
        tokens = [joined.seat_token for joined in seats]
        state = tablic.new_match(RULES, seed=seed)
        seq = max(joined.state.seq for joined in seats)
        RESULTS.table_in_play(table_id, seq)
        think = self.options.think if self.options else 0.0
        pace = self.options.pace if self.options else 0.0
        due = time.monotonic() + (self.rng.uniform(0, pace) if pace else 0.0)
        try:
            while not state.is_over:
                if pace:
                    # A table that fell behind plays on at its pace; it does not catch up in a
                    # burst (which would turn one slow second into a storm of moves).
                    now = time.monotonic()
                    gevent.sleep(max(0.0, due - now))
                    due = max(due, now) + pace
                seat = state.current_seat
                assert seat is not None
                move = self.choose(state, seat)
                answer = self.stub.PlayMove(
                    service_pb2.PlayMoveRequest(
                        table_id=table_id,
                        move=state_pb2.Move(text=str(move)),
                        client_move_id=str(seq + 1),
                        last_seq=seq,
                    ),
                    metadata=((SEAT_TOKEN, tokens[seat]), *self.auth),
                )
                if answer.event.seq != seq + 1:
                    RESULTS.error(f"{table_id}: move at seq {seq} answered seq {answer.event.seq}")
                    return
                seq += 1
                RESULTS.active[table_id] = seq
                state = state.apply(move)
                if think:
                    gevent.sleep(think)
        finally:
            RESULTS.active.pop(table_id, None)
        RESULTS.finished.append(
            {"table_id": table_id, "scores": list(state.scores), "moves": len(state.moves())}
        )

    def choose(self, state: tablic.MatchState, seat: int) -> tablic.Move:
        """A uniformly random legal move; a random trail when a huge table has too many."""
        try:
            return self.rng.choice(state.legal_moves())
        except TooManyMovesError:
            return tablic.Move.parse(self.rng.choice(state.hand(seat)).text)


class CapturesUser(KafanaUser):
    """Asks for every capture of a random card from a random table of 4 to 12 cards."""

    def wait_time(self) -> float:
        """The think time between calls."""
        return self.options.think if self.options else 0.0

    @task
    def captures(self) -> None:
        """One Captures call."""
        cards = self.rng.sample(tablic.CARDS, self.rng.randint(5, 13))
        self.stub.Captures(
            service_pb2.CapturesRequest(
                card=cards[0].text, table=[c.text for c in cards[1:]], rules=RULES_SPEC
            )
        )
