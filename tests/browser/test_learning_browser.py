"""The learning page in a real browser: it trains from its link, replays, and answers a probe."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import EXCEPTION, screenshot, wait_ready


def test_default_link_trains_and_draws_the_heads_the_target_and_the_curves(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 3600})
    page.goto(f"{app_url}/learning")
    wait_ready(page, timeout=120_000)  # the first run imports torch and trains
    expect(page.get_by_role("heading", name="Watch attention learn")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    # a walkable matrix (the plotly heatmap waits in its expander), named by its score
    expect(page.get_by_role("grid", name="Target (probe): anti-diagonal")).to_be_visible()
    expect(page.locator(".gtitle", has_text="Training: loss, held-out accuracy")).to_be_visible()
    expect(page.get_by_text("The model gets 8 of 8 answers right.")).to_be_visible()
    screenshot(page, "learning")


def test_a_typed_bad_probe_gets_a_message(page: Page, app_url: str) -> None:
    page.goto(f"{app_url}/learning")
    wait_ready(page, timeout=120_000)
    box = page.get_by_label("Your sequence: 8 symbols from 0123456789")
    box.fill("12<b>x</b>")
    box.press("Enter")
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text("not in this task's alphabet", exact=False)).to_be_visible()
    expect(page.locator("b", has_text="x")).to_have_count(0)  # shown as text, not markup


def test_induction_link_trains_and_shows_both_layers(page: Page, app_url: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 3600})
    page.goto(f"{app_url}/learning?learn_task=induction")
    wait_ready(page, timeout=180_000)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_role("grid", name="Target (probe): induction")).to_be_visible()
    expect(page.locator(".annotation-text", has_text="layer 2 · head 1").first).to_be_attached()
    screenshot(page, "learning_induction")
