"""WCAG 2.0/2.1/2.2 A and AA in a real browser: axe-core on every page, tab and mode.

axe-core comes with axe-playwright-python (bundled, nothing downloaded). Pages are read
from views/, so a page added later is scanned too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from .helpers import EXCEPTION, wait_ready

ROOT = Path(__file__).resolve().parents[2]
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
PAGES = sorted(p.stem for p in (ROOT / "views").glob("*.py") if p.stem != "__init__")
TEXT_TABS = ("1+Tokens", "2+Positions", "3+Q+K+V", "4+Weights", "5+Head+view", "6+Output")
LINKS = [
    "",
    *PAGES,
    *(f"text?view={tab}" for tab in TEXT_TABS),
    "text?view=4+Weights&present=1",
    "pretrained?view=Head+summary",
    "pretrained?view=Every+step",
    "walkthrough?step=4",
]


def violations(page: Page) -> list[str]:
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_AA}})
    return [
        f"{v['id']}: {node['target']} {node.get('failureSummary', '')[:200]}"
        for v in results.response["violations"]
        for node in v["nodes"]
    ]


@pytest.mark.parametrize("link", LINKS, ids=[link or "home" for link in LINKS])
def test_no_wcag_a_or_aa_violations(page: Page, app_url: str, link: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{app_url}/{link}")
    wait_ready(page, timeout=120_000)
    page.wait_for_timeout(1000)  # charts and formulas finish drawing after the script
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert violations(page) == []


@pytest.mark.parametrize("link", ["text?view=4+Weights", "time_series", "pretrained"])
def test_every_chart_is_a_named_figure_for_screen_readers(
    page: Page, app_url: str, link: str
) -> None:
    page.goto(f"{app_url}/{link}")
    wait_ready(page, timeout=120_000)
    charts = page.locator(".stPlotlyChart")
    expect(charts.first).to_be_visible(timeout=30_000)
    named = page.locator("[role='figure'][aria-label]")
    assert named.count() >= charts.count() > 0
    for index in range(named.count()):
        assert len(named.nth(index).get_attribute("aria-label") or "") > 20
