"""The heads-off experiments in a real browser, by keyboard: on the text page's output tab and
after training on the time-series page, a head is turned off with the keyboard alone, the
change is drawn, the link holds it and reproduces it in another tab, and axe-core finds no
WCAG A or AA violation."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    EXCEPTION,
    chart_labels,
    matrix_titled,
    no_axe_violations,
    wait_ready,
)

VIEWPORT = {"width": 1400, "height": 2400}


def focus_name(page: Page) -> str:
    return page.evaluate(
        """() => { const e = document.activeElement;
        return (e.getAttribute('aria-label') || e.innerText || e.value || e.tagName).trim(); }"""
    )


def tab_to(page: Page, pattern: str, limit: int = 400) -> None:
    """Press Tab until the focused control's name matches ``pattern``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if re.search(pattern, focus_name(page)):
            return
    raise AssertionError(f"Tab never reached a control named like {pattern!r}")


def turn_off_by_keyboard(page: Page, picker: str, head: str) -> None:
    """Tab from the top of the page to the picker labelled ``picker``, type the head's name,
    take it with Enter."""
    tab_to(page, picker)
    page.keyboard.type(head)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_ready(page)


def no_violations_and_every_chart_described(page: Page) -> None:
    no_axe_violations(page)
    labels = chart_labels(page)
    assert all(label and label.strip() for label in labels), labels


def chart_titled(page: Page, title: str):
    return matrix_titled(page, title)


def test_text_page_a_head_turned_off_by_keyboard_changes_the_output_and_the_link_keeps_it(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size(VIEWPORT)
    query = {"view": "6 Output", "text": "the cat sat on the mat", "heads": "4"}
    page.goto(f"{app_url}/text?{urlencode(query)}")
    wait_ready(page)
    expect(page.get_by_text("Choose one or more heads above")).to_be_visible()
    turn_off_by_keyboard(page, r"^Heads to turn off$", "L1 H2")
    expect(page).to_have_url(re.compile(r"[?&]off=L1(\+|%20)H2"), timeout=30_000)
    expect(chart_titled(page, "Change: output with the heads off")).to_be_visible(timeout=30_000)
    expect(chart_titled(page, "Output with every head on")).to_be_visible()
    words = page.get_by_text(re.compile("^The rows that changed most")).inner_text()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    no_violations_and_every_chart_described(page)

    shared = page.context.new_page()
    shared.set_viewport_size(VIEWPORT)
    shared.goto(page.url)
    wait_ready(shared)
    expect(chart_titled(shared, "Change: output with the heads off")).to_be_visible()
    assert shared.get_by_text(re.compile("^The rows that changed most")).inner_text() == words
    expect(shared.get_by_test_id("stMultiSelect").get_by_text("L1 H2")).to_be_visible()


def test_text_page_a_head_that_does_not_exist_in_the_link_is_named_not_a_traceback(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/text?view=6+Output&off=L1+H9&off=L1+H1")
    wait_ready(page)
    expect(page.get_by_text(re.compile(r"not valid here.*off=L1 H9"))).to_be_visible()
    expect(chart_titled(page, "Change: output with the heads off")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_time_series_after_training_the_error_per_head_and_a_head_off_by_keyboard(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 4000})
    page.goto(f"{app_url}/time_series?ts_length=14&ts_train=true&ts_steps=50")
    wait_ready(page)
    train = page.get_by_role("button", name="Train the model")
    if train.count():  # another test may have trained these settings on this server
        train.click()
        wait_ready(page, timeout=120_000)
    expect(chart_titled(page, "Forecast error with each head off")).to_be_visible(timeout=60_000)
    expect(page.get_by_text(re.compile(r"^Zeroing L1 H\d hurts most"))).to_be_visible()
    turn_off_by_keyboard(page, r"^Heads turned off$", "L1 H1")
    expect(page).to_have_url(re.compile(r"[?&]ts_off=L1(\+|%20)H1"), timeout=30_000)
    expect(chart_titled(page, "Forecasts with heads off and with every head on")).to_be_visible(
        timeout=30_000
    )
    mae = page.get_by_test_id("stMetric").filter(has_text="MAE, heads off").inner_text()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    no_violations_and_every_chart_described(page)

    shared = page.context.new_page()
    shared.set_viewport_size({"width": 1400, "height": 4000})
    shared.goto(page.url)
    wait_ready(shared, timeout=120_000)
    expect(chart_titled(shared, "Forecasts with heads off and with every head on")).to_be_visible(
        timeout=60_000
    )
    again = shared.get_by_test_id("stMetric").filter(has_text="MAE, heads off").inner_text()
    assert again == mae
