"""Exports: match records (JSON lines), standings (CSV), a text report and an HTML page.

The HTML page is self-contained (inline SVG, no scripts, no network): rating curves of
every entrant and the standings table. `all_exports` gives every file an event exports, the
same for the local runner and a hosted event.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence

from kafana.competitions.envelope import FairRecord
from kafana.competitions.model import Ending
from kafana.competitions.ratings import HistoryPoint
from kafana.competitions.standings import Standing
from kafana.competitions.tournament import EventConfig, Status, Tournament
from kafana.games.tablic import Rules

STANDING_FIELDS = (
    "rank",
    "entrant",
    "points",
    "played",
    "wins",
    "draws",
    "losses",
    "byes",
    "buchholz",
    "sonneborn_berger",
    "diff",
    "head_to_head",
    "state",
)


EXPORTS = ("records.jsonl", "standings.csv", "report.html", "ratings.json")
"""The files every event exports, by name."""


def all_exports(tournament: Tournament, event_id: str = "") -> dict[str, str]:
    """Every export of an event by file name (`EXPORTS`): what both runners write.

    `event_id`: the server's id of a hosted event, on every line of the records, so `kafana
    verify --server` holds the export to what that server published."""
    return {
        "records.jsonl": records_jsonl(tournament, event_id),
        "standings.csv": standings_csv(tournament.standings()),
        "report.html": report_html(tournament),
        "ratings.json": tournament.ratings.to_json(),
    }


def _state(tournament: Tournament) -> str:
    if tournament.end_reason:
        return f"ended: {tournament.end_reason}"
    if tournament.finished and tournament.status is Status.RUNNING:
        return "finished"
    return tournament.status.value


def rules_line(config: EventConfig) -> str:
    """The game and rules of an event in a few words."""
    if config.game == "tac":
        return f"Tač, {config.players} players"
    target = config.rules.target if isinstance(config.rules, Rules) else 0
    return f"Tablić {config.preset}, {config.table_name}, target {target}"


def records_jsonl(tournament: Tournament, event_id: str = "") -> str:
    """One JSON object per game: who, result, faults and the replayable fair record (and the
    hosted event's id, `event_id`, when it has one)."""
    lines = []
    for games in tournament.rounds:
        for spec in games:
            result = tournament.results.get(spec.game_id)
            item = {
                "event": tournament.config.name,
                "game": spec.game_id,
                "round": spec.round,
                "board": spec.board,
                "seats": list(spec.seats),
                "sides": [spec.side_of(seat) for seat in range(len(spec.seats))],
                "commitment": spec.commitment,
                "scores": list(result.scores) if result else None,
                "winner": result.winner if result else None,
                "ending": result.ending.value if result else "pending",
                "faults": [f.code() for f in result.faults] if result else [],
                "table": result.table_id if result else "",
                "note": result.note if result else "",
                "record": result.record if result else "",
            }
            if event_id:
                item["event_id"] = event_id
            lines.append(json.dumps(item, sort_keys=True))
    return "".join(line + "\n" for line in lines)


def score_text(scores: Sequence[int], places: Sequence[int]) -> str:
    """Points per side, or the places when the game scores nothing (Tač)."""
    return " : ".join(map(str, scores)) if scores else "places " + " ".join(map(str, places))


def standings_csv(rows: Sequence[Standing]) -> str:
    """The standings as CSV with a header row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDING_FIELDS)
    for row in rows:
        writer.writerow([getattr(row, name) for name in STANDING_FIELDS])
    return out.getvalue()


def report_text(tournament: Tournament) -> str:
    """The final report: rounds with results and faults, standings, ratings."""
    config = tournament.config
    lines = [
        f"Event {config.name}: {config.kind.value}, {len(config.entrants)} entrants, "
        f"{len(tournament.rounds)}/{tournament.total_rounds} rounds, {_state(tournament)}",
        f"Rules: {rules_line(config)}; ratings pool {config.pool}",
    ]
    if tournament.salt:
        salt = tournament.salt if tournament.finished else "(revealed at the end)"
        lines.append(
            f"Deals: organiser-chosen seed {config.chosen_seed} mixed with the server salt {salt}"
            f" (committed at the start: {tournament.salt_commitment})"
        )
    for number, games in enumerate(tournament.rounds, start=1):
        lines.append(f"Round {number}")
        for spec in games:
            result = tournament.results.get(spec.game_id)
            board = f" board {spec.board}" if spec.board else ""
            if result is None:
                lines.append(f"  {spec.game_id}{board}: {' - '.join(spec.seats)} (pending)")
                continue
            score = score_text(result.scores, result.side_places(len(spec.sides)))
            why = "" if result.ending is Ending.SCORE else f" [{result.ending.value}]"
            faults = "".join(f" {f.code()}" for f in result.faults)
            lines.append(f"  {spec.game_id}{board}: {' - '.join(spec.seats)}  {score}{why}{faults}")
        for bye in tournament.byes:
            if bye.round == number:
                lines.append(f"  bye: {bye.entrant}")
    lines.append("Standings")
    lines.append("  #  entrant          pts  W  D  L  buchholz  SB    diff  rating")
    for row in tournament.standings():
        rating = tournament.ratings.get(config.pool, row.entrant)
        flag = "?" if tournament.ratings.policy.provisional(rating) else " "
        lines.append(
            f"  {row.rank:<2} {row.entrant:<16} {row.points:>4.4g} {row.wins:>2} {row.draws:>2}"
            f" {row.losses:>2} {row.buchholz:>8.4g} {row.sonneborn_berger:>4.4g} {row.diff:>6}"
            f"  {rating.conservative:6.2f}{flag}"
            + ("" if row.state == "active" else f"  {row.state.upper()}")
        )
    lines.append("(? = provisional rating; rating = mu - 3 sigma)")
    return "\n".join(lines) + "\n"


_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip


def _curves_svg(history: dict[str, list[HistoryPoint]], width: int = 640, height: int = 320) -> str:
    points = [p for curve in history.values() for p in curve]
    if not points:
        return "<p>No rated games yet.</p>"
    pad = 40
    xmax = max(p.game for p in points) or 1
    ymin = min(p.conservative for p in points)
    ymax = max(p.conservative for p in points)
    ymin, ymax = min(ymin, 0.0), max(ymax, ymin + 1.0)

    def xy(game: int, value: float) -> str:
        x = pad + (width - 2 * pad) * game / xmax
        y = height - pad - (height - 2 * pad) * (value - ymin) / (ymax - ymin)
        return f"{x:.1f},{y:.1f}"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}"'
        f' height="{height + 20 * len(history)}" font-family="sans-serif" font-size="11">',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}"'
        ' stroke="#999"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#999"/>',
        f'<text x="{pad}" y="{pad - 8}">{ymax:.1f}</text>',
        f'<text x="{pad}" y="{height - pad + 14}">{ymin:.1f}</text>',
        f'<text x="{width - pad - 60}" y="{height - pad + 14}">game {xmax}</text>',
    ]
    for i, (name, curve) in enumerate(sorted(history.items())):
        colour = _COLOURS[i % len(_COLOURS)]
        start = xy(0, curve[0].mu - 3 * 25 / 3) if curve else ""
        path = " ".join([start, *(xy(p.game, p.conservative) for p in curve)])
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        y = height + 14 + 20 * i
        parts.append(f'<rect x="{pad}" y="{y - 9}" width="12" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{pad + 18}" y="{y}">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def report_html(tournament: Tournament) -> str:
    """A self-contained HTML page: rating curves (mu - 3 sigma per game) and standings."""
    config = tournament.config
    rows = []
    for row in tournament.standings():
        rating = tournament.ratings.get(config.pool, row.entrant)
        provisional = " (provisional)" if tournament.ratings.policy.provisional(rating) else ""
        cells = [getattr(row, name) for name in STANDING_FIELDS]
        cells.append(f"{rating.conservative:.2f}{provisional}")
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{html.escape(n)}</th>" for n in (*STANDING_FIELDS, "rating"))
    title = html.escape(f"{config.name}: {config.kind.value}")
    history = tournament.ratings.history.get(config.pool, {})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}</style></head>
<body><h1>{title}</h1>
<p>{len(tournament.rounds)} of {tournament.total_rounds} rounds, {_state(tournament)}.
{html.escape(rules_line(config))}.</p>
<h2>Rating curves (mu - 3 sigma)</h2>
{_curves_svg(history)}
<h2>Standings</h2>
<table><tr>{head}</tr>
{chr(10).join(rows)}
</table></body></html>
"""


def verify_jsonl(text: str) -> list[FairRecord]:
    """The fair records inside a JSON-lines export (games without one are skipped)."""
    out = []
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line).get("record", "")
            if record:
                out.append(FairRecord.from_text(record))
    return out
