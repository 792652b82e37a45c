"""One attention matrix of the walkthrough, the learning, the time-series and the
positional-encoding pages walked in a real browser: Tab into its grid, arrows and Home/End,
each cell named as Python announces it (:func:`ui.shared.walkable_data.announcement`), Enter
selects a cell and "This cell" writes its computation; axe-core finds nothing.

Each matrix's expected data is the page's own shared chart, built here in the test's process
from the same settings (its ``walk`` data: what the server sends). AppTest checks the
computations' numbers: tests/views/test_walk_cells.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import EXCEPTION, as_shown, focused, no_axe_violations, wait_ready
from ui.figures.style import NORMAL
from ui.shared.walkable_data import cell_announcement

TABS_TO_THE_GRID = 60  #: Tab presses allowed from the anchor text to the grid's tab stop


@dataclass(frozen=True)
class WalkedPage:
    """A page's link, the text just above its matrix, the grid's name, its walk data and
    what its computation's first line starts with for a cell ``(i, j)``."""

    link: str
    anchor: str
    grid: str
    data: Callable[[], dict[str, Any]]
    computed: Callable[[int, int], str]


def four_words() -> dict[str, Any]:
    from ui.walkthrough.examples import four_words_view

    return four_words_view(NORMAL).figure.walk[0]


def reverse_try_it() -> dict[str, Any]:
    from attention_core.learning.config import DEFAULTS
    from attention_core.learning.shipped import shipped_run
    from attention_core.learning.tasks import get_task
    from ui.learning import cache
    from ui.learning.state import LearningState

    model, train = DEFAULTS["reverse"]
    result = shipped_run(model, train)
    assert result is not None
    trained = cache.Trained(LearningState("reverse", model, train, NORMAL), result)
    task = get_task("reverse")
    probe = tuple(task.parse(task.default_probe).tolist())
    return cache.answer(trained, probe).heads.walk[0]


def series_weights() -> dict[str, Any]:
    import attention_core as ac
    from ui.time_series import cache
    from ui.time_series.state import load_sample

    config = ac.AttentionConfig(
        d_model=16, n_heads=2, positional="learned", mask="causal", seed=501
    )
    frame = load_sample("seasonal")
    inputs = cache.window_inputs(
        "sample:seasonal", (["sales"], "sales"), 28, "zscore", len(frame) - 1, config, "relu"
    )
    return cache.weights_chart(inputs, 0, NORMAL, cache.window_run(inputs, frame)).walk[0]


def similarity() -> dict[str, Any]:
    from ui.positional_encoding import cache
    from ui.positional_encoding.state import PositionalState

    state = PositionalState(12, 16, "sinusoidal", 10_000.0, NORMAL)
    return cache.encoding_view(state).similarity_chart.walk[0]


PAGES = {
    "walkthrough": WalkedPage(
        "walkthrough?step=2",
        "The NLP notes stack four word vectors",
        "Attention weights (4, 4)",
        four_words,
        lambda i, _j: f"Softmax of row {i + 1}",
    ),
    "learning": WalkedPage(
        "learning",
        "answers right.",
        "Every head of the trained model on your sequence",
        reverse_try_it,
        lambda i, _j: f"Softmax of row {i + 1}",
    ),
    "time_series": WalkedPage(
        "time_series?ts_seed=501",
        "Window: ",
        "Attention weights of head 1 (untrained)",
        series_weights,
        lambda i, _j: f"Softmax of row {i + 1}",
    ),
    "positional_encoding": WalkedPage(
        "positional_encoding?pe_kind=sinusoidal&pe_length=12&pe_d_model=16",
        "Dimensions to plot",
        "How alike two positions are: P Pᵀ",
        similarity,
        lambda i, j: f"Similarity of positions {i} and {j}",
    ),
}


#: Whether the focused element (through shadow roots) lies inside the grid it is given.
INSIDE_JS = """(grid) => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return grid.contains(a);
}"""


def tab_into(page: Page, grid: Locator, anchor: str) -> dict:
    """Click the text ``anchor`` (focus starts there), then Tab until a cell of ``grid`` has
    the focus (other grids on the way are one tab stop each)."""
    page.get_by_text(anchor).first.click()
    for _ in range(TABS_TO_THE_GRID):
        page.keyboard.press("Tab")
        if grid.evaluate(INSIDE_JS):
            return focused(page)
    raise AssertionError(f"no cell of the grid within {TABS_TO_THE_GRID} Tabs of {anchor!r}")


@pytest.mark.parametrize("name", list(PAGES))
def test_a_pages_matrix_is_walked_by_keyboard_and_explains_the_selected_cell(
    page: Page, app_url: str, name: str
) -> None:
    walked = PAGES[name]
    data = walked.data()
    rows, cols = len(data["rows"]), len(data["cols"])
    page.set_viewport_size({"width": 1400, "height": 2000})
    page.goto(f"{app_url}/{walked.link}")
    wait_ready(page, timeout=180_000)  # the learning page imports torch
    grid = page.get_by_role("grid", name=walked.grid)
    expect(grid).to_be_visible(timeout=60_000)
    assert grid.get_attribute("aria-rowcount") == str(rows + 1)
    assert grid.get_attribute("aria-colcount") == str(cols + 1)
    grid.scroll_into_view_if_needed()

    entered = tab_into(page, grid, walked.anchor)
    assert entered == {
        "name": cell_announcement(data, (0, 0)),
        "role": "gridcell",
        "row": 2,
        "col": 2,
    }
    path = [
        ("ArrowDown", 1, 0),
        ("ArrowRight", 1, 1),
        ("End", 1, cols - 1),
        ("Home", 1, 0),
        ("ArrowDown", 2, 0),
        ("ArrowRight", 2, 1),
    ]
    for key, i, j in path:
        page.keyboard.press(key)
        now = focused(page)
        assert (now["row"], now["col"]) == (i + 2, j + 2), (key, now)
        assert now["name"] == cell_announcement(data, (i, j)), key
    said = cell_announcement(data, (2, 1))
    page.keyboard.press("Enter")
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text("This cell").first).to_be_visible()
    expect(page.get_by_text(as_shown(said)).first).to_be_visible()
    expect(page.get_by_text(walked.computed(2, 1)).first).to_be_visible()
    no_axe_violations(page)
