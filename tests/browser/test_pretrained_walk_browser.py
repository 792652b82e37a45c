"""A head's weights of the real SmolLM2-135M-Instruct (layer 30 of 30, RoPE, grouped K/V heads)
walked by keyboard alone on "Every step", in Chromium: Tab into the grid, the arrows, End and
Ctrl+End, each focused cell named as Python names it (:func:`ui.shared.walkable_data.announcement`),
Enter selects a cell and its softmax is written beside the matrix with the layer's own numbers;
axe-core finds no WCAG 2.2 AA violation."""

from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from attention_core.pretrained import load_checkpoint
from attention_core.pretrained.slim import layer_steps, slim_forward
from tests.browser.helpers import as_shown, no_axe_violations, wait_ready
from tests.browser.test_pretrained_decoder_browser import VIEWPORT, no_exception
from tests.browser.test_walkable_matrix_browser import focused
from tests.real.model_file import real_decoder_file
from ui.figures.matrix_look import display_matrix
from ui.pretrained.cell_view import stage_cell
from ui.shared.walkable_data import announcement

MODEL = "SmolLM2-135M-Instruct"
TEXT = "The capital of France is Paris, and the capital of Italy is Rome."
LAYER, HEAD = 29, 8  #: 0-based: the last layer's last head
GRID = f"Attention weights · layer {LAYER + 1} · head {HEAD + 1}"
SLOW = 180_000  #: ms: the model loaded and its pass run by a busy server


@pytest.fixture(scope="module")
def last_layer():
    """The model's facts, the text's labels and its last layer's every step."""
    checkpoint = load_checkpoint(real_decoder_file())
    tokens = checkpoint.tokenize(TEXT)
    slim = slim_forward(checkpoint.model, tokens.ids)
    return checkpoint.info, tokens.labels, layer_steps(checkpoint.model, slim, LAYER)


def said(steps, labels: tuple[str, ...], i: int, j: int) -> str:
    """What cell ``(i, j)`` of the head's weights (the future greyed) says, as Python says it."""
    weights = display_matrix(steps.heads.weights[HEAD], steps.heads.mask)  # (T, T), NaN = masked
    return announcement(np.asarray(weights), labels, labels, i, j)


def test_a_keyboard_walks_the_real_models_last_head_and_enter_explains_a_weight(
    page: Page, app_url: str, last_layer
) -> None:
    info, labels, steps = last_layer
    n = len(labels)
    query = {"model": MODEL, "text": TEXT, "view": "Every step", "layer": LAYER + 1}
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{app_url}/pretrained?" + urlencode(query | {"head": HEAD + 1}))
    grid = page.get_by_role("grid", name=GRID)
    expect(grid).to_be_visible(timeout=SLOW)
    wait_ready(page, timeout=SLOW)
    assert grid.get_attribute("aria-rowcount") == str(n + 1)
    # Tab into the grid from the control before it: the step's "The code".
    stage = page.get_by_test_id("stHorizontalBlock").filter(has=grid)
    stage.locator("summary").filter(has_text="The code").focus()
    for _ in range(6):
        page.keyboard.press("Tab")
        if focused(page)["role"] == "gridcell":
            break
    assert focused(page) == {"name": said(steps, labels, 0, 0), "role": "gridcell", "row": 2,
                             "col": 2}  # fmt: skip
    path = [
        ("ArrowRight", 0, 1),  # a later key: masked
        ("ArrowDown", 1, 1),
        ("End", 1, n - 1),
        ("Control+End", n - 1, n - 1),
        ("Home", n - 1, 0),
        *[("ArrowRight", n - 1, j) for j in (1, 2, 3)],
    ]
    for key, i, j in path:
        page.keyboard.press(key)
        now = focused(page)
        assert (now["row"], now["col"]) == (i + 2, j + 2), (key, now)  # the header row is 1
        assert now["name"] == said(steps, labels, i, j), key
    assert said(steps, labels, 0, 1).endswith(": masked")
    chosen = said(steps, labels, n - 1, 3)
    page.keyboard.press("Enter")  # selects: "This cell" beside the matrix explains it
    wait_ready(page, timeout=SLOW)
    lines = stage_cell(steps, info, "weights", HEAD, (n - 1, 3)).lines
    for line in (chosen, *lines):
        expect(stage.get_by_text(as_shown(line)).first).to_be_visible()
    assert lines[-1].endswith(f"= {float(steps.heads.weights[HEAD, n - 1, 3]):.3f}.")
    assert focused(page)["name"] == chosen  # the rerun keeps the focus
    no_exception(page)
    no_axe_violations(page)
