""" "Turn heads off" with the real SmolLM2-135M-Instruct (30 layers × 9 heads) in Chromium: a
link with heads off draws the experiment accessibly (axe-core: no WCAG 2.2 AA violation, the
chart with its text alternative), and the keyboard alone turns the top 3 induction heads off
and puts them in the link."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import chart_labels, no_axe_violations, wait_ready
from tests.browser.test_accessibility_browser import _tab_to
from tests.browser.test_pretrained_decoder_browser import VIEWPORT, no_exception
from tests.real.model_file import real_decoder_file

MODEL = "SmolLM2-135M-Instruct"
SLOW = 300_000  #: ms: the copying scores and the experiment's 13 passes on a busy server
TEXT = "The capital of France is"


@pytest.fixture(scope="module", autouse=True)
def _model_fetched() -> None:
    real_decoder_file()


def open_tab(page: Page, app_url: str, **params: str | list[str]) -> None:
    query = urlencode({"model": MODEL, "text": TEXT, "view": "Turn heads off"} | params, doseq=True)
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/pretrained?{query}")
    expect(page.get_by_role("heading", name="The induction experiment")).to_be_visible(timeout=SLOW)
    wait_ready(page, timeout=SLOW)


def test_heads_off_in_a_link_draw_the_experiment_accessibly(page: Page, app_url: str) -> None:
    open_tab(page, app_url, off=["L19 H7", "L18 H4"])
    expect(page.get_by_text("Turned off (zero): L18 H4, L19 H7.")).to_be_visible()
    page.wait_for_timeout(1000)  # let Plotly draw before the scan
    no_exception(page)
    no_axe_violations(page)
    labels = chart_labels(page)
    assert any(label and "copying accuracy on the repeated sequence" in label for label in labels)


def test_the_keyboard_alone_turns_the_top_induction_heads_off(page: Page, app_url: str) -> None:
    open_tab(page, app_url)
    _tab_to(page, r"^Top 3 induction heads$", limit=200)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]off=L\d+"), timeout=SLOW)
    wait_ready(page, timeout=SLOW)
    expect(
        page.get_by_text(re.compile(r"Turned off \(zero\): (L\d+ H\d+, ){2}L\d+ H\d+\."))
    ).to_be_visible()
    no_exception(page)
