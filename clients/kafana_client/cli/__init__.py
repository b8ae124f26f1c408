"""The terminal client: `kafana play`'s session, `kafana watch`, `kafana replay`, the drawing.

The `play` command itself is in `kafana.cli.play` (it may start a server in-process). grpc's own
log lines are kept off a person's terminal by `kafana.cli`, before grpc is imported.
"""
