"""The learning page's "Turn heads off" in Chromium: axe-core finds nothing on the page with
heads off, the sweep chart has its text alternative, and the keyboard alone turns off the
induction circuit's previous-token head, which the link then holds."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    EXCEPTION,
    matrix_titled,
    no_axe_violations,
    screenshot,
    wait_ready,
)

SWEEP = "Held-out accuracy lost with each head alone off"


def focus_name(page: Page) -> str:
    return page.evaluate(
        """() => { const e = document.activeElement;
        return (e.getAttribute('aria-label') || e.innerText || e.value || e.tagName).trim(); }"""
    )


def tab_to(page: Page, pattern: str, limit: int = 200) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if re.search(pattern, focus_name(page)):
            return
    raise AssertionError(f"Tab never reached a control named like {pattern!r}")


def test_heads_off_section_passes_axe_and_is_reached_by_keyboard(page: Page, app_url: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 1600})
    page.goto(
        f"{app_url}/learning?learn_task=induction&learn_induction_off=L2+H1&learn_induction_sweep=true"
    )
    wait_ready(page, timeout=180_000)
    expect(page.get_by_role("heading", name="5 · Turn heads off")).to_be_visible()
    expect(matrix_titled(page, SWEEP)).to_be_attached(timeout=60_000)
    expect(page.get_by_text("Held-out accuracy, heads off")).to_be_visible()
    page.wait_for_timeout(1000)  # let Plotly draw before the scan
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    no_axe_violations(page)
    # The sweep is a walkable grid: its description begins with the chart's text alternative.
    grid = page.get_by_role("grid", name=re.compile(re.escape(SWEEP)))
    label = grid.evaluate(
        "g => g.getRootNode().getElementById(g.getAttribute('aria-describedby')).textContent"
    )
    assert label and "Largest first: layer 2 head 1" in label, label
    page.get_by_role("heading", name="5 · Turn heads off").scroll_into_view_if_needed()
    screenshot(page, "learning_heads_off")

    tab_to(page, r"^Turn off the previous-token head \(L1 H2\)$")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]learn_induction_off=L1(\+|%20)H2(&|$)"))
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    words = re.compile(r"^With L1 H2 off \(zero\), the model gets")
    expect(page.get_by_text(words)).to_be_visible()
