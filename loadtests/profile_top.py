"""The top costs in a py-spy profile (`--format raw`: collapsed stacks, one per line).

    .venv/bin/python loadtests/profile_top.py /tmp/kafana.prof [--top 25] [--under PlayMove]

Prints, as a share of all samples (or of the samples whose stack passes through a function
named by `--under`), the functions with the most inclusive time (anywhere on the stack) and
the most self time (at the top of the stack). `--groups` instead splits every sample by where
its time goes (the server's own Python, redis-py, gRPC's C core, ...), which compares a Kafana
profile with a baseline one; `--us-per-call N` also turns the shares into µs of a call that
costs N µs of server CPU.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

# py-spy frames look like "function (path/to/file.py:123)"; the line number varies per sample.
FRAME = re.compile(r"^(?P<name>.*?) \((?P<file>[^():]*)(?::\d+)?\)$")


def frame_key(frame: str) -> str:
    """A frame without its line number, the file shortened to its last two parts.

    >>> frame_key("apply (/work/server/kafana/service/session.py:88)")
    'apply (service/session.py)'
    """
    match = FRAME.match(frame.strip())
    if not match:
        return frame.strip()
    parts = match.group("file").split("/")
    return f"{match.group('name')} ({'/'.join(parts[-2:])})"


def top_costs(
    lines: list[str], under: str = ""
) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]]]:
    """Total samples, and (frame, samples) inclusive and self, most first."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in lines:
        stack, _, count_text = line.rstrip().rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [frame_key(f) for f in stack.split(";")]
        if under and not any(f.startswith(under + " ") for f in frames):
            continue
        count = int(count_text)
        total += count
        for frame in set(frames):
            inclusive[frame] += count
        own[frames[-1]] += count
    return total, inclusive.most_common(), own.most_common()


GROUPS = (
    "gRPC C core and protobuf (Handle._run self)",
    "redis-py",
    "socket writes (to Redis)",
    "the service's own Python",
    "gRPC poller thread",
    "epoll wait",
    "other event loop and asyncio",
)


def group(frames: list[str]) -> str:
    """Where a sample's time goes, by its innermost frames (as py-spy writes them).

    >>> group(["run (asyncio/runners.py:1)", "Handle._run (asyncio/events.py:8)"])
    'gRPC C core and protobuf (Handle._run self)'
    >>> group(["play (kafana/service/tables.py:9)", "x (redis/asyncio/client.py:3)"])
    'redis-py'
    >>> group(["serve (kafana/service/cli.py:9)", "play (kafana/service/tables.py:9)"])
    "the service's own Python"
    """
    leaf = frames[-1]
    if leaf.startswith("_SelectorSocketTransport.write "):
        return GROUPS[2]
    if leaf.startswith("EpollSelector.select "):
        return GROUPS[5]
    if leaf.startswith("Handle._run "):
        return GROUPS[0]
    if leaf.startswith("Thread.run "):
        return GROUPS[4]
    for frame in reversed(frames):
        if "(redis/" in frame:
            return GROUPS[1]
        own = "(kafana/" in frame and "/cli.py" not in frame
        if own or ("baseline_server.py" in frame and not frame.startswith(OUTER)):
            return GROUPS[3]
    return GROUPS[6]


OUTER = ("main ", "serve ", "<module> ")


def groups(lines: list[str]) -> tuple[int, dict[str, int]]:
    """Total samples and samples per group."""
    out = dict.fromkeys(GROUPS, 0)
    total = 0
    for line in lines:
        stack, _, count_text = line.rstrip().rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        out[group(stack.split(";"))] += count
    return total, out


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--under", default="", help="only stacks through this function")
    parser.add_argument("--groups", action="store_true", help="split samples by where they go")
    parser.add_argument("--us-per-call", type=float, default=0.0, help="server CPU µs per call")
    args = parser.parse_args()
    if args.groups:
        total, counts = groups(args.profile.read_text().splitlines())
        print(f"{total} samples")
        for name, count in sorted(counts.items(), key=lambda item: -item[1]):
            share = count / max(total, 1)
            cost = f"  {share * args.us_per_call:5.0f} µs" if args.us_per_call else ""
            print(f"{100 * share:6.1f}%{cost}  {name}")
        return
    total, inclusive, own = top_costs(args.profile.read_text().splitlines(), args.under)
    print(f"{total} samples" + (f" through {args.under}" if args.under else ""))
    for title, rows in (("inclusive", inclusive), ("self", own)):
        print(f"-- {title} --")
        for frame, count in rows[: args.top]:
            print(f"{100 * count / max(total, 1):6.1f}%  {frame}")


if __name__ == "__main__":
    main()
