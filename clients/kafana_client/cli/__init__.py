"""The terminal client: `kafana play`'s session, `kafana watch`, `kafana replay`, the drawing.

The `play` command itself is in `kafana.cli.play` (it may start a server in-process).
"""

import os


def quiet_grpc() -> None:
    """Keep grpc's own log lines (connection notices) off a person's terminal."""
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
