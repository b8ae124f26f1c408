"""An independent statement of who may do what, from a seat's view only.

Written straight from `shared/RULES.md` and docs/tac.md, sharing no code with the engine's
move generator, so the random games can test one against the other.
"""

from __future__ import annotations

from kafana.games.tac import Card, View


def _follows(top: Card, card: Card) -> bool:
    return card.rank == 1 if top.rank == 13 else card.rank == top.rank + 1


def places_for(view: View, card: Card) -> list[str]:
    """Where the seat to move may put `card`: the centre and other players' discard piles."""
    seat = view.current_seat
    out = []
    if view.central:
        if _follows(view.central[-1], card):
            out.append("C")
        for other, pile in enumerate(view.discards):
            if other != seat and pile and _follows(pile[-1], card):
                out.append(f"P{other}")
    elif card.rank == 1:
        out.append("C")
    return out


def allowed(view: View, places: list[str]) -> list[str]:
    """The places accepted: with `centre_first` only the centre when the card fits it (unless
    `tac_calls` accepts the others as offences)."""
    if view.rules.centre_first and not view.rules.tac_calls and "C" in places:
        return ["C"]
    return places


def oracle_moves(view: View) -> set[str]:
    """Every accepted action, as text."""
    if view.is_over:
        return set()
    seat = view.current_seat
    assert seat is not None
    lax = view.rules.tac_calls
    found: set[str] = set()
    if view.turned is not None:
        places = places_for(view, view.turned)
        found |= {f"play X->{p}" for p in allowed(view, places)}
        if lax or not places:
            found.add("play X->D")
    else:
        own = view.discards[seat]
        places = places_for(view, own[-1]) if own else []
        found |= {f"play D->{p}" for p in allowed(view, places)}
        if lax or not places:
            found.add("flip")
    if lax and view.pending_offender is not None:
        found |= {f"call P{k}" for k in range(view.rules.players) if k != view.pending_offender}
    return found


def every_move_text(players: int) -> list[str]:
    """Every syntactically valid move at a table of `players` seats."""
    targets = ["C", "D", *(f"P{k}" for k in range(players))]
    plays = [f"play {s}->{t}" for s in "DX" for t in targets if (s, t) != ("D", "D")]
    return ["flip", *plays, *(f"call P{k}" for k in range(players))]
