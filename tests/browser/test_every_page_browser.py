"""Every page end to end in Chromium: reached from Home through the sidebar navigation,
drawn with its charts and without an exception; presentation mode survives page switches."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import DRAWN, EXCEPTION, screenshot, wait_ready

# A tall viewport: Streamlit scrolls inside its own container, so a screenshot shows
# only what fits in the viewport.
VIEWPORT = {"width": 1400, "height": 2200}
# (navigation link, the page's heading, its path, the screenshot's name)
PAGES = (
    ("Text attention", "Text attention", "/text", "text"),
    ("Time series", "Time-series attention", "/time_series", "time_series"),
    ("Positional encodings", "Positional encodings", "/positional_encoding", "positional_encoding"),
    ("Walkthrough", "Classroom walkthrough", "/walkthrough", "walkthrough"),
    ("Watch attention learn", "Watch attention learn", "/learning", "learning_page"),
    ("Inside a real model", "Inside a real model", "/pretrained", "pretrained"),
)


def navigate(page: Page, link: str, heading: str) -> None:
    """Click ``link`` in the sidebar navigation and wait until its page is drawn."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=60_000)
    wait_ready(page)


def presentation_switch(page: Page):
    return page.get_by_role("switch", name="Presentation mode")


def title_font_px(page: Page) -> float:
    return page.evaluate("parseFloat(getComputedStyle(document.querySelector('h1')).fontSize)")


def test_every_page_is_reached_from_home_and_draws_its_charts(page: Page, app_url: str) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Attention Visualizer")).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(page.locator(".katex").first).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    screenshot(page, "home")
    for link, heading, path, name in PAGES:
        navigate(page, link, heading)
        expect(page).to_have_url(re.compile(rf"{re.escape(app_url)}{path}(\?|$)"))
        # a plotly chart or a walkable matrix (every heatmap is one)
        expect(page.locator(DRAWN).first).to_be_visible(timeout=60_000)
        assert page.locator(DRAWN).count() > 0
        expect(page.locator(EXCEPTION)).to_have_count(0)
        expect(page.locator("[data-testid='stAlertContentError']")).to_have_count(0)
        page.wait_for_timeout(500)  # let Plotly finish laying out before the picture
        screenshot(page, name)


def test_presentation_mode_stays_on_across_page_switches(page: Page, app_url: str) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/positional_encoding")
    expect(page.get_by_role("heading", name="Positional encodings")).to_be_visible(timeout=60_000)
    wait_ready(page)
    normal_title = title_font_px(page)
    expect(presentation_switch(page)).not_to_be_checked()

    # The switch's own input sits under its label; clicking the label text toggles it.
    page.get_by_test_id("stSidebar").get_by_text("Presentation mode", exact=True).click()
    expect(page).to_have_url(re.compile(r"[?&]present=1\b"), timeout=30_000)
    wait_ready(page)
    expect(presentation_switch(page)).to_be_checked()

    for link, heading, path, _ in (PAGES[3], PAGES[0], PAGES[1]):
        navigate(page, link, heading)
        expect(page).to_have_url(re.compile(rf"{path}\?(.*&)?present=1\b"))
        expect(presentation_switch(page)).to_be_checked()
        assert title_font_px(page) > normal_title  # the presentation CSS is applied here too
        expect(page.locator(EXCEPTION)).to_have_count(0)
