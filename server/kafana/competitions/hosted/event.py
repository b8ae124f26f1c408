"""A hosted event's definition: checking a create request, tokens, and the tournament.

The meta fields kept per event: `name`, `format`, `config` (the `EventConfig` as JSON, without
entrants), `organiser` (SHA-256 of the organiser token), `parallel`, `created`.
An entrant's value: JSON {"bot": registry name or "", "token": SHA-256 of its entry token}.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from kafana_bots import registry

from kafana.competitions import pairing
from kafana.competitions.hosted.snapshot import config_dict, config_of, dumps, loads
from kafana.competitions.hosted.store import MAX_ENTRANTS
from kafana.competitions.policy import FaultPolicy
from kafana.competitions.ratings import RatingBook
from kafana.competitions.table_results import clock_spec
from kafana.competitions.tournament import EventConfig, EventError, Kind, Tournament
from kafana.competitions.wire import FORMATS, action_of, game_name, preset_name
from kafana.errors import AuthenticationError, InvalidInputError, NotFoundError
from kafana.games import tablic, tac
from kafana.service.games import build_rules
from kafana.service.inputs import EVENT, check
from kafana.service.tables import check_clock
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import rules_pb2

ORGANISER_TOKEN = "kafana-organiser-token"
"""Call metadata: the event's organiser (`CreateEventResponse.organiser_token`)."""
ENTRY_TOKEN = "kafana-entry-token"
"""Call metadata: an entrant (`EnterEventResponse.entry_token`)."""
MAX_ROUNDS = 64
MAX_BOARDS = 64
DEFAULT_MOVE_MS = 10_000
"""An event's clock when the organiser sends no fault policy: 10 s a move."""
DEFAULT_TIMEOUTS_TO_FORFEIT = 3
"""... and the timeouts at which a seat forfeits its game: a hung bot costs at most ~30 s."""
MAX_CHECK_IN_MS = 86_400_000
"""The longest check-in window (24 hours)."""
MAX_AHEAD_MS = 30 * 86_400_000
"""A scheduled start is at most 30 days ahead (the default retention)."""


def digest(token: str) -> str:
    """What is kept of a secret token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh secret token."""
    return secrets.token_urlsafe(24)


def check_token(token: str, kept: str, what: str) -> None:
    """AuthenticationError unless `token` is the one whose digest is `kept`."""
    if not token or not hmac.compare_digest(digest(token), kept):
        raise AuthenticationError(f"wrong or missing {what} token")


def event_config(request: pb.CreateEventRequest) -> EventConfig:
    """An event's configuration (placeholder entrants) from a request; InvalidInputError if
    bad."""
    name, target = request.name, request.target
    rounds, boards, hands_per_board = request.rounds, request.boards, request.hands_per_board
    p = request.policy
    game = game_name(request.game)
    preset = preset_name(request.preset)
    players = request.seats_per_game or (4 if game == "tac" else 2)
    partnerships = request.partnerships
    switches: dict[str, Any] = {}
    if request.HasField("rules"):  # a table's RulesSpec: every switch
        game, preset, target, players, partnerships, switches = rules_of_spec(request)
    check(EVENT, name)
    if request.format not in FORMATS:
        choices = ", ".join(pb.EventFormat.Name(f) for f in FORMATS)
        raise InvalidInputError(
            f"unknown event format {request.format}: choose {choices}", field="format"
        )
    if players not in (2, 3, 4):
        raise InvalidInputError(f"seats per game {players}: 2, 3 or 4")
    if rounds > MAX_ROUNDS:
        raise InvalidInputError(f"rounds {rounds}: at most {MAX_ROUNDS}")
    if boards > MAX_BOARDS or hands_per_board > MAX_BOARDS:
        raise InvalidInputError(f"boards and hands per board: at most {MAX_BOARDS}")
    if request.HasField("seed") and not request.chosen_seed:
        raise InvalidInputError(
            "an event seed makes every deal predictable to whoever knows or guesses it: "
            "set chosen_seed to use one (its records say so), or leave it out for fresh secrets"
        )
    if target > 10_000:
        raise InvalidInputError(f"target {target}: at most 10000")
    base = FaultPolicy()
    if request.HasField("clock"):  # a table's ClockSpec
        if request.HasField("policy"):
            raise InvalidInputError("give the clock or the policy, not both", field="clock")
        p = policy_spec_of(request.clock)
    elif not request.HasField("policy"):  # sensible defaults: a clock, and a forfeit limit
        p = pb.FaultPolicySpec(
            move_ms=DEFAULT_MOVE_MS, timeouts_to_forfeit=DEFAULT_TIMEOUTS_TO_FORFEIT
        )
    policy = FaultPolicy(
        move_ms=p.move_ms,
        on_timeout=action_of(p.on_timeout, base.on_timeout),
        disconnect_grace_ms=p.disconnect_grace_ms or base.disconnect_grace_ms,
        on_disconnect=action_of(p.on_disconnect, base.on_disconnect),
        illegal_limit=p.illegal_limit or base.illegal_limit,
        timeouts_to_forfeit=p.timeouts_to_forfeit,
        no_show_ms=p.no_show_ms,
    )
    check_clock(clock_spec(policy))  # the tables' own limits (24 hours at most)
    kind = FORMATS[request.format]
    return EventConfig(  # InvalidInputError for an unknown preset or game, a bad table
        name,
        kind,
        placeholders(kind, rounds, players, partnerships),  # the real ones come at the start
        rounds,
        boards or 2,
        hands_per_board or 8,
        preset=preset,
        target=target,
        chosen_seed=request.seed if request.HasField("seed") else None,
        policy=policy,
        game=game,
        players=players,
        partnerships=partnerships,
        duration_ms=request.duration_ms,
        switches=switches,
    )


SPEC_FIELDS = ("game", "preset", "target", "seats_per_game", "partnerships")
"""CreateEventRequest's own rules fields: unset when `rules` (a RulesSpec) says it all."""


def rules_of_spec(
    request: pb.CreateEventRequest,
) -> tuple[str, str, int, int, bool, dict[str, Any]]:
    """Game, preset, target, players, partnerships and the switches off the preset of a
    request's `rules` (a table's RulesSpec, checked as a table's: InvalidInputError)."""
    given = [f for f in SPEC_FIELDS if getattr(request, f)]
    if given:
        raise InvalidInputError(
            f"give the rules (a RulesSpec) or {', '.join(given)}, not both", field="rules"
        )
    spec = request.rules
    engine = build_rules(spec)  # InvalidRulesError naming the switch
    if isinstance(engine, tac.Rules):
        plain = tac.Rules(players=engine.players)
        switches = {
            f.name: getattr(engine, f.name)
            for f in dataclasses.fields(engine)
            if getattr(engine, f.name) != getattr(plain, f.name)
        }
        return "tac", "", 0, engine.players, False, switches
    assert isinstance(engine, tablic.Rules)  # build_rules makes one of the two
    preset = preset_name(spec.tablic.preset)
    base = tablic.Rules.preset(preset, players=engine.players, partnerships=engine.partnerships)
    switches = {}
    for f in dataclasses.fields(engine):
        value = getattr(engine, f.name)
        if f.name in ("players", "partnerships", "target") or value == getattr(base, f.name):
            continue
        switches[f.name] = [list(x) for x in value] if f.name == "card_points" else value
    target = engine.target if engine.target != base.target else 0
    return "tablic", preset, target, engine.players, engine.partnerships, switches


def policy_spec_of(clock: rules_pb2.ClockSpec) -> pb.FaultPolicySpec:
    """A table's ClockSpec as an event's fault policy."""
    answers = {
        rules_pb2.TIMEOUT_POLICY_FORFEIT: pb.FAULT_ACTION_FORFEIT_MATCH,
        rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE: pb.FAULT_ACTION_DEFAULT_MOVE,
    }
    return pb.FaultPolicySpec(
        move_ms=clock.move_millis,
        on_timeout=answers.get(clock.policy, pb.FAULT_ACTION_UNSPECIFIED),
        disconnect_grace_ms=clock.disconnect_grace_millis,
        on_disconnect=answers.get(clock.on_disconnect, pb.FAULT_ACTION_UNSPECIFIED),
        timeouts_to_forfeit=clock.forfeit_after_timeouts,
        illegal_limit=clock.illegal_limit,
        no_show_ms=clock.no_show_millis,
    )


def placeholders(kind: Kind, rounds: int, players: int, partnerships: bool) -> tuple[str, ...]:
    """Stand-in entrants of a configuration before the start: the fewest for which it can be
    played (a Swiss of `rounds` needs enough entrants for that many rounds without a repeat)."""
    n = 2 * players if kind is Kind.DUPLICATE else players  # duplicate: two tables a round
    if kind in (Kind.SWISS, Kind.DUPLICATE):
        while n < MAX_ENTRANTS and pairing.max_rounds(kind, n, players, partnerships) < rounds:
            n += 1
    return tuple(f"-{i}" for i in range(n))


def with_entrants(config: EventConfig, entrants: list[str]) -> EventConfig:
    """`config` for its real entrants; EventError (naming the most rounds of a Swiss, the
    fewest entrants of a table) if they cannot play it."""
    try:
        return replace(config, entrants=tuple(entrants))
    except InvalidInputError as error:
        raise EventError(f"the event cannot start: {error}") from None


def meta_fields(
    config: EventConfig,
    organiser_token: str,
    parallel: int,
    now: int,
    entries_per_account: int = 0,
    organiser: str = "",
    start_at_ms: int = 0,
    check_in_ms: int = 0,
    max_entrants: int = 0,
    entries_open_at_ms: int = 0,
    entries_close_at_ms: int = 0,
) -> dict[str, str]:
    """The meta hash of a new event (`organiser`: the creating caller's key, if any; a
    scheduled start, a check-in window and a registration window, if set)."""
    check_registration(now, start_at_ms, entries_open_at_ms, entries_close_at_ms)
    if entries_per_account > MAX_ENTRANTS:
        raise InvalidInputError(
            f"entries_per_account is at most {MAX_ENTRANTS}, not {entries_per_account}",
            field="entries_per_account",
        )
    if max_entrants > MAX_ENTRANTS:
        raise InvalidInputError(
            f"max_entrants is at most {MAX_ENTRANTS}, not {max_entrants}", field="max_entrants"
        )
    if check_in_ms > MAX_CHECK_IN_MS:
        raise InvalidInputError(
            f"check_in_ms is at most {MAX_CHECK_IN_MS} (24 hours), not {check_in_ms}",
            field="check_in_ms",
        )
    if start_at_ms and not now <= start_at_ms <= now + MAX_AHEAD_MS:
        raise InvalidInputError(
            f"start_at_ms {start_at_ms} is not between now ({now}) and 30 days ahead",
            field="start_at_ms",
        )
    return {
        "start_at": str(start_at_ms),
        "max_entrants": str(max_entrants or MAX_ENTRANTS),
        "check_in": str(check_in_ms),
        "name": config.name,
        "format": config.kind.value,
        "config": json.dumps(config_dict(config), sort_keys=True),
        "organiser": digest(organiser_token),
        "parallel": str(parallel),
        "created": str(now),
        "entries_per_account": str(entries_per_account or 1),
        "organiser_caller": organiser,
        "entries_open": str(entries_open_at_ms),
        "entries_close": str(entries_close_at_ms),
    }


def check_registration(now: int, start: int, opens: int, closes: int) -> None:
    """A registration window's times: within 30 days, opening before it closes, closing no
    later than a scheduled start; InvalidInputError naming the field otherwise."""
    for value, name in ((opens, "entries_open_at_ms"), (closes, "entries_close_at_ms")):
        if value and not 0 <= value <= now + MAX_AHEAD_MS:
            raise InvalidInputError(f"{name} {value} is more than 30 days ahead", field=name)
    if opens and closes and closes <= opens:
        raise InvalidInputError(
            f"entries_close_at_ms {closes} is not after entries_open_at_ms {opens}",
            field="entries_close_at_ms",
        )
    if closes and closes <= now:
        raise InvalidInputError(
            f"entries_close_at_ms {closes} has passed (now {now})", field="entries_close_at_ms"
        )
    if start and closes > start:
        raise InvalidInputError(
            f"entries_close_at_ms {closes} is after the start ({start}): entries close at the"
            " start at the latest",
            field="entries_close_at_ms",
        )


REGISTRATION = "registration"
"""The mark of an organiser's SetRegistration: "closed <ms>" or "open <ms>"."""


@dataclass(frozen=True)
class Registration:
    """When an open event takes entries: its window, as the organiser last set it."""

    opens: int  # Unix ms, 0: from the creation
    closes: int  # Unix ms, 0: until the start
    closed: bool  # the organiser closed it

    def refusal(self, now: int) -> str:
        """Why an entry at `now` is refused ("" when it is taken)."""
        if self.closed:
            return "the organiser has closed registration"
        if now < self.opens:
            wait = (self.opens - now) // 1000
            return f"registration opens at {self.opens} (Unix ms), in {wait} s"
        if self.closes and now >= self.closes:
            return f"registration closed at {self.closes} (Unix ms)"
        return ""


def registration(meta: dict[str, str], marks: dict[str, str]) -> Registration:
    """The registration window of an event: its meta's, changed by the organiser's last
    SetRegistration (opened at T: from T on, a closing time before T no longer applies)."""
    opens = int(meta.get("entries_open", "0") or 0)
    closes = int(meta.get("entries_close", "0") or 0)
    state, _, at = marks.get(REGISTRATION, "").partition(" ")
    if state == "closed":  # closed then
        return Registration(opens, int(at or 0), True)
    if state == "open":
        when = int(at or 0)
        opens = min(opens, when)
        closes = closes if closes > when else 0
    return Registration(opens, closes, False)


def entries_per_account(meta: dict[str, str]) -> int:
    """How many entrants one caller may enter (1 for events made before the limit)."""
    return int(meta.get("entries_per_account", "1") or 1)


def start_at(meta: dict[str, str]) -> int:
    """The scheduled start (Unix ms), 0 for none."""
    return int(meta.get("start_at", "0") or 0)


def check_in_window(meta: dict[str, str]) -> int:
    """The check-in window (ms) before the start; 0: no check-in."""
    return int(meta.get("check_in", "0") or 0)


def check_in_opens(meta: dict[str, str]) -> int:
    """When check-in opens (Unix ms): `check_in_ms` before a scheduled start, else (no start
    time, or no check-in: nothing to wait for) at once."""
    at, window = start_at(meta), check_in_window(meta)
    return at - window if at and window else 0


def checked_in(entrant: Entrant, marks: dict[str, str]) -> bool:
    """Whether `entrant` counts as present: it checked in, or is a built-in bot."""
    return bool(entrant.bot) or f"in:{entrant.name}" in marks


def present(meta: dict[str, str], entrants: list[Entrant], marks: dict[str, str]) -> list[Entrant]:
    """The entrants who play round 1: every one, or with check-in those who checked in."""
    if not check_in_window(meta):
        return entrants
    return [e for e in entrants if checked_in(e, marks)]


def removed(marks: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Entrants taken out after the start: name -> (withdrawn or disqualified, note)."""
    out = {}
    for key, value in marks.items():
        if key.startswith("out:"):
            state, _, note = value.partition(" ")
            out[key[4:]] = (state, note)
    return out


def config_from_meta(meta: dict[str, str]) -> EventConfig:
    """The configuration kept in an event's meta (placeholder entrants)."""
    return config_of(json.loads(meta["config"]))


def entrant_value(
    bot: str, token: str, game: str = "tablic", account: str = "", caller: str = ""
) -> str:
    """An entrant's stored value (bot name, or the entry token's digest; the account that
    entered it, if the call carried a key, and the caller key it counts against)."""
    if bot:
        registry.entry(bot, game)  # InvalidInputError naming the game's known bots
    value = {"bot": bot, "token": digest(token) if token else "", "account": account}
    if caller:
        value["caller"] = caller
    return json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class Entrant:
    """One entrant: entry order, its built-in bot ("" for a person or remote bot), token digest."""

    name: str
    number: int
    bot: str
    token: str
    account: str = ""  # who entered it, when the call carried an API key
    caller: str = ""  # the caller key its entry counts against (`a:<account>`, `p:<address>`)

    @property
    def kind(self) -> str:
        """ "bot:<name>" or "remote"."""
        return f"bot:{self.bot}" if self.bot else "remote"

    @property
    def rating_key(self) -> str:
        """Its key in the service's rating book: "<account> <name>" when an account entered
        it (no name has a space: nobody else writes that rating), else its name."""
        return f"{self.account} {self.name}" if self.account else self.name


def entrants_of(raw: dict[str, str]) -> list[Entrant]:
    """Entrants in entry order."""
    out = []
    for name, value in raw.items():
        number, _, text = value.partition(" ")
        data = json.loads(text)
        out.append(
            Entrant(
                name,
                int(number),
                data["bot"],
                data["token"],
                data.get("account", ""),
                data.get("caller", ""),
            )
        )
    return sorted(out, key=lambda e: e.number)


@dataclass
class TableSeats:
    """A game's table on the server: its id, admin token and every seat's token."""

    table_id: str
    admin_token: str
    tokens: list[str]


@dataclass
class Hosted:
    """What the director keeps of a started event: the tournament and its tables."""

    tournament: Tournament
    tables: dict[str, TableSeats] = field(default_factory=dict)

    def dumps(self) -> str:
        """JSON (secrets and seat tokens included: server-side only)."""
        tables = {g: [t.table_id, t.admin_token, t.tokens] for g, t in self.tables.items()}
        return json.dumps({"tournament": dumps(self.tournament), "tables": tables})

    @staticmethod
    def loads(text: str) -> Hosted:
        """Inverse of `dumps`."""
        data: dict[str, Any] = json.loads(text)
        tables = {g: TableSeats(t, a, list(k)) for g, (t, a, k) in data["tables"].items()}
        return Hosted(loads(data["tournament"]), tables)

    @staticmethod
    def begin(
        meta: dict[str, str], entrants: list[Entrant], book: RatingBook, now: int = 0
    ) -> Hosted:
        """A new tournament for a started event at `now` (Unix ms: an arena ends its duration
        later); `book` holds the entrants' ratings so far (the service's rating book), which
        seed Swiss round 1."""
        config = with_entrants(config_from_meta(meta), [e.name for e in entrants])
        pool = config.pool
        rated = {n: r.conservative for n, r in book.ratings.get(pool, {}).items()}
        t = Tournament(replace(config, ratings=rated), book)
        if config.duration_ms:
            t.ends_ms = now + config.duration_ms
        return Hosted(t)


def missing(event_id: str) -> NotFoundError:
    """The error for an unknown event."""
    return NotFoundError(f"no event {event_id!r}", resource="event")
