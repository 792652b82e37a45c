"""Every tab of "Inside a real model" with the real SmolLM2-135M-Instruct (30 layers × 9 heads,
the 4-bit GGUF ``make test`` fetches) on a 128-token text, in Chromium: drawn without an
exception, every chart with a text alternative, nothing cut off or overlapping, and axe-core
finding no WCAG 2.2 AA violation. Token labels read as text ("␣the"), never "Ġthe".
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.browser.helpers import wait_ready
from tests.browser.test_pretrained_decoder_browser import (
    CHART,
    CLIPPED_FORMULAS_JS,
    OVERLAPS_JS,
    VIEWPORT,
    WCAG_TAGS,
    no_exception,
    walkable_names,
)
from tests.real.model_file import real_decoder_file
from tests.real.test_real_decoder import LONG
from ui.pretrained.sections import TABS

MODEL = "SmolLM2-135M-Instruct"
SLOW = 180_000  #: ms: a 128-token pass, the copying scores and a page of 30-layer thumbnails


@pytest.fixture(scope="module", autouse=True)
def _model_fetched() -> None:
    real_decoder_file()  # the session's server reads the data folder make test filled


def address(**params: str) -> str:
    return "/pretrained?" + urlencode({"model": MODEL, "text": LONG} | params)


@pytest.mark.parametrize("tab", [tab.label for tab in TABS])
def test_every_tab_draws_the_real_model_accessibly(page: Page, app_url: str, tab: str) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(app_url + address(view=tab, layers="25-30"))
    expect(page.get_by_role("heading", name="Inside a real model")).to_be_visible(timeout=SLOW)
    wait_ready(page, timeout=SLOW)
    expect(page.get_by_text("128 tokens, as SmolLM2-135M-Instruct's tokenizer")).to_be_visible()
    expect(page.get_by_text("␣ marks a space", exact=False).first).to_be_visible()
    expect(page.get_by_text("a 4-bit copy (GGUF, Q4_1)", exact=False)).to_be_visible()
    page.wait_for_timeout(1000)  # let Plotly draw before the scan
    wait_ready(page, timeout=SLOW)
    no_exception(page)
    results = Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    )
    assert results.violations_count == 0, results.generate_report()
    labels = page.locator(CHART).evaluate_all(
        "charts => charts.map(c => (c.closest('[role=figure]') || c).getAttribute('aria-label'))"
    )
    labels += walkable_names(page)  # each walkable matrix's name and summary
    assert all(label and label.strip() for label in labels), labels
    assert not any("Ġ" in label or "Ċ" in label for label in labels)
    assert page.evaluate(CLIPPED_FORMULAS_JS) == []
    assert page.evaluate(OVERLAPS_JS) == []
    body = page.locator("[data-testid=stMain]").inner_text()
    assert "Ġ" not in body and "Ċ" not in body
