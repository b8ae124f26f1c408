"""axe-core in the page (clients/web's dev dependency, injected): its critical and serious
findings, for the sync and the async Playwright pages of the browser tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Page

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
AXE = WEB / "node_modules" / "axe-core" / "axe.min.js"
RUN = """async () => {
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
        .filter(v => v.impact === 'critical' || v.impact === 'serious')
        .map(v => `${v.impact} ${v.id}: `
            + v.nodes.map(n => n.target.join(' ')).slice(0, 4).join(', '));
}"""


def _script() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `npm ci` in clients/web installs axe-core")
    return str(AXE)


def axe(page: Page) -> list[str]:
    """axe-core's critical and serious findings on the page as it stands (rule: elements)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=_script())
    found: list[str] = page.evaluate(RUN)
    return found


async def axe_async(page: AsyncPage) -> list[str]:
    """`axe` for Playwright's async API."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.add_script_tag(path=_script())
    found: list[str] = await page.evaluate(RUN)
    return found
