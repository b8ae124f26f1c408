"""Rule switches typed on a command line: `--rule NAME=VALUE`, any switch of the game's rules
message (`TablicRules`, `TacRules`), each value read by the switch's type.

>>> switches("tablic", ("target=61", "must_capture=yes", "card_points=A=1,10D=2"))
{'target': 61, 'must_capture': True, 'card_points': [('A', 1), ('10D', 2)]}
>>> switches("tac", ("decks=2",))
{'decks': 2}
"""

from __future__ import annotations

from typing import Any

import click
from google.protobuf.descriptor import FieldDescriptor
from kafana.v1 import rules_pb2

from kafana_client.convert import switch_names

BRANCHES: dict[str, Any] = {"tablic": rules_pb2.TablicRules, "tac": rules_pb2.TacRules}
TRUE = frozenset({"true", "yes", "on", "1"})
FALSE = frozenset({"false", "no", "off", "0"})
UINT32 = 2**32 - 1


def switches(game: str, items: tuple[str, ...]) -> dict[str, Any]:
    """`NAME=VALUE` items as the rule switches of `game` (a usage error naming a bad one)."""
    fields = BRANCHES[game].DESCRIPTOR.fields_by_name
    names = switch_names(BRANCHES[game]())
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected NAME=VALUE, not {item!r}", param_hint="--rule")
        if name not in names:
            raise click.BadParameter(
                f"unknown {game} rule switch(es): {name}; the {game} switches are "
                f"{', '.join(names)}",
                param_hint="--rule",
            )
        out[name] = _value(name, text, fields[name])
    return out


def _value(name: str, text: str, field: FieldDescriptor) -> Any:
    if name == "card_points":
        return _card_points(text)
    if field.type == FieldDescriptor.TYPE_BOOL:
        word = text.strip().lower()
        if word not in TRUE | FALSE:
            raise click.BadParameter(f"{name}={text} is not true or false", param_hint="--rule")
        return word in TRUE
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= UINT32:
        raise click.BadParameter(f"{name}={text} is not a whole number >= 0", param_hint="--rule")
    return number


def _card_points(text: str) -> list[tuple[str, int]]:
    """`A=1,10D=2`: points per rank or card ("": none score)."""
    out: list[tuple[str, int]] = []
    for pair in filter(None, (p.strip() for p in text.split(","))):
        pattern, sep, points = pair.partition("=")
        if not sep or not points.isdigit() or int(points) > 100:
            raise click.BadParameter(
                f"card_points: {pair!r} is not PATTERN=POINTS (e.g. A=1,10D=2; 0..100)",
                param_hint="--rule",
            )
        out.append((pattern.strip().upper(), int(points)))
    return out
