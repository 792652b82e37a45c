"""Helpers for browser tests: wait for Streamlit to be idle, save screenshots."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page

ROOT = Path(__file__).resolve().parents[2]
READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
# Streamlit loads some elements' code (st.html, charts, tables) on first use and shows a
# skeleton in their place until it arrives, after the script has finished.
SKELETON = "[data-testid='stSkeleton']"
EXCEPTION = "[data-testid='stException']"
ARTIFACTS = ROOT / "test-artifacts"


def wait_ready(page: Page, timeout: float = 60_000) -> None:
    """Wait until the script has finished, the app is idle and every element is drawn."""
    page.wait_for_selector(READY, timeout=timeout)
    # A rerun may start right after the first "notRunning"; give it a beat and wait again.
    page.wait_for_timeout(300)
    page.wait_for_selector(READY, timeout=timeout)
    page.wait_for_selector(SKELETON, state="detached", timeout=timeout)


def screenshot(page: Page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ (used by the docs)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def as_shown(text: str) -> re.Pattern[str]:
    """``text`` as the page shows user text: with invisible word joiners where the app's
    escaping put them, to keep addresses and icon codes inert (ui.shared.safe)."""
    return re.compile("\u2060?".join(map(re.escape, text)))


WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]  #: WCAG 2.2 AA
CHART = "[data-testid='stPlotlyChart']"
#: A walkable matrix's grid (static/walkable_matrix.js; Playwright's CSS sees into its
#: shadow root), and any drawn chart: a plotly chart or a walkable matrix.
WALKABLE = ".wm-grid[role='grid']"
DRAWN = f"{CHART}, {WALKABLE}"


def matrix_titled(page: Page, title: str) -> Locator:
    """A matrix chart titled ``title``: a plotly chart's title or a walkable grid's name."""
    grid = page.get_by_role("grid", name=re.compile(re.escape(title)))
    return page.locator(".gtitle", has_text=title).or_(grid)


def no_axe_violations(page: Page) -> None:
    """axe-core (bundled with axe-playwright-python, no network) finds no WCAG 2.2 AA
    violation on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    )
    assert results.violations_count == 0, results.generate_report()


def chart_labels(page: Page) -> list[str]:
    """Each Plotly chart's text alternative (its figure's aria-label), in page order."""
    return page.locator(CHART).evaluate_all(
        "charts => charts.map(c => (c.closest('[role=figure]') || c).getAttribute('aria-label'))"
    )


# The focused element inside a component's shadow root (a walkable matrix's cell): its
# name, role and grid coordinates (the header row and column are 1).
FOCUSED_JS = """() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return {name: a.getAttribute('aria-label'), role: a.getAttribute('role'),
            row: Number(a.parentElement && a.parentElement.getAttribute('aria-rowindex')),
            col: Number(a.getAttribute('aria-colindex'))};
}"""


def focused(page: Page) -> dict:
    """The focused element, through shadow roots: ``name``, ``role``, ``row``, ``col``."""
    return page.evaluate(FOCUSED_JS)
