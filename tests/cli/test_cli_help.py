"""Every command's --help reads as written for people: no option a command only refuses, no
range click cannot describe (``x<=None`` on --rate-limit and --rate-burst, a review found)."""

from __future__ import annotations

from collections.abc import Iterator

import click
from click.testing import CliRunner
from kafana.cli import main


def commands(
    group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """The path of every command under `group`, the group's own included."""
    yield path
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from commands(command, ctx, (*path, name))
        elif command is not None:
            yield (*path, name)


def test_every_help_describes_its_ranges_and_hides_refused_options() -> None:
    runner = CliRunner()
    with click.Context(main) as ctx:
        paths = list(commands(main, ctx))
    assert len(paths) > 30, paths
    for path in paths:
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "None]" not in result.output, (path, result.output)
        if path[:1] == ("tournament",):
            assert "--seed " not in result.output, (path, result.output)  # --chosen-seed stays
