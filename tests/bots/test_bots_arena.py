"""The arena plays duplicate deals and reports means, paired differences and decision times."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from kafana.cli import main
from kafana_bots.arena import ArenaConfig, play_deal, run, seatings, summarize


def test_seatings_swap_every_seat() -> None:
    assert seatings(2, 2, True) == [(0, 1), (1, 0)]
    assert seatings(2, 4, True) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert seatings(2, 3, True) == [(0, 1, 0), (1, 0, 0), (0, 0, 1)]
    assert seatings(2, 2, False) == [(0, 1)]


def test_a_deal_replays_and_shares_out_its_points() -> None:
    config = ArenaConfig(bots=("greedy", "heuristic"), hands=1)
    result = play_deal(config, 0)
    assert result.points == play_deal(config, 0).points
    # Two sides, each bot once on each: the means add up to a whole hand's points.
    assert sum(result.points) >= 22
    assert [len(t) for t in result.times] == [48, 48]


def test_arena_run_and_summary() -> None:
    config = ArenaConfig(
        bots=("random", "greedy", "ismcts"), hands=3, players=3, iterations=2, seed=5
    )
    seen = []
    results = run(config, jobs=1, progress=seen.append)
    assert [r.deal for r in results] == [0, 1, 2] and len(seen) == 3
    summary = summarize(config, results)
    assert summary.deals == 3 and len(summary.mean) == 3 and len(summary.diff) == 2
    for mean, low, high in summary.diff:
        assert low <= mean <= high
    assert all(t >= 0 for t in summary.median_ms + summary.p99_ms)
    again = summarize(config, run(config, jobs=1))
    assert again.mean == summary.mean  # a world budget replays exactly


def test_arena_command_line() -> None:
    result = CliRunner().invoke(
        main,
        ["arena", "--bots", "random,greedy", "--hands", "4", "--seed", "3", "--markdown"],
    )
    assert result.exit_code == 0, result.output
    assert "greedy vs random | 4 |" in result.output
    bad = CliRunner().invoke(main, ["arena", "--bots", "greedy,nobody", "--hands", "1"])
    assert bad.exit_code != 0 and "unknown bot 'nobody'" in bad.output
    seatless = CliRunner().invoke(main, ["arena", "--bots", "random,greedy,heuristic"])
    assert seatless.exit_code == 2 and "3 bots for 2 seats" in seatless.output


def test_arena_in_processes() -> None:
    config = ArenaConfig(bots=("random", "greedy"), hands=4, players=4, partnerships=True)
    serial = summarize(config, run(config, jobs=1))
    parallel = summarize(config, run(config, jobs=2))
    assert serial.mean == parallel.mean


def test_arena_command_line_plays_the_oracle() -> None:
    # The oracle plays only in the arena: `kafana arena` lends it, and it wins there.
    result = CliRunner().invoke(
        main,
        ["arena", "--bots", "greedy,oracle", "--hands", "2", "--iterations", "20", "--markdown"],
    )
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("| oracle vs"))
    assert row.startswith("| oracle vs greedy | 2 |")
    assert float(row.split("|")[4].split()[0]) > 0  # the all-seeing bot is ahead


def test_arena_with_building() -> None:
    # `--building` turns the switch on; ismcts and the oracle search the engine's own states.
    result = CliRunner().invoke(
        main,
        ["arena", "--bots", "heuristic,ismcts", "--building", "--hands", "1", "--iterations", "4"],
    )
    assert result.exit_code == 0, result.output
    assert "serbian 2p building, 1 deal" in result.output
    config = ArenaConfig(bots=("greedy", "oracle"), hands=1, building=True)
    assert config.rules.building
    dealt = play_deal(config, 0)
    assert sum(dealt.points) >= 22 and [len(t) for t in dealt.times] == [48, 48]


def test_a_config_with_more_bots_than_seats_is_refused() -> None:
    # seatings() seats bots round the table: a third bot at two seats would never play, and
    # its 0 points would read as a result.
    with pytest.raises(ValueError, match="3 bots for 2 seats"):
        ArenaConfig(bots=("greedy", "heuristic", "random"), players=2)
    assert ArenaConfig(bots=("greedy", "heuristic", "random"), players=3).players == 3
