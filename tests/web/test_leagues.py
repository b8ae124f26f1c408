"""A league in the browser (issue 18): two accounts queue from the league's page in their own
browsers, play the match their tickets open, then the leaderboard and a player's page (the rating
history plot, the recent matches, the replay) show it. The league runs on
an in-process server with HTTP on (the league test helpers), so this test drives chromium with
Playwright's async API in the same event loop; the page sends the player's API key, typed in
the lobby."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from competitions.league_helpers import Metadata, create_league, site
from playwright.async_api import Browser, Page, Route, async_playwright

from web.axe_check import axe_async

CHROMIUM = "/usr/bin/chromium"
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
# The tests always take their screenshots; `KAFANA_SCREENSHOTS=1` writes them over the docs'
# (docs/web.md), else they go to a scratch folder so a test run leaves the tree clean.
IMAGES = (
    DOCS_IMAGES
    if os.environ.get("KAFANA_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "kafana-web-shots"
)


async def test_a_league_match_queued_and_played_in_the_browser_then_its_pages(
    redis_url: str,
) -> None:
    async with site(redis_url, http_port=0) as league_site:
        node = league_site.nodes[0]
        organiser = await league_site.account("org", "organiser")
        keys = {name: await league_site.account(name) for name in ("ana", "ivo")}
        await create_league(node, organiser, "web", target=1, move_ms=10_000)
        http = node.server.http
        assert http is not None
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            page = await play_a_league_match_in_two_browsers(browser, http.url, keys)
            await page.wait_for_selector("#league-meta:has-text('1 of 1 matches settled')")
            findings = {"league": await axe_async(page)}
            rows = await page.locator("#leaderboard tbody tr").all_inner_texts()
            assert len(rows) == 2 and {r.split("\t")[1] for r in rows} == {"ana", "ivo"}
            IMAGES.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(IMAGES / "web-league.png"), full_page=True)
            await page.click("#leaderboard a:has-text('ivo')")
            await page.wait_for_selector("#player-matches tbody tr")
            assert "1 rated matches" in await page.inner_text("#player-meta")
            assert await page.locator("svg.plot polyline").count() == 2  # mu, mu - 3 sigma
            assert await page.locator("svg.plot circle").count() == 2  # one rated match
            players = (await page.inner_text("#player-matches tbody td:nth-child(2)")).split(" – ")
            assert sorted(players) == ["ana", "ivo"]  # names, in seat order
            await page.screenshot(path=str(IMAGES / "web-player.png"), full_page=True)
            findings["player"] = await axe_async(page)
            await page.click("#player-matches a:has-text('Replay')")
            await page.wait_for_selector("#replay-step")
            assert "Match over" in await page.inner_text("#replay-text")
            await page.goto(f"{http.url}/#/l/web/p/nobody")  # a name that never played
            notice = await page.wait_for_selector("#no-player")
            assert notice is not None and "No rated match of “nobody”" in await notice.inner_text()
            assert await page.locator("#player-meta").count() == 0  # no blank rating shown
            await create_league(node, organiser, "spare", game="tac", players=4)
            findings["lists"] = await the_leagues_list_and_the_account_page(page, http.url)
            await browser.close()
        assert findings == {name: [] for name in findings}


async def the_leagues_list_and_the_account_page(page: Page, base: str) -> list[str]:
    """ListLeagues on #/l (both leagues, the match counted, a row opens the league's queue),
    then ana's account page: her rating in "web" and the league game she played, with its
    replay (her WatchAccount notices). axe's findings on both pages."""
    await page.goto(f"{base}/#/l")
    await page.wait_for_selector("#leagues tbody tr")
    rows = {
        await row.get_attribute("data-league"): (await row.inner_text()).split("\t")
        for row in await page.locator("#leagues tbody tr").all()
    }
    assert set(rows) == {"spare", "web"}
    assert rows["web"][1:5] == ["Tablić", "2", "10 s a move", "1"] and rows["web"][6] == "1"
    assert rows["spare"][1:3] == ["Tač", "4"] and rows["spare"][6] == "0"
    found = await axe_async(page)
    await page.screenshot(path=str(IMAGES / "web-leagues.png"), full_page=True)
    await page.click("#leagues tr[data-league='web'] a.button")
    await page.click("#join-queue")  # queue, then leave: the queue is empty again
    await page.wait_for_selector("#queue-status:has-text('ana is waiting (1 in the queue')")
    await page.click("#leave-queue")
    await page.wait_for_selector("#queue-status:has-text('Left the queue.')")
    assert await page.locator("#join-queue").is_enabled()
    await page.goto(f"{base}/#/l")
    await page.wait_for_selector("#leagues tr[data-league='web'] td.waiting:text-is('0')")
    await page.click("nav.top a:has-text('Account')")
    await page.wait_for_selector("#account-meta")
    assert await page.inner_text("h1") == "ana"
    rating = await page.wait_for_selector("#account-ratings tbody tr")
    assert rating is not None
    cells = (await rating.inner_text()).split("\t")
    assert cells[0] == "web" and cells[4] == "1"  # one rated match, in league web only
    game = await page.wait_for_selector("#account-games tbody tr")
    assert game is not None
    text = await game.inner_text()
    assert "ana (you)" in text and "ivo" in text and ("won" in text or "lost" in text)
    found += await axe_async(page)
    await page.screenshot(path=str(IMAGES / "web-account.png"), full_page=True)
    await page.click("#account-games a:has-text('Replay')")
    await page.wait_for_selector("#replay-step")
    await page.goto(f"{base}/#/me")
    await page.evaluate("localStorage.removeItem('kafana.apiKey')")
    await page.reload()
    await page.wait_for_selector("#no-account")  # no key: no account, said so
    return found


async def signed_in(browser: Browser, base: str, key: str) -> Page:
    """A page of its own context whose lobby was given the account's API key."""
    page = await (await browser.new_context(bypass_csp=True)).new_page()
    page.set_default_timeout(20_000)
    await page.goto(f"{base}/")
    await page.fill("#api-key", key)
    await page.press("#api-key", "Tab")
    return page


async def play_a_league_match_in_two_browsers(
    browser: Browser, base: str, keys: dict[str, Metadata]
) -> Page:
    """Both players queue from the league page, get their tickets, play the match there: ana's
    page, back on the league's page."""
    pages = {n: await signed_in(browser, base, k[0][1].split(" ", 1)[1]) for n, k in keys.items()}
    held = asyncio.Event()

    async def slowly(route: Route) -> None:  # JoinQueue held back: the button says it waits
        await held.wait()
        await route.continue_()

    await pages["ana"].route("**/kafana.v1.LeaguesService/JoinQueue", slowly)
    for page in pages.values():
        await page.goto(f"{base}/#/l/web")
        await page.click("#join-queue")
    busy = pages["ana"].locator("#join-queue")
    assert await busy.inner_text() == "Joining…" and await busy.get_attribute("aria-busy") == "true"
    held.set()
    for page in pages.values():
        await page.wait_for_selector(".hand [data-card]")  # the ticket opened the table
    moves = 0
    while not await pages["ana"].locator("#result").count():
        for page in pages.values():
            if await page.locator(".seat.mine.to-move").count():
                before = await page.locator("main.page").get_attribute("data-seq")
                await page.locator(".hand button.card").first.click()
                await page.locator(".option").first.click()
                await page.wait_for_function(
                    "s => document.querySelector('main.page').dataset.seq !== s", arg=before
                )
                moves += 1
        await asyncio.sleep(0.05)
        assert moves < 200
    assert moves >= 40  # every card of the hand, both seats
    await pages["ivo"].wait_for_selector("#result")
    await pages["ana"].goto(f"{base}/#/l/web")
    return pages["ana"]
