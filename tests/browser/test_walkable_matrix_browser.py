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
from tests.browser.helpers import (
    ARTIFACTS,
    EXCEPTION,
    as_shown,
    focused,
    no_axe_violations,
    wait_ready,
)
from ui.shared.walkable_data import announcement

SENTENCE = "The animal didn't cross the street because it was too tired."
WEIGHTS_GRID = "Attention weights · head 1"
# Milliseconds per key press, for `count` ArrowDown/ArrowRight presses sent in the page
# (each moves the focus and rewrites the announcement before the next is sent).
KEY_TIME_JS = """(count) => {
    const start = performance.now();
    for (let n = 0; n < count; n += 1) {
        let cell = document.activeElement;
        while (cell.shadowRoot && cell.shadowRoot.activeElement) {
            cell = cell.shadowRoot.activeElement;
        }
        const key = n % 2 ? 'ArrowRight' : 'ArrowDown';
        cell.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, composed: true}));
    }
    return (performance.now() - start) / count;
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
    per_key = page.evaluate(KEY_TIME_JS, 60)
    assert per_key < 50, per_key


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
