"""The walkthrough and positional-encoding pages in a real browser."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import DRAWN, EXCEPTION, WALKABLE, screenshot, wait_ready
from ui.walkthrough.lecture import LECTURE_STEPS

CHART = "[data-testid='stPlotlyChart']"


def page_screenshot(page: Page, name: str, height: int = 2600) -> None:
    """Screenshot a tall viewport: Streamlit scrolls inside its own container, so a
    full-page screenshot alone would only show the first screen."""
    size = page.viewport_size
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(800)  # let the charts re-layout
    screenshot(page, name)
    if size:
        page.set_viewport_size(size)


def open_app_page(page: Page, app_url: str, path: str) -> None:
    """Open ``path`` and wait until the app shell (navigation, toggle) and page are drawn."""
    page.goto(f"{app_url}{path}")
    wait_ready(page)
    expect(page.get_by_text("Presentation mode")).to_be_visible()


def expect_step(page: Page, step: int) -> None:
    """Step ``step`` is shown: counter, title, a drawn figure (a plotly chart or a walkable
    matrix) and no exception."""
    expect(page.get_by_text(f"Step {step} of 6", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name=LECTURE_STEPS[step - 1])).to_be_visible()
    expect(page.locator(DRAWN).first).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_next_leads_through_all_six_steps_and_updates_the_url(page: Page, app_url: str) -> None:
    open_app_page(page, app_url, "/walkthrough")
    expect_step(page, 1)
    page_screenshot(page, "walkthrough", height=1500)
    for step in range(2, 7):
        page.get_by_role("button", name="Next").click()
        wait_ready(page)  # step 6 imports PyTorch: wait_ready allows a minute
        expect_step(page, step)
        expect(page).to_have_url(re.compile(rf"[?&]step={step}\b"))
    expect(page.get_by_text("agree to")).to_be_visible()
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    page_screenshot(page, "walkthrough_step6", height=1500)


def test_a_link_with_a_step_opens_that_step(page: Page, app_url: str) -> None:
    open_app_page(page, app_url, "/walkthrough?step=4")
    expect_step(page, 4)
    page.get_by_role("button", name="Previous").click()
    wait_ready(page)
    expect_step(page, 3)


def test_positional_encoding_page_renders_its_views(page: Page, app_url: str) -> None:
    open_app_page(page, app_url, "/positional_encoding?pe_kind=rotary")
    expect(page.get_by_role("heading", name="Positional encodings")).to_be_visible()
    expect(page.get_by_role("heading", name="Rotary: only the distance")).to_be_visible()
    expect(page.get_by_role("heading", name="Why we need it")).to_be_visible()
    # P and P Pᵀ are walkable matrices; the curves, rotary's offsets and the swap's two grids
    # plotly charts
    expect(page.locator(CHART)).to_have_count(4)
    walkable = page.locator(WALKABLE)
    expect(walkable).to_have_count(2)
    expect(walkable.first).to_have_accessible_name(re.compile(r"^rotary encoding \("))
    expect(walkable.last).to_have_accessible_name("How alike two positions are: P Pᵀ")
    expect(page.locator(EXCEPTION)).to_have_count(0)
    page_screenshot(page, "positional_encoding", height=3200)


# --- A deep link as the first request of a fresh server ------------------------


def test_a_shared_link_works_as_the_first_request_after_a_restart(
    page: Page, fresh_app_url: str
) -> None:
    """A deep link opened before anyone visited Home runs through app.py's navigation.

    (With a ``pages/`` folder beside app.py, Streamlit would serve it the old v1
    multipage way, without app.py: no presentation toggle, ``present=1`` ignored.)
    """
    page.goto(f"{fresh_app_url}/walkthrough?step=3&present=1")
    wait_ready(page)
    expect_step(page, 3)
    expect(page.get_by_text("Presentation mode")).to_have_count(1, timeout=5_000)
    expect(page.get_by_role("switch", name="Presentation mode")).to_be_checked()
