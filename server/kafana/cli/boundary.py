"""The one error boundary of the `kafana` command: every failure is one line on stderr.

Usage errors (a bad option, input refused before anything was done, or refused by the server
as INVALID_ARGUMENT) exit 2; failures (a server that cannot be reached or refuses for any other
reason, a file that cannot be read) exit 1; Ctrl-C exits 130.
`--debug` (anywhere on the line) or `KAFANA_DEBUG=1` also prints the traceback.

>>> describe(click.UsageError("no such option: --frob"), [])
('no such option: --frob', 2)
>>> describe(RuntimeError("boom"), [], debug=True)
('unexpected RuntimeError: boom', 1)
>>> address(["bot", "run", "greedy", "--server", "localhost:1"])
'localhost:1'
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence

import click
import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana_client.cli import interrupt
from kafana_client.errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    RpcError,
    UnauthenticatedError,
    UnavailableError,
    from_grpc,
)

from kafana.errors import InvalidInputError, KafanaError

DEBUG_FLAG = "--debug"
DEBUG_ENV = "KAFANA_DEBUG"
DEFAULT_SERVER = "localhost:50051"
INTERRUPTED = 130


def debugging(args: Sequence[str]) -> bool:
    """Whether the traceback is wanted (`--debug` given, or KAFANA_DEBUG set to 1/true/yes)."""
    wanted = os.environ.get(DEBUG_ENV, "").strip().lower() in {"1", "true", "yes"}
    return wanted or DEBUG_FLAG in _options(args)


def without_debug(args: Sequence[str]) -> list[str]:
    """`args` without `--debug` (before a `--`), so any command accepts it anywhere."""
    out: list[str] = []
    rest = False
    for arg in args:
        rest = rest or arg == "--"
        if rest or arg != DEBUG_FLAG:
            out.append(arg)
    return out


def _options(args: Sequence[str]) -> list[str]:
    return list(args[: list(args).index("--")]) if "--" in args else list(args)


def address(args: Sequence[str]) -> str:
    """The server the command line names (`--server X`, `--server=X`, KAFANA_SERVER)."""
    items = _options(args)
    for i, arg in enumerate(items):
        if arg == "--server" and i + 1 < len(items):
            return items[i + 1]
        if arg.startswith("--server="):
            return arg.partition("=")[2]
    return os.environ.get("KAFANA_SERVER") or DEFAULT_SERVER


def _rpc(error: RpcError, args: Sequence[str]) -> tuple[str, int]:
    where = address(args)
    if isinstance(error, UnavailableError | DeadlineExceededError):
        return (
            f"cannot reach a Kafana server at {where} ({error.code.name.lower()}): "
            "start one with `kafana serve` or check --server",
            1,
        )
    if isinstance(error, UnauthenticatedError):
        return (f"the server at {where} refused the credentials: {error.message}", 1)
    code = 2 if isinstance(error, InvalidArgumentError) else 1
    return (f"the server at {where} refused: {error.message} ({error.code.name})", code)


def describe(error: BaseException, args: Sequence[str], debug: bool = False) -> tuple[str, int]:
    """The one line to print for `error`, and the exit status (with `debug`, the traceback is
    printed already: no hint to ask for it)."""
    if isinstance(error, click.UsageError):
        hint = ""
        if error.ctx is not None:
            hint = f" (see `{error.ctx.command_path} --help`)"
        return (f"{error.format_message().rstrip('.')}{hint}".replace("\n", " "), 2)
    if isinstance(error, click.ClickException):
        return (error.format_message().replace("\n", " "), error.exit_code)
    if isinstance(error, KeyboardInterrupt):
        return ("interrupted", interrupt.status(error))  # 130 for Ctrl-C, 143 for SIGTERM
    if isinstance(error, click.Abort):  # click's for a KeyboardInterrupt: SIGTERM's says 143
        cause = error.__cause__
        if isinstance(cause, KeyboardInterrupt):
            return ("interrupted", interrupt.status(cause))
        return ("interrupted", INTERRUPTED)
    if isinstance(error, grpc.RpcError):
        error = from_grpc(error)
    if isinstance(error, RpcError):
        return _rpc(error, args)
    if isinstance(error, InvalidInputError):
        return (str(error), 2)
    if isinstance(error, KafanaError):
        return (str(error), 1)
    if isinstance(error, OSError):
        what = error.strerror or str(error)
        where = f": {error.filename}" if error.filename else ""
        return (f"{what}{where}", 1)
    hint = "" if debug else f" (run again with {DEBUG_FLAG} for the traceback)"
    return (f"unexpected {type(error).__name__}: {error}{hint}", 1)


def guarded(
    run: Callable[[list[str]], object],
    args: Sequence[str],
    prog: Callable[[list[str]], str] = lambda _: "kafana",
) -> int:
    """Run the command line `args`; the exit status (0, or after one line on stderr naming
    the command, `prog(args)`)."""
    debug = debugging(args)
    clean = without_debug(args)
    try:
        result = run(clean)
    except click.exceptions.NoArgsIsHelpError as error:
        error.show()
        return 2
    except SystemExit as done:  # a command's own exit status (e.g. verify: 1 for a rejection)
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except click.exceptions.Exit as done:
        return done.exit_code
    except (Exception, KeyboardInterrupt) as error:
        message, status = describe(error, clean, debug)
        if debug:
            traceback.print_exception(error, file=sys.stderr)
        sys.stdout.flush()
        click.echo(f"{prog(clean)}: {message}", err=True)
        return status
    return result if isinstance(result, int) else 0
