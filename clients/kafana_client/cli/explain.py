"""The rules as this engine plays them, in words, from a rules object's own values (never a
copy of the rule book that could drift from it), and the keys of the terminal game.

`kafana rules` prints them; `?` at the table shows them with the keys. Every line is made
from `tablic.Rules` / `tac.Rules` fields: change a switch and the text changes.

>>> from kafana.games import tablic
>>> lines = tablic_rules(tablic.Rules.preset("serbian"))
>>> lines[0]
'Tablić, 2 players; the match is played to 101 points.'
>>> next(line for line in lines if line.startswith("Points"))
'Points of the cards taken: A, 10, J, Q, K 1 each; 2C 1; 10D 2.'
"""

from __future__ import annotations

from collections import defaultdict

from kafana.games import tablic, tac
from kafana.games.cards import CARDS
from kafana.games.tablic.builds import value_limit

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def tablic_rules(rules: tablic.Rules) -> list[str]:
    """Tablić as `rules` plays it: seats, the deal, captures, points, the match."""
    seats = (
        "2 partnerships (seats 0 and 2 against 1 and 3)"
        if rules.partnerships
        else f"{rules.players} players"
    )
    out = [f"Tablić, {seats}; the match is played to {rules.target} points."]
    opening = "4 cards go face up on the table"
    if rules.jack_off_opening_table:
        opening += " (a J among them goes under the deck)"
    out.append(f"Each hand: {opening}, then each player gets 6 cards a deal until the deck is out.")
    out.append(
        "A turn: play one card. It captures table cards, or it trails (stays on the table)"
        + (
            "; a player who can capture must."
            if rules.must_capture
            else "; you may trail even when you could capture."
        )
    )
    ace = "A = 1 or 11" if rules.ace_high else "A = 1"
    if rules.wild_jack:
        royals = f"Q = {rules.queen_value}, K = {rules.king_value}"
        out.append(f"Values: {ace}, 2..10 their face value, {royals}.")
        out.append(
            "The J is wild: a played J takes every card on the table; a J on the table is "
            "taken only by a J."
        )
    else:
        royals = f"J = {rules.jack_value}, Q = {rules.queen_value}, K = {rules.king_value}"
        out.append(f"Values: {ace}, 2..10 their face value, {royals}.")
    if rules.royals_by_rank_only:
        out.append("Q and K capture, and are captured, only by their own rank.")
    if rules.multi_group:
        out.append(
            "A capture takes one or more separate groups of table cards, each summing to the "
            "played card's value or being one card of its rank."
        )
    else:
        out.append(
            "A capture takes one group: table cards summing to the played card's value, or "
            "one card of its rank."
        )
    if rules.rank_priority:
        out.append("A card that can take a card of its own rank must take one.")
    if rules.building:
        limit = value_limit(rules)
        out.append(
            "Building: instead, play a card onto table cards to make a build worth the value of "
            f"a card still in your hand (at most {limit}; e.g. 7C>AH+5D=13), or raise a build "
            "(it becomes yours). A build is taken whole, by a card of its value; while you own "
            "one you may not trail."
        )
    out.append(f"Points of the cards taken: {card_points(rules)}.")
    tie = (
        " (a tie goes to the last side to capture)"
        if rules.most_cards_tie_to_last
        else " (a tie: nobody)"
    )
    out.append(f"Most cards taken in a hand: {rules.most_cards_points}{tie}.")
    last = "" if rules.last_card_tabla else "; not with the last card of a hand"
    out.append(f"Each tabla (a capture that empties the table): {rules.tabla_points}{last}.")
    total = sum(rules.points_by_index) + rules.most_cards_points
    out.append(
        f"A hand gives {total} points plus the tablas; cards left on the table at its end go "
        "to the side that captured last."
    )
    out.append("After a hand, a side at the target with the most points wins (a tie: one more).")
    return out


def card_points(rules: tablic.Rules) -> str:
    """Each scoring rank (all four suits alike) or card, by points: `A, 10 1 each; 10D 2`."""
    points = rules.points_by_index
    by_rank: dict[str, list[int]] = defaultdict(list)
    for card in CARDS:
        by_rank[card.rank_text].append(points[card.index])
    groups: dict[int, list[str]] = defaultdict(list)
    singles: list[str] = []
    for rank in RANKS:
        values = by_rank[rank]
        if len(set(values)) == 1:
            if values[0]:
                groups[values[0]].append(rank)
            continue
        base = min(values)
        if base:
            groups[base].append(rank)
        singles += [
            f"{card.text} {points[card.index]}"
            for card in CARDS
            if card.rank_text == rank and points[card.index] != base
        ]
    parts = [f"{', '.join(ranks)} {value} each"
             for value, ranks in sorted(groups.items())]  # fmt: skip
    return "; ".join(parts + singles) or "none"


def tac_rules(rules: tac.Rules) -> list[str]:
    """Tač as `rules` plays it: the deal, the order of a turn, calls, the end."""
    decks = "one deck" if rules.decks == 1 else f"{rules.decks} decks"
    out = [
        f"Tač, {rules.players} players, {decks}: get rid of every card first.",
        "Every card is dealt face down to the players' closed piles; each also has a face-up "
        "discard pile.",
        "A card follows the one a rank below (A 2 ... 10 J Q K, then A again). The central "
        "pile starts with an ace; once started, a card may also go onto another player's "
        "discard pile that it follows.",
        "A turn: your discard top onto a pile it follows; else flip your closed pile's top and "
        "place it where it follows; a card that fits nowhere goes onto your own discard pile "
        "and ends the turn.",
    ]
    if rules.centre_first:
        out.append("A card that fits the central pile must go there (centre first).")
    else:
        out.append("A card that fits several piles goes to the one you choose.")
    if rules.tac_calls:
        out.append(
            'Out-of-order moves are accepted, and anyone may call "Tač!" before the next '
            "player acts: the offender takes a card from the bottom of every other closed pile."
        )
    else:
        out.append("Out-of-order moves are refused.")
    rest = "play on for every place" if rules.play_on else "rank by the cards they still hold"
    out.append(f"Out of cards: you win; the others {rest}.")
    out.append(f"No card onto the central pile for {rules.stall_rounds} rounds: the game is drawn.")
    return out


def keys(game: str) -> list[str]:
    """The keys at the table and how to write a move."""
    common = [
        "A number: the move with that number in the list.",
        "q: leave (asks first, and says what it costs). ?: this help.",
    ]
    if game == "tac":
        return [
            *common,
            "A move as text: flip; play D->C (your discard top onto the central pile); play "
            "X->P2 (the card just turned up onto seat 2's discard pile); play X->D (onto your "
            "own: ends the turn); call (Tač!).",
        ]
    return [
        *common,
        "A move as text: the card you play, then a colon and the cards it takes joined by +: "
        "KC:KD+KH (the king of clubs takes the kings of diamonds and hearts), 9H:5S+4D; a "
        "card alone trails it (7S). Suits C D H S; case does not matter.",
    ]
