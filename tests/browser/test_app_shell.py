"""The app shell in a real browser: the landing page and every page load via navigation."""

from __future__ import annotations

import urllib.request

from playwright.sync_api import Page, expect

from tests.browser.helpers import screenshot, wait_ready


def test_server_reports_healthy(app_url: str) -> None:
    with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=5) as response:
        assert response.read().decode().strip() == "ok"


def test_landing_page_renders_formula_and_links(page: Page, app_url: str) -> None:
    page.goto(app_url)
    wait_ready(page)
    expect(page.get_by_role("heading", name="Attention Visualizer")).to_be_visible()
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    expect(page.locator(".katex").first).to_be_visible()
    screenshot(page, "home")
