"""The top costs in a py-spy profile (`--format raw`: collapsed stacks, one per line).

    .venv/bin/python loadtests/profile_top.py /tmp/kafana.prof [--top 25] [--under PlayMove]

Prints, as a share of all samples (or of the samples whose stack passes through a function
named by `--under`), the functions with the most inclusive time (anywhere on the stack) and
the most self time (at the top of the stack).
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


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--under", default="", help="only stacks through this function")
    args = parser.parse_args()
    total, inclusive, own = top_costs(args.profile.read_text().splitlines(), args.under)
    print(f"{total} samples" + (f" through {args.under}" if args.under else ""))
    for title, rows in (("inclusive", inclusive), ("self", own)):
        print(f"-- {title} --")
        for frame, count in rows[: args.top]:
            print(f"{100 * count / max(total, 1):6.1f}%  {frame}")


if __name__ == "__main__":
    main()
