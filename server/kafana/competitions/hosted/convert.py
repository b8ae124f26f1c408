"""Hosted events as protobuf messages (nothing secret leaves: no seeds before their time,
no tokens)."""

from __future__ import annotations

import dataclasses

from kafana.competitions import exports
from kafana.competitions.hosted.event import (
    Entrant,
    Hosted,
    check_in_window,
    checked_in,
    config_from_meta,
    present,
    registration,
    removed,
    start_at,
)
from kafana.competitions.hosted.store import MAX_ENTRANTS
from kafana.competitions.policy import FaultPolicy
from kafana.competitions.standings import Standing
from kafana.competitions.table_results import clock_spec
from kafana.competitions.tournament import TIEBREAKS, Status, Tournament
from kafana.competitions.verify_export import Published, PublishedGame
from kafana.competitions.wire import (
    ACTIONS,
    GAME_ENDINGS,
    fault_message,
    format_enum,
    game_enum,
    phase_enum,
    preset_enum,
    rules_spec,
    status_enum,
)
from kafana.games import tablic
from kafana.v1 import competitions_pb2 as pb


def policy_spec(policy: FaultPolicy) -> pb.FaultPolicySpec:
    """The fault policy as a message."""
    return pb.FaultPolicySpec(
        move_ms=policy.move_ms,
        on_timeout=ACTIONS[policy.on_timeout],
        disconnect_grace_ms=policy.disconnect_grace_ms,
        on_disconnect=ACTIONS[policy.on_disconnect],
        timeouts_to_forfeit=policy.timeouts_to_forfeit,
        illegal_limit=policy.illegal_limit,
        no_show_ms=policy.no_show_ms,
    )


ENTRANT_STATES = {
    "withdrawn": pb.ENTRANT_STATE_WITHDRAWN,
    "disqualified": pb.ENTRANT_STATE_DISQUALIFIED,
}


def entrant_info(
    entrant: Entrant, marks: dict[str, str] | None = None, playing: set[str] | None = None
) -> pb.EntrantInfo:
    """One entrant: a built-in bot (named) or a remote player; checked in or not, and whether
    it still plays (`playing`: the started event's entrants; absent from it: dropped at
    check-in)."""
    marks = marks or {}
    info = pb.EntrantInfo(name=entrant.name, kind=pb.ENTRANT_KIND_REMOTE)
    if entrant.bot:
        info.kind, info.bot = pb.ENTRANT_KIND_BUILT_IN_BOT, entrant.bot
    info.checked_in = checked_in(entrant, marks)
    info.state = pb.ENTRANT_STATE_ACTIVE
    out = removed(marks).get(entrant.name)
    if playing is not None and entrant.name not in playing:
        info.state = pb.ENTRANT_STATE_ABSENT
    elif out is not None:
        info.state, info.state_note = ENTRANT_STATES[out[0]], out[1]
    return info


def end_reason(info: pb.EventInfo, reason: pb.EventEndReason.ValueType, detail: str) -> None:
    """Set why the event ended early, and the reason in words."""
    info.end_reason = reason
    info.end_detail = detail


def standing_info(row: Standing, rating: float) -> pb.StandingInfo:
    """One row of the standings (the message has the row's fields, and the rating)."""
    fields = dataclasses.asdict(row)
    state = ENTRANT_STATES.get(fields.pop("state"), pb.ENTRANT_STATE_ACTIVE)
    return pb.StandingInfo(**fields, rating=rating, state=state)


def standings_of(t: Tournament) -> list[pb.StandingInfo]:
    """The current standings with each entrant's conservative rating."""
    pool = t.config.pool
    return [
        standing_info(row, t.ratings.get(pool, row.entrant).conservative) for row in t.standings()
    ]


def unfinished_deals(t: Tournament) -> set[str]:
    """Commitments of deals that some game still has to play: a game handed out and not done
    (a duplicate board is dealt in one round only: once its tables are done, it is over)."""
    return {g.commitment for r in t.rounds for g in r if g.game_id not in t.results}


def revealable(t: Tournament, game_id: str, embargoed: set[str] | None = None) -> bool:
    """Whether a game's secret and record may be shown: once it is done and every game
    sharing its deals (same commitment: a duplicate board) is done too."""
    if game_id not in t.results:
        return False
    held = unfinished_deals(t) if embargoed is None else embargoed
    return t.game(game_id).commitment not in held


def rounds_of(hosted: Hosted, records: bool) -> list[pb.RoundInfo]:
    """Rounds with their games (table ids, commitments, results) and byes."""
    t = hosted.tournament
    held = unfinished_deals(t)
    out = []
    for number, games in enumerate(t.rounds, start=1):
        info = pb.RoundInfo(number=number, byes=[b.entrant for b in t.byes if b.round == number])
        for g in games:
            seats = hosted.tables.get(g.game_id)
            result = t.results.get(g.game_id)
            game = pb.GameInfo(
                game_id=g.game_id,
                round=g.round,
                seats=list(g.seats),
                commitment=g.commitment,
                table_id=seats.table_id if seats else (result.table_id if result else ""),
                board=g.board or 0,
                status=pb.GAME_STATUS_DONE
                if result
                else pb.GAME_STATUS_PLAYING
                if seats
                else pb.GAME_STATUS_WAITING,
            )
            # A duplicate board's game shows its result with its secret: once every table of
            # the board is done (before, the others' players learnt the score to beat).
            if result is not None and revealable(t, g.game_id, held):
                game.scores.extend(result.scores)
                if result.winner is not None:
                    game.winner = result.winner
                game.ending = GAME_ENDINGS[result.ending]
                game.faults.extend(fault_message(f) for f in result.faults)
                game.secret = t.secret_of(g.game_id)
                if records:
                    game.record = result.record
            info.games.append(game)
        out.append(info)
    return out


def event_info(
    event_id: str,
    meta: dict[str, str],
    entrants: list[Entrant],
    hosted: Hosted | None,
    control: tuple[str, str],
    *,
    records: bool = False,
    marks: dict[str, str] | None = None,
    now: int = 0,
) -> pb.EventInfo:
    """Everything public about an event (`marks`: check-ins, removals, the organiser's
    registration; `now`: Unix ms, whether registration is open)."""
    config = config_from_meta(meta)
    playing = None
    if hosted is not None:
        playing = set(hosted.tournament.config.entrants)
    elif meta.get("phase", "open") != "open":  # started, its first snapshot not yet written
        playing = {e.name for e in present(meta, entrants, marks or {})}
    status, note = control
    tablic_rules = isinstance(config.rules, tablic.Rules)
    info = pb.EventInfo(
        event_id=event_id,
        name=meta.get("name", ""),
        format=format_enum(config.kind),
        phase=phase_enum(meta.get("phase", "")),
        status=status_enum(status),
        note=note,
        entrants=[entrant_info(e, marks, playing) for e in entrants],
        start_at_ms=start_at(meta),
        check_in_ms=check_in_window(meta),
        tiebreaks=TIEBREAKS[config.kind.value],
        max_entrants=int(meta.get("max_entrants", "0") or 0) or MAX_ENTRANTS,
        preset=preset_enum(config.preset if tablic_rules else ""),
        target=config.rules.target if isinstance(config.rules, tablic.Rules) else 0,
        policy=policy_spec(config.policy),
        chosen_seed=config.chosen,
        seats_per_game=config.players,
        partnerships=config.partnerships,
        game=game_enum(config.game),
        duration_ms=config.duration_ms,
        rules=rules_spec(
            config.game, config.preset, config.target, config.players, config.partnerships,
            config.switches,
        ),
        clock=clock_spec(config.policy),
    )  # fmt: skip
    window = registration(meta, marks or {})
    info.entries_open_at_ms, info.entries_close_at_ms = window.opens, window.closes
    info.entries_open = meta.get("phase") == "open" and not window.refusal(now)
    if meta.get("reason"):  # the director could not play it
        end_reason(info, pb.EVENT_END_REASON_UNPLAYABLE, meta["reason"])
    if hosted is not None:
        if hosted.tournament.status is Status.ENDED:  # else the organiser's, applied or about
            info.status = status_enum(Status.ENDED.value)  # to be (the director's next scan)
        if hosted.tournament.end_reason:
            end_reason(info, pb.EVENT_END_REASON_NO_PAIRING_LEFT, hosted.tournament.end_reason)
    if info.status == pb.EVENT_STATUS_ENDED and not info.end_reason:  # (also before a start)
        info.end_reason = pb.EVENT_END_REASON_ORGANISER
    if hosted is None:
        return info
    t = hosted.tournament
    info.salt_commitment = t.salt_commitment  # a chosen seed's salt: committed from the start
    if t.finished:
        info.salt = t.salt  # ... and revealed at the end
    info.total_rounds = t.total_rounds
    info.ends_at_ms = t.ends_ms
    info.rounds.extend(rounds_of(hosted, records))
    info.standings.extend(standings_of(t))
    if t.finished:
        info.report = exports.report_text(t)
        if records:
            files = exports.all_exports(t, event_id)  # what `tournament run --out` writes
            info.records_jsonl = files["records.jsonl"]
            info.exports.update(files)
    return info


def published_of(info: pb.EventInfo) -> Published:
    """What `GetEvent` shows of an event, as `verify_export` holds an export to it."""
    games = {
        g.game_id: PublishedGame(g.round, g.board or None, tuple(g.seats), g.commitment, g.secret)
        for r in info.rounds
        for g in r.games
    }
    return Published(info.event_id, info.name, games)


def assignments(hosted: Hosted) -> dict[str, list[pb.Assignment]]:
    """Each entrant's games whose table exists and that are not decided yet, oldest first
    (one pass over the games for every entrant's `WatchEntry`)."""
    t = hosted.tournament
    out: dict[str, list[pb.Assignment]] = {}
    for games in t.rounds:
        for g in games:
            seats = hosted.tables.get(g.game_id)
            if seats is None or g.game_id in t.results:
                continue  # no table yet, or decided: nothing left to play
            for seat, entrant in enumerate(g.seats):
                out.setdefault(entrant, []).append(
                    pb.Assignment(
                        game_id=g.game_id,
                        round=g.round,
                        table_id=seats.table_id,
                        seat=seat,
                        seat_token=seats.tokens[seat],
                        seats=list(g.seats),
                        commitment=g.commitment,
                    )
                )
    return out
