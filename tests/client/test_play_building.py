"""`kafana play --building` in a pseudo-terminal: a build typed as text, shown on the table,
and a hand played to its end with builds in the record."""

from __future__ import annotations

import pexpect
from kafana.games import tablic

from .test_play_terminal import PROMPT, plain, spawn


def first_build() -> tuple[int, tablic.Move]:
    """A seed whose first move may be a build, and that build."""
    rules = tablic.Rules(building=True)
    for seed in range(100):
        moves = tablic.new_match(rules, seed=seed).legal_moves()
        builds = [m for m in moves if m.is_build]
        if builds:
            return seed, builds[0]
    raise AssertionError("no seed of 100 lets the first player build")


def test_a_build_is_typed_shown_and_recorded(tmp_path: object) -> None:
    seed, build = first_build()
    record = f"{tmp_path}/match.txt"
    child = spawn(
        "play", "--building", "--seed", str(seed), "--hands", "1", "--delay", "0",
        "--bots", "random", "--name", "ana", "--save", record,
    )  # fmt: skip
    screen: list[str] = []
    try:
        child.expect(PROMPT)
        child.sendline(str(build).lower())
        while True:
            found = child.expect([PROMPT, r"Stopped after 1 hand\."])
            screen.append(child.before)
            if found == 1:
                break
            child.sendline("1")
        child.expect(pexpect.EOF)
        screen.append(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0
    text = plain("".join(screen))
    value = build.build_value
    assert f"You played {build.card.text[:-1]}" in text and f" builds {value} on " in text
    assert "Builds:    " in text and " (random)" in text  # a build of the bot, on my turn
    with open(record) as saved:
        replayed = tablic.MatchRecord.from_text(saved.read()).replay()
    assert replayed.rules.building and replayed.moves()[0] == (0, build)
    assert len(replayed.hand_results) == 1 and sum(replayed.hand_results[0].cards) == 52


def test_building_is_an_option_of_tablic_only() -> None:
    child = spawn("play", "--game", "tac", "--building")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "--building is an option of --game tablic, not of tac" in plain(child.before)
