"""The web app's screenshots for docs/web.md, at 1440 and 390 px: the lobby, a table mid-hand,
the pause at a hand's end, a game review and the rules page.

    .venv/bin/python tests/web/screenshots.py [--out docs/images]

It starts `kafana serve --memory --http` on free ports (nothing shared is touched), drives
Debian's chromium (/usr/bin/chromium) with Playwright, plays a match against the greedy bot in
the page at each width, and writes web-PAGE.png (1440 px) and web-PAGE-390.png (390 px), each
the window's view, not the whole page, so that the files stay small.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
KAFANA = Path(sys.executable).with_name("kafana")
CHROMIUM = "/usr/bin/chromium"
WIDTHS = {"": (1440, 900), "-390": (390, 844)}


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def call(base: str, service: str, method: str, body: dict[str, Any]) -> Any:
    """One Connect JSON call: the answer's JSON."""
    request = urllib.request.Request(
        f"{base}kafana.v1.{service}/{method}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def served(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`kafana serve --memory` with the web app: the process and the page's URL."""
    http = free_port()
    args = [str(KAFANA), "serve", "--memory", "--port", "0", "--auth", "open", "--http", str(http)]
    process = subprocess.Popen(args, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{http}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base, timeout=2).close()
            return process, base
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"kafana serve did not start: see {log}") from None
            time.sleep(0.2)


def finished_review_table(base: str) -> str:
    """A greedy-vs-ismcts Tablić match to 1 point, played by the server: its table id."""
    bots = [
        {"seat": 0, "bot": "greedy"},
        {"seat": 1, "bot": "ismcts", "options": {"budget_ms": "20"}},
    ]
    config = {"rules": {"game": "GAME_TABLIC", "players": 2, "tablic": {"target": 1}}, "bots": bots}
    table_id: str = call(base, "KafanaService", "CreateTable", {"config": config})["tableId"]
    deadline = time.monotonic() + 120
    while (
        call(base, "KafanaService", "GetTable", {"tableId": table_id}).get("status")
        != "TABLE_STATUS_FINISHED"
    ):
        if time.monotonic() > deadline:
            raise SystemExit("the bots did not finish their match")
        time.sleep(0.3)
    return table_id


def play_a_move(page: Page) -> None:
    """A capture when one is offered, else the first card's first legal move."""
    page.wait_for_selector(".seat.mine.to-move", timeout=30_000)
    capturing = page.locator(".hand button.card.legal")
    card = (capturing if capturing.count() else page.locator(".hand button.card")).first
    if card.get_attribute("aria-pressed") != "true":
        card.click()
    before = page.locator("main.page").get_attribute("data-seq")
    page.locator(".option").first.click()
    page.wait_for_function("s => document.querySelector('main.page').dataset.seq !== s", arg=before)


def pictures(browser: Browser, base: str, review: str, out: Path, suffix: str) -> list[Path]:
    """The five pictures at one width."""
    width, height = WIDTHS[suffix]
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    made: list[Path] = []

    def shot(name: str) -> None:
        path = out / f"web-{name}{suffix}.png"
        page.wait_for_timeout(700)  # a move's card has landed
        page.screenshot(path=str(path))
        made.append(path)

    page.goto(base)
    page.wait_for_selector("#bot-form")
    page.fill("#player-name", "Mira")
    shot("lobby")
    page.select_option("#bot-level", "greedy")
    page.fill("#bot-target", "101")
    page.fill("#bot-clock", "0")
    page.set_checked("#bot-hints", False)
    page.click("#play-bot")
    page.wait_for_selector(".hand [data-card]")
    for _ in range(3):
        play_a_move(page)
    page.wait_for_selector(".seat.mine.to-move")
    shot("table")
    while not page.locator("#hand-end").count():
        play_a_move(page)
    page.evaluate("document.querySelector('#hand-end')?.scrollIntoView()")
    shot("hand-end")
    page.goto(f"{base}#/r/{review}")
    page.click("#review")
    page.wait_for_selector("#review-totals li", timeout=120_000)
    page.locator("#review-panel").evaluate("e => e.scrollIntoView()")
    shot("review")
    page.goto(f"{base}#/rules")
    page.wait_for_selector("h1")
    page.wait_for_timeout(500)
    shot("rules")
    context.close()
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    log = Path(tempfile.mkdtemp(prefix="kafana-shots-")) / "kafana.log"
    process, base = served(log)
    try:
        review = finished_review_table(base)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            for suffix in WIDTHS:
                for path in pictures(browser, base, review, out, suffix):
                    print(f"{path.name}: {path.stat().st_size:,} bytes")
            browser.close()
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
