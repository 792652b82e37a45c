"""The walkable matrix in a real browser: keyboard paths, the grid as assistive technology
sees it (W3C ARIA-AT's minimal data grid: role and name, row and column counts, header
text, each cell's coordinates and value), axe-core, and the longest sentence's last cell."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import numpy as np
from playwright.sync_api import Locator, Page, expect

import attention_core as ac
from attention_core.boundary.limits import MAX_TOKENS
from attention_core.teaching.cell_computation import number
from tests.browser.helpers import (
    ARTIFACTS,
    EXCEPTION,
    as_shown,
    focused,
    no_axe_violations,
    wait_ready,
)
from ui.figures.style import PRESENTATION
from ui.shared import walkable_matrix
from ui.shared.walkable_data import announcement

SENTENCE = "The animal didn't cross the street because it was too tired."
WEIGHTS_GRID = "Attention weights · head 1"
# Whether the focused element is another element than at the last call (a screen reader
# says a cell when focus moves to it; a renamed element that keeps focus may go unsaid).
FOCUS_MOVED_JS = """() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    const moved = a !== window.__lastFocused;
    window.__lastFocused = a;
    return moved;
}"""


def open_weights(page: Page, app_url: str, sentence: str) -> Locator:
    """The text page's weights tab for ``sentence``; the walkable weights of head 1."""
    page.set_viewport_size({"width": 1400, "height": 1600})
    page.goto(f"{app_url}/text?" + urlencode({"view": "4 Weights", "text": sentence}))
    wait_ready(page)
    grid = page.get_by_role("grid", name=WEIGHTS_GRID)
    expect(grid).to_be_visible(timeout=30_000)
    return grid


def expected(weights: np.ndarray, labels: tuple[str, ...], i: int, j: int) -> str:
    return announcement(np.asarray(weights, dtype=np.float32), labels, labels, i, j)


def test_a_keyboard_walks_the_weights_and_each_cell_says_what_python_says(
    page: Page, app_url: str
) -> None:
    tokenized = ac.tokenize(SENTENCE)
    weights = ac.run_text_attention(tokenized.tokens, ac.AttentionConfig()).trace.weights[0]
    labels, n = tokenized.labels, len(tokenized.labels)
    grid = open_weights(page, app_url, SENTENCE)
    # ARIA-AT minimal data grid: role grid and its name, counts, header text.
    assert grid.get_attribute("aria-rowcount") == str(n + 1)
    assert grid.get_attribute("aria-colcount") == str(n + 1)
    headers = grid.get_by_role("columnheader").all_inner_texts()
    assert headers == ["query \\ key", *labels], headers
    assert grid.get_by_role("rowheader").all_inner_texts() == list(labels)
    assert grid.locator("[tabindex='0']").count() == 1  # one tab stop

    live = page.locator(".wm-live").filter(has_text=WEIGHTS_GRID)
    expect(live).to_have_count(0)
    grid.get_by_role("gridcell").first.focus()
    # On entering, the one-sentence summary is said (and is the grid's description).
    expect(live).to_have_text(re.compile(rf"^{WEIGHTS_GRID}: {n} query rows by {n} key columns"))
    assert focused(page) == {
        "name": expected(weights, labels, 0, 0),
        "role": "gridcell",
        "row": 2,
        "col": 2,
    }
    path = [
        ("ArrowRight", 0, 1),
        ("ArrowDown", 1, 1),
        ("ArrowLeft", 1, 0),
        ("ArrowUp", 0, 0),
        ("ArrowUp", 0, 0),  # the edge holds
        ("End", 0, n - 1),
        ("Home", 0, 0),
        ("PageDown", 8, 0),
        ("PageDown", n - 1, 0),
        ("PageUp", n - 9, 0),
        ("Control+End", n - 1, n - 1),
        ("Control+Home", 0, 0),
    ]
    for key, i, j in path:
        page.keyboard.press(key)
        now = focused(page)
        assert (now["row"], now["col"]) == (i + 2, j + 2), (key, now)  # the header row is 1
        assert now["name"] == expected(weights, labels, i, j), key
        assert grid.locator("[tabindex='0']").count() == 1
    it, animal = labels.index("it"), labels.index("animal")
    for key in ("PageDown", *["ArrowDown"] * (it - 8), *["ArrowRight"] * animal):
        page.keyboard.press(key)
    said = expected(weights, labels, it, animal)
    assert said.startswith("query 'it', key 'animal': weight ")
    page.keyboard.press("Enter")  # selects: the page explains the cell beside the matrix
    wait_ready(page)
    expect(page.get_by_text(as_shown(said)).first).to_be_visible()
    expect(page.get_by_text(f"Softmax of row {it + 1}").first).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert focused(page)["name"] == said  # the rerun keeps the focus: step on with the arrows
    stage = page.get_by_test_id("stHorizontalBlock").filter(has=grid)
    stage.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    stage.screenshot(path=str(ARTIFACTS / "walkable-matrix.png"))  # for docs/accessibility.md
    no_axe_violations(page)


def test_a_click_selects_a_cell_and_the_computation_follows(page: Page, app_url: str) -> None:
    tokenized = ac.tokenize(SENTENCE)
    weights = ac.run_text_attention(tokenized.tokens, ac.AttentionConfig()).trace.weights[0]
    grid = open_weights(page, app_url, SENTENCE)
    said = expected(weights, tokenized.labels, 2, 3)
    grid.get_by_role("gridcell", name=said).click()
    wait_ready(page)
    expect(page.get_by_text(as_shown(said)).first).to_be_visible()
    assert focused(page)["name"] == said


def test_every_cell_of_the_longest_sentence_is_reachable_and_a_key_is_fast(
    page: Page, app_url: str
) -> None:
    sentence = " ".join(f"w{i}" for i in range(MAX_TOKENS))
    grid = open_weights(page, app_url, sentence)
    assert grid.get_attribute("aria-rowcount") == str(MAX_TOKENS + 1)
    assert grid.get_attribute("aria-colcount") == str(MAX_TOKENS + 1)
    grid.get_by_role("gridcell").first.focus()
    page.keyboard.press("Control+End")
    last = focused(page)
    assert (last["row"], last["col"]) == (MAX_TOKENS + 1, MAX_TOKENS + 1)
    assert last["name"].startswith(f"query 'w{MAX_TOKENS - 1}', key 'w{MAX_TOKENS - 1}': weight")
    # A virtualised DOM: a window of cells, however big the matrix.
    assert grid.get_by_role("gridcell").count() <= 16 * 16
    page.keyboard.press("Control+Home")
    page.evaluate(FOCUS_MOVED_JS)
    # The DOM window re-centres as the focus leaves it (rows 0-15, then 8-23 ...); every key
    # still moves focus to another element, the one that names the new cell.
    for step in range(1, 8):
        page.keyboard.press("PageDown")
        assert page.evaluate(FOCUS_MOVED_JS), step
        assert focused(page)["row"] == 8 * step + 2
        page.keyboard.press("End" if step % 2 else "Home")
        assert page.evaluate(FOCUS_MOVED_JS), step


def test_presentation_mode_writes_numbers_on_a_small_matrix_readably(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1600})
    query = urlencode({"view": "4 Weights", "text": "one two three", "mask": "causal"})
    page.goto(f"{app_url}/text?{query}&present=1")
    wait_ready(page)
    weights = page.get_by_role("grid", name=WEIGHTS_GRID)
    expect(weights).to_be_visible(timeout=30_000)
    cells = weights.get_by_role("gridcell")
    run = ac.run_text_attention(("one", "two", "three"), ac.AttentionConfig(mask="causal"))
    sent = run.trace.weights[0].astype(np.float32).ravel()  # the browser gets float32
    # Row by row: masked cells carry the heatmap's label (0 for a weight), in words "masked".
    shown = [f"{w:.2f}" if ok else "0" for w, ok in zip(sent, run.mask.ravel(), strict=True)]
    assert cells.all_inner_texts() == shown
    expect(cells.nth(1)).to_have_accessible_name("query 'one', key 'two': masked")
    scores = page.get_by_role("grid", name="Masked scores · head 1")
    assert scores.get_by_role("gridcell").nth(2).inner_text() == "−∞"
    no_axe_violations(page)


def test_a_teacher_in_presentation_mode_steps_along_a_row_and_each_number_is_built(
    page: Page, app_url: str
) -> None:
    """Enter at each cell of query 'it''s row: the softmax of that weight is written out, and
    the focus stays on the cell, so the next arrow goes on along the row. The frames are the
    screenshots of docs/accessibility.md."""
    tokenized = ac.tokenize(SENTENCE)
    run = ac.run_text_attention(tokenized.tokens, ac.AttentionConfig())
    labels = tokenized.labels
    page.set_viewport_size({"width": 1400, "height": 1700})
    query = urlencode({"view": "4 Weights", "text": SENTENCE, "present": "1"})
    page.goto(f"{app_url}/text?{query}")
    wait_ready(page)
    grid = page.get_by_role("grid", name=WEIGHTS_GRID)
    expect(grid).to_be_visible(timeout=30_000)
    grid.get_by_role("gridcell").first.focus()
    it = labels.index("it")
    for _ in range(it):
        page.keyboard.press("ArrowDown")
    ARTIFACTS.mkdir(exist_ok=True)
    stage = page.get_by_test_id("stHorizontalBlock").filter(has=grid)
    for j in range(3):
        page.keyboard.press("Enter")
        wait_ready(page)
        weights = run.trace.weights[0].astype(np.float32)
        said = announcement(weights, labels, labels, it, j, decimals=PRESENTATION.decimals)
        assert focused(page)["name"] == said, j
        expect(page.get_by_text(as_shown(said)).first).to_be_visible()
        row = run.trace.masked[0, it]
        top = float(np.max(row))
        exps = np.exp(row - top)
        share = f"{number(float(exps[j]))} / {number(float(exps.sum()))}"
        expect(page.get_by_text(as_shown(f"Weight: {share}")).first).to_be_visible()
        stage.scroll_into_view_if_needed()
        stage.screenshot(path=str(ARTIFACTS / f"walk-row-{j + 1}.png"))
        page.keyboard.press("ArrowRight")
    no_axe_violations(page)


def test_a_narrower_window_redraws_the_matrix_smaller_on_the_same_focused_cell(
    page: Page, app_url: str
) -> None:
    sentence = " ".join(f"w{i}" for i in range(64))
    grid = open_weights(page, app_url, sentence)
    canvas = page.locator(".wm-canvas").first
    wide = canvas.bounding_box()["width"]
    grid.get_by_role("gridcell").first.focus()
    for key in ("ArrowDown", "ArrowDown", "ArrowRight"):
        page.keyboard.press(key)
    before = focused(page)
    page.set_viewport_size({"width": 520, "height": 1600})
    page.wait_for_function(
        "([w]) => { const c = document.querySelector('.wm-canvas') ||"
        " [...document.querySelectorAll('*')].find(e => e.shadowRoot &&"
        " e.shadowRoot.querySelector('.wm-canvas')).shadowRoot.querySelector('.wm-canvas');"
        " return c.getBoundingClientRect().width < w; }",
        arg=[wide],
    )
    assert canvas.bounding_box()["width"] < wide
    assert focused(page) == before  # the same cell, still focused, with the same words
    page.keyboard.press("ArrowRight")
    assert focused(page)["col"] == before["col"] + 1


def test_the_page_loads_the_matrix_code_and_style_once_from_its_own_server(
    page: Page, app_url: str
) -> None:
    # Every matrix's component imports static/walkable_matrix.js, which links the .css.
    loads: list[str] = []
    page.on(
        "request",
        lambda request: loads.append(request.url) if "walkable_matrix" in request.url else None,
    )
    open_weights(page, app_url, SENTENCE)
    assert page.locator(".wm-grid[role='grid']").count() > 1
    version = f"?v={walkable_matrix.CODE_VERSION}"
    code, style = (
        f"{app_url}/app/static/walkable_matrix.{kind}{version}" for kind in ("js", "css")
    )
    assert sorted(loads) == [style, code]
    for address, served, kind in (
        (code, walkable_matrix.CODE, "javascript"),
        (style, walkable_matrix.STYLE, "css"),
    ):
        response = page.request.get(address)
        assert response.ok and kind in response.headers["content-type"]
        assert response.body() == served.read_bytes()
    # The style applies inside every matrix: its scroll box is as the sheet says.
    overflow = page.locator(".wm-scroll").first.evaluate("node => getComputedStyle(node).overflow")
    assert overflow == "auto"
