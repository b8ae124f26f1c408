"""`kafana serve`'s --auth, --anonymous and --self-register, given to it as one `AuthPolicy`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from kafana.service.auth import DEFAULT_ANONYMOUS, MODES, AuthPolicy, parse_anonymous

F = TypeVar("F", bound=Callable[..., Any])


def auth_options(command: F) -> F:
    """The auth options of `serve`; the command gets `auth: AuthPolicy` instead of them.

    The mode defaults to `required` when a shared Redis is configured (`redis_url`, which the
    command must take, and no `memory`) and to `open` otherwise (the embedded single-process
    run).
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **options: Any) -> Any:
        shared = bool(options["redis_url"]) and not options.get("memory")
        mode = options.pop("auth_mode") or AuthPolicy.default_mode(shared)
        try:
            anonymous = parse_anonymous(options.pop("anonymous"))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--anonymous") from None
        policy = AuthPolicy(mode, anonymous, options.pop("self_register"))
        line = f"auth: {policy.mode}"
        if policy.mode != "open":
            line += f" (anonymous callers may use: {', '.join(sorted(anonymous)) or 'nothing'})"
        if policy.self_register:
            line += "; self-registration on"
        click.echo(line)
        return command(*args, auth=policy, **options)

    for option in reversed(
        (
            click.option(
                "--auth",
                "auth_mode",
                envvar="KAFANA_AUTH",
                type=click.Choice(MODES),
                default=None,
                help="open: API keys optional; required: a key for all but --anonymous calls. "
                "Default: required with --redis/KAFANA_REDIS, else open.",
            ),
            click.option(
                "--anonymous",
                envvar="KAFANA_ANONYMOUS",
                default=",".join(DEFAULT_ANONYMOUS),
                show_default=True,
                help="With --auth required: the RPCs callers without a key may make "
                "(GetState and WatchEvents as spectators only, unless PlayMove is listed).",
            ),
            click.option(
                "--self-register",
                is_flag=True,
                envvar="KAFANA_SELF_REGISTER",
                help="Let anyone make a player or bot account (Accounts.Register).",
            ),
        )
    ):
        wrapper = option(wrapper)
    return wrapper  # type: ignore[return-value]
