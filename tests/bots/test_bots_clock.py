"""Decision budgets count the deciding thread's CPU time, so a bot short of CPU keeps its work."""

from __future__ import annotations

import random
import sys
import threading
import time

from kafana.games import tablic
from kafana_bots.clock import COUNTS_CPU, WALL_LIMIT, Deadline
from kafana_bots.ismcts import SAFETY, SearchBot


def test_the_host_has_a_cpu_clock() -> None:
    assert COUNTS_CPU or sys.platform != "linux"


def test_a_deadline_counts_cpu_time_not_waiting() -> None:
    deadline = Deadline(0.05)
    time.sleep(0.1)  # twice the budget of wall time, no CPU
    assert not deadline.passed()
    assert deadline.remaining() > 0.04
    spun = 0
    while not deadline.passed():
        spun += 1
    assert spun > 0 and deadline.remaining() == 0.0


def test_a_deadline_still_ends_on_the_wall_clock() -> None:
    deadline = Deadline(0.1, wall_limit=4)
    time.sleep(0.15)  # more than the budget, but no CPU
    assert not deadline.passed()
    time.sleep(0.3)  # past 4 x 100 ms of wall time
    assert deadline.passed()


def test_a_part_of_a_deadline_is_a_share_of_what_is_left() -> None:
    whole = Deadline(0.2)
    half = whole.part(0.5)
    assert 0.08 < half.remaining() < 0.11
    time.sleep(0.15)  # no CPU spent: neither passes
    assert not half.passed() and not whole.passed()


def test_search_spends_its_budget_in_cpu_when_another_thread_takes_half_of_it() -> None:
    """With a wall-clock budget a bot sharing the interpreter with a busy thread got about half
    its budget of CPU (and less still on a loaded host); on the CPU clock it gets all of it,
    and takes longer to answer."""
    rules = tablic.Rules.preset("serbian", players=2)
    state = tablic.new_match(rules, seed=3)
    view, moves = state.view(0), state.legal_moves()
    SearchBot(0, rules, random.Random(1), iterations=50).choose(view, moves)  # warm the caches
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(1000))

    rival = threading.Thread(target=busy)
    rival.start()
    try:
        bot = SearchBot(0, rules, random.Random(1), budget_ms=80)
        wall, cpu = time.perf_counter(), time.thread_time()
        bot.choose(view, moves)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    finally:
        stop.set()
        rival.join()
    budget = SAFETY * 0.080
    # All its budget in CPU, unless the host gave it so little that the wall limit came first
    # (on the wall clock it stopped after `budget` of wall time, with half as much CPU or less).
    assert cpu >= 0.9 * budget or wall >= WALL_LIMIT * budget, (cpu, wall, bot.stats)
    assert wall > cpu  # it waited for the interpreter while the other thread ran
