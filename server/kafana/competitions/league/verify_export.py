"""Check a league season's `matches.jsonl` (`kafana league export`): every match's fair record,
and each line's fields against it.

A line is a `MatchInfo` in the proto's JSON mapping (fields at their default left out, 64-bit
numbers as strings). With a record, its check (`verify.verify`) must pass and the line must say
what the record says: league, match, season, table, players in seat order, commitment and the
revealed secret. A line without a record (a match settled before anyone played) is reported as
such. Across lines: one league, each match once.

>>> verify_matches('{"league": "spring", "match": "1", "state": "MATCH_STATE_SETTLED"}')
[Checked(line=1, game='match 1', ending='', verified=None)]
>>> print(*verify_matches('{"event": "cup"}'))
line 1: unknown field(s) 'event'
"""

from __future__ import annotations

from typing import Any

from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import VerificationError, Verified, fail, verify
from kafana.competitions.verify_export import Checked, agree
from kafana.errors import KafanaError
from kafana.games.records import json_value

FIELDS = frozenset(
    {
        *("league", "match", "season", "players", "table_id", "commitment", "state", "ending"),
        *("scores", "rated", "faults", "secret", "record", "created_ms", "settled_ms"),
        *("forfeit_reason", "detail"),
    }
)
"""Every field of `kafana.v1.MatchInfo` (its JSON names)."""


def is_league_line(raw: str) -> bool:
    """Whether a JSON line is a league's match (it names a league, not an event)."""
    try:
        item = json_value(raw)
    except ValueError:
        return False
    return isinstance(item, dict) and "league" in item and "event" not in item


def _fields(raw: str) -> dict[str, Any]:
    try:
        item = json_value(raw)
    except ValueError as exc:
        raise fail(f"not a JSON object: {exc}") from None
    if not isinstance(item, dict):
        raise fail("not a JSON object")
    unknown = sorted(set(item) - FIELDS)
    if unknown:
        raise fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
    for name in ("league", "match"):
        if name not in item:
            raise fail(f"missing field {name}")
    if not isinstance(item["league"], str):
        raise fail("field league is a string")
    if not str(item["match"]).isdigit():
        raise fail(f"field match is a match number, not {str(item['match'])[:40]!r}")
    for name in ("record", "table_id", "commitment", "secret"):
        if not isinstance(item.get(name, ""), str):
            raise fail(f"field {name} is a string")
    players = item.get("players", [])
    if not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
        raise fail("field players is a list of names")
    return item


def _with_record(item: dict[str, Any]) -> Verified:
    """The fair record checked, and every field that it also says."""
    try:
        fair = FairRecord.from_text(item["record"])
        done = verify(fair)
    except KafanaError as exc:
        raise fail(f"field record: {exc}") from None
    agree("commitment", item.get("commitment", ""), fair.commitment)
    agree("league", item["league"], fair.get("league"))
    agree("match", str(item["match"]), fair.get("match"))
    agree("season", str(item.get("season", 0)), fair.get("season", "0"))
    agree("table_id", item.get("table_id", ""), fair.get("table"))
    agree("players", item.get("players", []), list(done.seats))
    if "secret" in item:
        agree("secret", item["secret"], done.secret)
    return done


def verify_matches(text: str) -> list[Checked | VerificationError]:
    """Every line of a league export, checked (a failure names its line)."""
    out: list[Checked | VerificationError] = []
    league: tuple[str, int] | None = None
    matches: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            item = _fields(raw)
            done = _with_record(item) if item.get("record") else None
            league = league or (item["league"], number)
            if item["league"] != league[0]:
                raise fail(f"league {item['league']!r}, but line {league[1]} is of {league[0]!r}")
            match = str(item["match"])
            if match in matches:
                raise fail(f"match {match} is on line {matches[match]} already")
            matches[match] = number
            ending = done.ending if done is not None else ""
            out.append(Checked(number, f"match {match}", ending, done))
        except VerificationError as exc:
            out.append(VerificationError(f"line {number}: {exc}"))
    return out
