"""Check a fair record line by line: the secret, every deal, every move, every meta line.

What is checked, in order (the first failure is the error's message):

1. the revealed secret's commitment is the published one, and the record was dealt from its
   deal seed (`fairness.deal_seed`); every explicit deck is that seed's deal (Tablić: deck k is
   `shuffled_deck(seed, k)`; a duplicate board's decks come from the board's secret);
2. every move replays, and a final `scores`/`places` line is what the moves give;
3. every comment the server wrote (a timeout's default move, how the table ended) matches the
   moves; any other comment is refused;
4. every meta line: known keys only, each well-formed; `seats` names one entrant per seat;
   `ending` agrees with how the record ends; each `fault` is a well-formed code consistent with
   the record (a timeout was the turn of that seat; a forfeit ended the game there);
   `deal organiser-chosen` is noted (`Verified.chosen`).

Tablić and Tač records are read alike (`kafana.games.protocol.GameState`).

>>> from kafana.games import tablic
>>> from kafana.competitions.fairness import commitment, deal_seed
>>> secret = "00" * 32
>>> state = tablic.new_match(tablic.Rules(target=11), seed=deal_seed(secret))
>>> while not state.is_over:
...     state = state.apply(state.legal_moves()[-1])
>>> meta = (("seats", "ana bo"), ("ending", "score"))
>>> fair = FairRecord(commitment(secret), secret, state.record().to_text(), meta)
>>> done = verify(fair)
>>> done.finished, done.seed == deal_seed(secret), done.seats
(True, True, ('ana', 'bo'))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, check_commitment, deal_seed
from kafana.competitions.model import Ending
from kafana.competitions.policy import Action, Reason
from kafana.errors import KafanaError
from kafana.games import tablic, tac
from kafana.games.protocol import OUT, SCORE, STALLED
from kafana.games.records import score_detail
from kafana.games.tablic.record import HEADER as TABLIC_HEADER
from kafana.games.tac.record import HEADER as TAC_HEADER

State = Any  # a `kafana.games.protocol.GameState` of either game


class VerificationError(KafanaError, ValueError):
    """A fair record that does not check out; the message says which check failed."""


def fail(message: str) -> VerificationError:
    """The error of a failed check."""
    return VerificationError(message)


@dataclass(frozen=True)
class Verified:
    """What a successful check established."""

    secret: str
    seed: int  # the deal seed, from the secret
    game: str  # "tablic" or "tac"
    deals: int  # deals recomputed from the seed
    moves: int  # moves replayed
    figures: tuple[int, ...]  # Tablić: scores per side; Tač: places per seat (once over)
    finished: bool  # played to the end by the rules
    ending: str  # the `meta ending` line's word (`Ending`)
    seats: tuple[str, ...]
    winner: int | None  # the winning side the record shows (None: a draw or none)
    sides: tuple[int, ...] = ()  # the side of each seat
    chosen: bool = False  # dealt from an organiser-chosen seed (`meta deal organiser-chosen`)

    @property
    def scores(self) -> tuple[int, ...]:
        """Tablić: the scores; Tač: the places."""
        return self.figures


@dataclass(frozen=True)
class Replay:
    """A record replayed: the game, its deals, the seat to move before each move, the end."""

    game: str
    deals: int
    moves: tuple[str, ...]
    movers: tuple[int | None, ...]  # seat to move before move n (n = 0 .. moves)
    final: State

    def figures(self) -> tuple[int, ...]:
        """Tablić: scores per side; Tač: places once over, else nothing."""
        if self.game == "tablic":
            return tuple(self.final.scores)
        return tuple(self.final.places() or ())


# -- the game's record: deals and moves ----------------------------------------------------


def _replay(start: State, moves: Sequence[object]) -> tuple[list[int | None], State]:
    """Apply every move, noting the seat to move before each; errors name the move."""
    movers: list[int | None] = []
    state = start
    for number, move in enumerate(moves, start=1):
        movers.append(state.current_seat)
        try:
            state = state.apply(move)
        except KafanaError as exc:
            raise fail(f"the moves do not replay: record move {number} ({move}): {exc}") from None
    movers.append(state.current_seat)
    return movers, state


def _tablic(text: str, seed: int) -> Replay:
    record = tablic.MatchRecord.from_text(text)
    if record.seed is None:
        raise fail("the record names no seed: a fair game is dealt from its secret's deal seed")
    if record.seed != seed:
        raise fail(f"the record was dealt from seed {record.seed}, not the deal seed {seed}")
    for k, deck in enumerate(record.decks):
        if deck != tablic.shuffled_deck(seed, k):
            raise fail(f"deck {k} of the record is not deal {k} of seed {seed}")
    start = tablic.new_match(record.rules, seed=seed, decks=record.decks or None)
    movers, final = _replay(start, record.moves)
    if record.scores is not None and (not final.is_over or record.scores != final.scores):
        said = " ".join(map(str, record.scores))
        raise fail(f"the record says scores {said} but the moves give {final.scores}")
    hands = len(final.hand_results) if final.is_over else final.hand_no + 1
    deals = max(hands, len(record.decks))  # every explicit deck is checked, played or not
    return Replay("tablic", deals, tuple(map(str, record.moves)), tuple(movers), final)


def _tac(text: str, seed: int) -> Replay:
    record = tac.GameRecord.from_text(text)
    if record.position is not None:
        raise fail("the record starts from a set-up position: a fair game is dealt from its seed")
    if record.seed is None and record.deck is None:
        raise fail("the record names no seed and no deck: a fair game is dealt from its seed")
    if record.seed is not None and record.seed != seed:
        raise fail(f"the record was dealt from seed {record.seed}, not the deal seed {seed}")
    if record.deck is not None and record.deck != tac.shuffled_deck(seed, record.rules.decks):
        raise fail(f"the record's deck is not the deal of seed {seed}")
    start = tac.new_game(record.rules, seed=seed, deck=record.deck)
    movers, final = _replay(start, record.moves)
    places = final.places()
    if record.places is not None and record.places != places:
        said = " ".join(map(str, record.places))
        raise fail(f"the record says places {said} but the moves give {places}")
    return Replay("tac", 1, tuple(map(str, record.moves)), tuple(movers), final)


GAMES: dict[str, Callable[[str, int], Replay]] = {TABLIC_HEADER: _tablic, TAC_HEADER: _tac}
"""A record's header -> its game and its replay."""


def replay(text: str, seed: int) -> Replay:
    """Check the record's deals against `seed` and replay it."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first not in GAMES:
        known = ", ".join(repr(h) for h in GAMES)
        raise fail(f"the record starts with {first[:60]!r}, not a known game's header ({known})")
    try:
        return GAMES[first](text, seed)
    except VerificationError:
        raise
    except KafanaError as exc:
        raise fail(f"the match record does not parse: {exc}") from None


# -- the server's comments in the record ---------------------------------------------------

DEFAULT_NOTE = re.compile(
    r"# event (\d+): seat (\d+) (ran out of time|was disconnected), played (\S.*)"
)
ENDED_NOTE = re.compile(
    r"# ended: (forfeit|closed|abandoned|no_show)(?: by seat (\d+))?(?: \((\w+)\))?"
)
TIMED_OUT = "ran out of time"


@dataclass(frozen=True)
class Notes:
    """The server's comments: each move it played for a seat (seq, seat, why, move) and how
    the table ended (reason, seat, why)."""

    defaults: tuple[tuple[int, int, str, str], ...]
    ended: tuple[str, int | None, str] | None

    @property
    def timeouts(self) -> tuple[tuple[int, int, str, str], ...]:
        """The default moves of seats out of time."""
        return tuple(note for note in self.defaults if note[2] == TIMED_OUT)


def notes(text: str) -> Notes:
    """The comments of a record; a comment of any other form is refused (it cannot be checked)."""
    defaults: list[tuple[int, int, str, str]] = []
    ended: tuple[str, int | None, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line.startswith("#"):
            continue
        if ended is not None:
            raise fail(f"record line {number}: a comment after the `# ended` one")
        if found := DEFAULT_NOTE.fullmatch(line):
            defaults.append((int(found[1]), int(found[2]), found[3], found[4]))
        elif found := ENDED_NOTE.fullmatch(line):
            ended = (found[1], None if found[2] is None else int(found[2]), found[3] or "")
        else:
            raise fail(f"record line {number}: a comment the verifier cannot check: {line[:60]!r}")
    return Notes(tuple(defaults), ended)


# -- meta lines ------------------------------------------------------------------------------

META_KEYS = (
    "event",
    "league",
    "season",
    "match",
    "game",
    "table",
    "seats",
    "ending",
    "fault",
    "deal",
)
"""Every meta key a fair record may carry; `fault` may repeat, the others appear once."""
REQUIRED = ("seats", "ending")
NAME = re.compile(r"[^\x00-\x1f\x7f]{1,200}")
TABLE_ID = re.compile(r"[0-9a-f]{16}")
FAULT = re.compile(r"seat(\d+):([a-z_]+)->([a-z_]+)@(\d+)")
FORFEIT_DETAIL = re.compile(r"seat (\d+) forfeited \((\w+)\)")
CLOSED_DETAIL = {
    "closed": "the admin closed the table",
    "abandoned": "abandoned: every seat ran out of time turn after turn",
    "no_show": "no result: no seat showed up",
}
"""The result detail of a table ended without a result, by the `# ended` comment's reason."""


@dataclass(frozen=True)
class FaultCode:
    """One `meta fault` line: `seat<k>:<reason>-><action>@<moves before it>`."""

    seat: int
    reason: Reason
    action: Action
    at: int

    @staticmethod
    def parse(text: str) -> FaultCode:
        """The code's parts (VerificationError names what is wrong)."""
        found = FAULT.fullmatch(text)
        if found is None:
            raise fail(f"fault {text[:60]!r} is not a code like seat1:timeout->default_move@12")
        try:
            reason = Reason(found[2])
        except ValueError:
            raise fail(f"fault {text!r}: unknown reason {found[2]!r}") from None
        try:
            action = Action(found[3])
        except ValueError:
            raise fail(f"fault {text!r}: unknown action {found[3]!r}") from None
        return FaultCode(int(found[1]), reason, action, int(found[4]))


def _meta(fair: FairRecord) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in fair.meta:
        if key not in META_KEYS:
            raise fail(f"unknown meta key {key[:40]!r} (known: {', '.join(META_KEYS)})")
        if key != "fault" and key in found:
            raise fail(f"a second `meta {key}` line")
        found.setdefault(key, []).append(value)
    for key in REQUIRED:
        if key not in found:
            raise fail(f"the record has no `meta {key}` line")
    for key in ("event", "league", "game"):
        for value in found.get(key, ()):
            if not NAME.fullmatch(value):
                raise fail(f"meta {key} {value[:60]!r} is not a name (1-200 printable characters)")
    for key in ("season", "match"):
        for value in found.get(key, ()):
            if not value.isdigit() or int(value) < 1:
                raise fail(f"meta {key} {value[:40]!r} is not a {key} number (1, 2, ...)")
    for value in found.get("table", ()):
        if not TABLE_ID.fullmatch(value):
            raise fail(f"meta table {value[:40]!r} is not a table id (16 hex digits)")
    for value in found.get("deal", ()):
        if value != CHOSEN:
            raise fail(f"meta deal {value[:40]!r}: the only value is {CHOSEN!r}")
    return found


def _seats(value: str, count: int) -> tuple[str, ...]:
    names = tuple(value.split(" "))
    if any(not name for name in names):
        raise fail(f"meta seats {value!r}: one name per seat, separated by single spaces")
    if len(names) != count:
        raise fail(f"meta seats names {len(names)} entrant(s) but the record has {count} seats")
    return names


def _forfeiter(
    detail: str, ended: tuple[str, int | None, str] | None, faults: list[FaultCode]
) -> int:
    """The seat that forfeited, from every place that says (they must agree)."""
    said: list[tuple[str, int]] = []
    if detail:
        found = FORFEIT_DETAIL.fullmatch(detail)
        if found is None:
            raise fail(f"meta ending forfeit {detail!r}: the detail is `seat <k> forfeited (why)`")
        said.append(("the ending's detail", int(found[1])))
        if ended is not None and ended[2] != found[2]:
            raise fail(f"meta ending says ({found[2]}) but the record ended ({ended[2]})")
    if ended is not None:
        if ended[0] != "forfeit" or ended[1] is None:
            raise fail(f"meta ending is forfeit but the record ended: {ended[0]}")
        said.append(("the record's end", ended[1]))
    said += [("a forfeit_match fault", f.seat) for f in faults if _forfeits(f)]
    if not said:
        raise fail("meta ending is forfeit but nothing says which seat forfeited")
    where, seat = said[0]
    for other, claimed in said[1:]:
        if claimed != seat:
            raise fail(f"{where} says seat {seat} forfeited, {other} says seat {claimed}")
    return seat


def _forfeits(fault: FaultCode) -> bool:
    """A fault that made its seat lose the match during play (not an organiser's decision)."""
    return fault.action is Action.FORFEIT_MATCH and fault.reason not in (
        Reason.ADJUDICATED,
        Reason.EVENT_ENDED,
    )


def _played_out_detail(game: Replay) -> str:
    """The table's result detail of a game played to its end (`kafana.service.convert`)."""
    outcome = game.final.outcome()
    if outcome.reason == SCORE:
        return score_detail(outcome.winner, outcome.scores)
    if outcome.reason == STALLED:
        return "drawn: no card reached the central pile for too long"
    assert outcome.reason == OUT
    return f"seat {outcome.winner} went out first"


def _legacy_detail(game: Replay) -> str:
    """The score detail of records written before 2026-12 (`side 1 won 94-108`: side order)."""
    outcome = game.final.outcome()
    return f"side {outcome.winner} won " + "-".join(map(str, outcome.scores))


def _ending(value: str, game: Replay, found: Notes, faults: list[FaultCode]) -> int | None:
    """Check `meta ending` against the record; the winning side it implies."""
    word, _, detail = value.partition(" ")
    try:
        ending = Ending(word)
    except ValueError:
        known = ", ".join(e.value for e in Ending)
        raise fail(f"meta ending {word[:40]!r} is not an ending ({known})") from None
    over = game.final.is_over
    ended = found.ended
    if ending is Ending.SCORE:
        if not over:
            raise fail("meta ending is score but the record's moves stop before the end")
        if ended is not None:
            raise fail(f"meta ending is score but the record ended: {ended[0]}")
        if detail and detail not in (_played_out_detail(game), _legacy_detail(game)):
            raise fail(f"meta ending {value!r}: the moves give {_played_out_detail(game)!r}")
        figures = game.figures()
        if game.game == "tablic" and len(set(figures)) == 1:
            return None
        winner: int | None = game.final.outcome().winner
        return winner
    if over:
        raise fail(f"meta ending is {word} but the record's moves play the game to its end")
    if ending is Ending.FORFEIT:
        seat = _forfeiter(detail, ended, faults)
        _check_seat(seat, game, "the forfeiting seat")
        outcome = game.final.outcome(forfeit=seat)
        return None if outcome is None else outcome.winner
    if ending is Ending.NOT_PLAYED:
        if ended is not None and ended[0] == "forfeit":
            raise fail("meta ending is not_played but the record ended with a forfeit")
        if detail and (ended is None or CLOSED_DETAIL[ended[0]] != detail):
            how = "no end" if ended is None else f"ended: {ended[0]}"
            raise fail(f"meta ending not_played {detail!r} but the record shows {how}")
        return None
    if detail and not NAME.fullmatch(detail):  # adjudicated: the organiser's words
        raise fail("meta ending adjudicated: the detail is one line of printable text")
    return None


def _check_seat(seat: int, game: Replay, what: str) -> None:
    seats = game.final.seats
    if not 0 <= seat < seats:
        raise fail(f"{what} is seat {seat}, but the record has seats 0..{seats - 1}")


def _faults(
    codes: list[FaultCode], game: Replay, found: Notes, ending: str, in_event: bool
) -> None:
    """Every fault against the record: its seat, its move, and the server's comments."""
    moves = len(game.moves)
    defaults = []
    for code in codes:
        text = f"fault seat{code.seat}:{code.reason}->{code.action}@{code.at}"
        _check_seat(code.seat, game, text)
        if code.at > moves:
            raise fail(f"{text}: the record has only {moves} moves")
        if code.reason is Reason.ADJUDICATED and ending != Ending.ADJUDICATED:
            raise fail(f"{text}: an adjudication's fault, but meta ending is {ending}")
        if code.reason is Reason.EVENT_ENDED and ending != Ending.NOT_PLAYED:
            raise fail(f"{text}: the event's end, but meta ending is {ending}")
        if code.reason is Reason.TIMEOUT and code.action is not Action.FORFEIT_MATCH:
            if code.at >= moves or game.movers[code.at] != code.seat:
                raise fail(f"{text}: move {code.at + 1} of the record was not seat's turn")
            defaults.append(code)
        if _forfeits(code):
            if ending != Ending.FORFEIT:
                raise fail(f"{text}: the seat forfeited, but meta ending is {ending}")
            if code.reason is Reason.TIMEOUT and (
                code.at != moves or game.movers[moves] != code.seat
            ):
                raise fail(f"{text}: the record does not end on that seat's turn at move {moves}")
    _default_notes(defaults, game, found, in_event)


def _default_notes(defaults: list[FaultCode], game: Replay, found: Notes, in_event: bool) -> None:
    """The server's notes of moves it played for a seat: each one that seat's turn and move,
    in order; in an event (whose faults list every timeout) one per timeout fault."""
    timeouts = found.timeouts
    if in_event and len(timeouts) != len(defaults):
        raise fail(
            f"the record shows {len(timeouts)} timeout(s) but the meta lines list "
            f"{len(defaults)} timeout fault(s)"
        )
    if in_event:
        for code, (seq, seat, _why, move) in zip(defaults, timeouts, strict=True):
            if code.seat != seat or game.moves[code.at] != move:
                raise fail(
                    f"fault seat{code.seat}:timeout@{code.at}: the record shows seat {seat} "
                    f"out of time at event {seq}, playing {move}"
                )
    start, last_seq = 0, 0
    for seq, seat, why, move in found.defaults:
        if seq <= last_seq:
            raise fail(f"the record's note of event {seq} is out of order")
        last_seq = seq
        hits = [
            n
            for n in range(start, len(game.moves))
            if game.moves[n] == move and game.movers[n] == seat
        ]
        if not hits:
            raise fail(f"the record's note of event {seq} (seat {seat} {why}, played {move}) "
                       "is none of its moves")  # fmt: skip
        start = hits[0] + 1


# -- the whole record ------------------------------------------------------------------------


def verify(fair: FairRecord) -> Verified:
    """Check the secret, every deal, every move and every meta line of `fair`.

    Raises `VerificationError` naming the first check that fails.
    """
    secret = fair.revealed
    if secret is None:
        raise fail("the secret has not been revealed yet")
    if not check_commitment(secret, fair.commitment):
        raise fail(f"the revealed secret does not match the commitment {fair.commitment}")
    seed = deal_seed(secret)
    game = replay(fair.record, seed)
    found = notes(fair.record)
    meta = _meta(fair)
    seats = _seats(meta["seats"][0], game.final.seats)
    codes = [FaultCode.parse(value) for value in meta.get("fault", ())]
    ending = meta["ending"][0]
    winner = _ending(ending, game, found, codes)
    _faults(codes, game, found, ending.partition(" ")[0], "event" in meta and "table" in meta)
    return Verified(
        secret=secret,
        seed=seed,
        game=game.game,
        deals=game.deals,
        moves=len(game.moves),
        figures=game.figures(),
        finished=game.final.is_over,
        ending=ending.partition(" ")[0],
        seats=seats,
        winner=winner,
        sides=tuple(game.final.side_of(seat) for seat in range(len(seats))),
        chosen="deal" in meta,
    )
