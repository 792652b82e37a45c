"""The text attention page in a real browser: controls update the heatmaps, links
reproduce the view, and typed HTML stays text."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import EXCEPTION, screenshot, wait_ready

# Plotly keeps each chart's decoded data on its DOM node (_fullData); reduce it to the
# title (Streamlit's theme wraps it in <b>), the subplot titles and the numbers (NaN -> null).
PLOTS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => ({
    title: plot.layout.title.text.replace(/<\\/?b>/g, ''),
    panels: (plot.layout.annotations || []).map(a => a.text).filter(t => t.startsWith('head')),
    z: JSON.stringify(plot._fullData.map(t => Array.from(t.z || [], row => Array.from(row)))),
}))"""


def open_text_page(page: Page, base_url: str, query: str = "") -> None:
    page.goto(f"{base_url}/text{query}")
    wait_ready(page)
    expect(page.get_by_role("heading", name="Text attention")).to_be_visible()


def wait_for_plots(page: Page, count: int) -> list[dict]:
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {count}")
    page.wait_for_timeout(300)
    return page.evaluate(PLOTS_JS)


def sidebar_select(page: Page, label: str) -> Locator:
    """The sidebar selectbox whose label is exactly ``label``."""
    return (
        page.get_by_test_id("stSidebar")
        .get_by_test_id("stSelectbox")
        .filter(has=page.get_by_text(label, exact=True))
    )


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the sidebar selectbox labelled ``label`` and wait for the rerun."""
    sidebar_select(page, label).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_ready(page)


def test_heads_and_mask_update_the_heatmaps_and_the_link_reproduces_the_view(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1800})
    open_text_page(page, app_url)
    page.get_by_role("tab", name="4 Weights").click()
    wait_ready(page)
    plots = wait_for_plots(page, 1)  # head 1's matrices are walkable grids, not Plotly charts
    expect(page.get_by_role("grid", name="Attention weights · head 1")).to_be_visible()
    grid = next(p for p in plots if p["title"] == "Attention weights · all heads")
    assert grid["panels"] == ["head 1", "head 2"]
    expect(page.get_by_text("Every query may look at every key", exact=False)).to_be_visible()

    choose(page, "Heads", "4")
    choose(page, "Mask", "causal")
    plots = wait_for_plots(page, 1)
    grid = next(p for p in plots if p["title"] == "Attention weights · all heads")
    assert grid["panels"] == ["head 1", "head 2", "head 3", "head 4"]
    expect(page.get_by_text("only look at itself and the tokens before it")).to_be_visible()
    assert "null" in grid["z"]  # masked cells are NaN (sent as null), drawn grey
    expect(page.locator(EXCEPTION)).to_have_count(0)
    screenshot(page, "text")

    link = page.url
    assert "heads=4" in link and "mask=causal" in link and "view=4" in link
    shared = page.context.new_page()
    shared.set_viewport_size({"width": 1400, "height": 1800})
    shared.goto(link)
    wait_ready(shared)
    assert wait_for_plots(shared, 1) == plots
    expect(sidebar_select(shared, "Heads").get_by_role("combobox")).to_have_value("4")
    expect(sidebar_select(shared, "Mask").get_by_role("combobox")).to_have_value("causal")


def test_typed_html_and_script_are_shown_as_text_and_never_run(page: Page, app_url: str) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_text_page(page, app_url, "?view=4+Weights")
    text_area = page.get_by_test_id("stTextArea").locator("textarea")
    for payload in ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"):
        text_area.fill(payload)
        text_area.press("Control+Enter")
        wait_ready(page)
        wait_for_plots(page, 1)
        page.wait_for_timeout(500)
        assert dialogs == []
        assert page.locator("img[src='x']").count() == 0
        assert page.locator("script", has_text="alert(1)").count() == 0
        expect(page.locator(EXCEPTION)).to_have_count(0)
        # The pieces are the grid's headers, written as text (textContent), not elements.
        weights = page.get_by_role("grid", name="Attention weights · head 1")
        expect(weights.get_by_role("columnheader").filter(has_text="alert")).not_to_have_count(0)
        expect(text_area).to_have_value(payload)


def test_check_yourself_boxes_are_named_by_their_question_without_escapes(
    page: Page, app_url: str
) -> None:
    # The mask question's prompt has brackets, which the visible text escapes for Markdown;
    # a screen reader must hear the question, not its backslashes.
    open_text_page(page, app_url, "?text=the+cat+(sat)+down")
    boxes = page.get_by_role("combobox", name="Which mask produced the pattern", exact=False)
    expect(boxes.first).to_be_visible()
    names = [box.get_attribute("aria-label") or "" for box in boxes.all()]
    assert names and all("\\" not in name and "(grey cells get weight 0)" in name for name in names)
    expect(page.get_by_text("(grey cells get weight 0)", exact=False).first).to_be_visible()


def test_a_new_sentence_empties_the_answers_and_offers_its_own_tokens(
    page: Page, app_url: str
) -> None:
    # A question's boxes keep their place (their key and widget) from one view to the
    # next: the browser must show the new question's choices, unanswered.
    open_text_page(page, app_url, "?text=the+cat+sat+on+it")
    choice = page.locator(".st-key-check_text_1_strongest-key_answer").get_by_role("combobox")
    number = page.locator(".st-key-check_text_2_weight_answer").get_by_role("spinbutton")
    verdicts = page.get_by_text(re.compile(r"^(Correct\.|Not quite\.)"))
    choice.click()
    page.keyboard.press("ArrowDown")  # the list opens
    page.get_by_role("option", name="cat", exact=True).click()
    wait_ready(page)
    number.fill("0.5")
    number.press("Enter")
    wait_ready(page)
    for check in ("Check answer 1", "Check answer 2"):
        page.get_by_role("button", name=check, exact=True).click()
        wait_ready(page)
    expect(verdicts).to_have_count(2)
    expect(choice).to_have_value("cat")

    text_area = page.locator(".st-key-text textarea")
    text_area.fill("a dog ran to it")
    text_area.press("Control+Enter")
    wait_ready(page)
    expect(choice).to_have_value("")
    expect(choice).to_have_attribute("placeholder", "Choose an answer")
    expect(number).to_have_value("")
    expect(verdicts).to_have_count(0)
    choice.click()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("option", name="dog", exact=True)).to_be_visible()
    expect(page.get_by_role("option", name="cat", exact=True)).to_have_count(0)
    expect(page.locator(EXCEPTION)).to_have_count(0)
