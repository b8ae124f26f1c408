"""The docs stand on their own in a clone: every relative link resolves inside the repository,
and none points at the workplace's shared folder (which only CI has beside the clone)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_relative_link_of_the_docs_resolves_inside_the_repository() -> None:
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            found = (page.parent / target).resolve()
            if not found.is_relative_to(ROOT) or not found.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_no_page_sends_a_reader_to_the_shared_rule_book() -> None:
    mentions = [
        str(page.relative_to(ROOT))
        for page in PAGES
        if "shared/RULES.md" in page.read_text() or "RULES.md" in page.read_text()
    ]
    assert mentions == []


def test_the_rules_page_has_every_preset_and_switch_of_the_engine() -> None:
    import dataclasses

    from kafana.games import tablic

    text = (ROOT / "docs" / "rules.md").read_text()
    for name in ("serbian", "wild_jack", "tabinet", "tablanette"):
        assert f"`{name}`" in text
    for field in dataclasses.fields(tablic.Rules):
        if field.name not in ("players", "partnerships"):
            assert f"`{field.name}`" in text, field.name
