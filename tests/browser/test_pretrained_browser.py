"""The pretrained-model page in a real browser: the guided heads, the 72-head model view,
a head picked from the summary, and a link that reproduces the view."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import EXCEPTION, screenshot, wait_ready
from tests.browser.test_pretrained_decoder_browser import walked

VIEWPORT = {"width": 1400, "height": 2200}
TITLES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => ({
    title: plot.layout.title.text.replace(/<\\/?b>/g, ''),
    panels: (plot.layout.annotations || []).map(a => a.text).filter(t => /^L\\d H\\d+$/.test(t)),
}))"""


def open_page(page: Page, base_url: str, query: str = "") -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{base_url}/pretrained{query}")
    expect(page.get_by_role("heading", name="Inside a real model")).to_be_visible(timeout=60_000)
    wait_ready(page)


def plots(page: Page, count: int) -> list[dict]:
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {count}")
    page.wait_for_timeout(300)
    return page.evaluate(TITLES_JS)


def test_the_guided_example_shows_the_two_heads_that_link_it_to_animal(
    page: Page, app_url: str
) -> None:
    open_page(page, app_url)
    titles = [plot["title"] for plot in plots(page, 2)]
    assert titles == [
        "Layer 4 · head 2: it → animal 0.68",
        "Layer 6 · head 12: it → animal 0.67",
    ]
    expect(page.get_by_text("Attention weights are not explanations", exact=False)).to_be_visible()
    assert page.locator(EXCEPTION).count() == 0
    screenshot(page, "pretrained_guided")


def test_model_view_draws_72_heads_and_steps_show_their_code(page: Page, app_url: str) -> None:
    open_page(page, app_url, "?view=Model+view")
    drawn = plots(page, 1)
    assert drawn[0]["title"].startswith("Model view")
    assert len(drawn[0]["panels"]) == 72
    assert list(walked(page, 1)) == ["Attention weights · layer 4 · head 2"]  # the opened head
    screenshot(page, "pretrained_model_view")
    page.get_by_role("tab", name="Every step").click()
    wait_ready(page)
    assert list(walked(page, 8))[-2:] == [
        "Attention weights · layer 4 · head 2",
        "Context vectors · layer 4 · head 2",
    ]
    page.get_by_text("The code").nth(6).click()
    expect(page.get_by_text("def softmax(masked")).to_be_visible()
    assert page.locator(EXCEPTION).count() == 0


def test_a_typed_sentence_and_a_link_reproduce_the_view(page: Page, app_url: str) -> None:
    open_page(page, app_url, "?view=Head+view&layer=2&head=7")
    box = page.get_by_label("Sentence", exact=True)
    box.fill("The cat sat on the mat.")
    box.press("Control+Enter")
    wait_ready(page)
    drawn = plots(page, 1)
    assert drawn[0]["title"] == "Head view · layer 2 · from “the”"
    link = page.url
    assert "layer=2" in link and "head=7" in link and "text=The+cat" in link
    page.goto(link)
    wait_ready(page)
    assert plots(page, 1)[0]["title"] == "Head view · layer 2 · from “the”"
    assert page.locator(EXCEPTION).count() == 0


def test_choosing_a_row_of_the_head_table_opens_that_head(page: Page, app_url: str) -> None:
    open_page(page, app_url, "?view=Head+summary&preset=heads+that+look+at+the+previous+token")
    grid = page.get_by_test_id("stDataFrame").first
    expect(grid).to_be_visible()
    page.wait_for_timeout(500)
    box = grid.bounding_box()
    assert box is not None
    # Row 1 (the head that looks most at the previous token): its selection cell at the left.
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 // 2)
    wait_ready(page)
    expect(page.get_by_text("Open now: layer 4 · head 2.")).not_to_be_visible()
    opened = page.get_by_text("Open now:").inner_text()
    page.get_by_role("tab", name="Every step").click()
    wait_ready(page)
    layer, head = opened.removeprefix("Open now: ").rstrip(".").split(" · ")
    assert f"Attention weights · {layer} · {head}" in walked(page, 8)
    screenshot(page, "pretrained_steps")
