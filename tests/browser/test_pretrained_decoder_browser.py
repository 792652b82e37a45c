"""The pretrained page with a decoder in a real browser: tiny random GPT-2 and Llama checkpoints
from this server's models folder (``decoder_app_url``).

Every step of a rotary head (RoPE before and after, its angles, the causal mask greyed), the
Next token, Heads that copy and Why a head attends tabs, tokens that are markup shown as
text, the model menu by keyboard alone, a link that reproduces the view, and on every decoder
view axe-core, text alternatives, and no formula cut off or panel title over tick labels at a
laptop's 1200 px.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import MARKUP_TOKENS
from tests.browser.helpers import EXCEPTION, wait_ready
from ui.figures.style import NORMAL

VIEWPORT = {"width": 1200, "height": 2200}  # a laptop: narrow step columns
TEXT = "w1 w2 w3 w4 w5 w1 w2 w3 w4"  # words of the tiny tokenizer: 9 tokens, a repeat
LENGTH = 9
LLAMA_ROPE_BASE = 5000.0  # CONFIGS["llama"] in tests/core/pretrained/test_families.py
LLAMA_HEAD_SIZE = 8  # hidden 32 / 4 heads
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
CHART = "[data-testid='stPlotlyChart']"
# Each plot's title as drawn, its traces' names, decoded z (NaN as null), and its background.
PLOTS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => ({
    title: plot.querySelector('.gtitle').textContent,
    background: plot._fullLayout.plot_bgcolor,
    traces: plot._fullData.map(trace => ({
        name: trace.name,
        type: trace.type,
        z: trace.z ? Array.from(trace.z, row => Array.from(row)) : null,
        y: trace.y ? Array.from(trace.y) : null,
    })),
}))"""


# Formulas wider than their text box, which hides what overflows (a few pixels are KaTeX's
# own overhang).
CLIPPED_FORMULAS_JS = """() => [...document.querySelectorAll('.katex-display')]
    .map(e => e.closest('[data-testid=stMarkdownContainer]'))
    .filter(box => box.scrollWidth > box.clientWidth + 4)
    .map(box => box.textContent.slice(0, 60))"""
# Subplot titles that run into another panel's tick labels.
OVERLAPS_JS = """() => { const hits = [];
    const boxes = s => [...document.querySelectorAll(s)].map(e => [e, e.getBoundingClientRect()]);
    const ticks = boxes('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text');
    for (const [title, a] of boxes('.js-plotly-plot .annotation-text'))
      for (const [tick, b] of ticks)
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
            hits.push(title.textContent + ' / ' + tick.textContent);
    return hits; }"""


WALKABLE = ".wm [role=grid]"  #: a walkable matrix's grid (CSS locators pierce its shadow root)
# Each cell in a grid's DOM window: its row and column, what it says and its fill.
CELLS_JS = """cells => cells.map(c => [Number(c.dataset.row), Number(c.dataset.col),
    c.getAttribute('aria-label'), c.style.backgroundColor])"""
SAID_NUMBER = re.compile(r"(−?\d+\.\d+)")


def walked(page: Page, count: int) -> dict[str, Locator]:
    """Every walkable matrix's grid by its title, once at least ``count`` are drawn."""
    grids = page.locator(WALKABLE)
    expect(grids.nth(count - 1)).to_be_attached(timeout=60_000)
    return {grid.get_attribute("aria-label"): grid for grid in grids.all()}


def said_values(grid: Locator) -> tuple[np.ndarray, np.ndarray]:
    """The numbers a small grid's cells say (NaN where "masked"), and each cell's fill (CSS
    colour): a matrix of at most 16 × 16, every cell in the grid's DOM window."""
    shape = (
        int(grid.get_attribute("aria-rowcount")) - 1,
        int(grid.get_attribute("aria-colcount")) - 1,
    )
    values, fills = np.full(shape, np.nan), np.full(shape, "", dtype=object)
    cells = grid.get_by_role("gridcell").evaluate_all(CELLS_JS)
    assert len(cells) == values.size, (len(cells), shape)
    for row, col, name, fill in cells:
        said = name.rsplit("': ", 1)[1]  # after the row and column labels
        if said != "masked":
            values[row, col] = float(SAID_NUMBER.findall(said)[0].replace("−", "-"))
        fills[row, col] = fill
    return values, fills


def walkable_names(page: Page) -> list[str]:
    """Each walkable matrix's name and the summary it is described by, as one text."""
    return page.locator(WALKABLE).evaluate_all(
        "grids => grids.map(g => g.getAttribute('aria-label') + ': ' + "
        "(g.getRootNode().getElementById(g.getAttribute('aria-describedby'))?.textContent || ''))"
    )


def link(**params: str) -> str:
    """The pretrained page's address with ``params`` (the tiny repeated text by default)."""
    return "/pretrained?" + urlencode({"text": TEXT} | params)


def open_page(page: Page, base_url: str, address: str) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(base_url + address)
    expect(page.get_by_role("heading", name="Inside a real model")).to_be_visible(timeout=60_000)
    wait_ready(page)


def plots(page: Page, count: int) -> dict[str, dict]:
    """Every drawn Plotly figure by title, once at least ``count`` are drawn."""
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {count}")
    page.wait_for_timeout(300)
    return {plot["title"]: plot for plot in page.evaluate(PLOTS_JS)}


def no_exception(page: Page) -> None:
    errors = page.locator(EXCEPTION)
    assert errors.count() == 0, errors.first.inner_text()


def test_every_step_of_a_rotary_head_shows_rope_and_greys_the_causal_mask(
    page: Page, decoder_app_url: str
) -> None:
    open_page(page, decoder_app_url, link(model="local:llama", view="Every step", head="2"))
    drawn = walked(page, 13)  # each step a walkable matrix (its plotly heatmap in an expander)
    where = "layer 3 · head 2"
    for title in (
        f"Queries Q before RoPE · {where}",
        f"Keys K before RoPE · {where}",
        "RoPE angles θ · layer 3",
        f"Queries after RoPE · {where}",
        f"Keys after RoPE · {where}",
        f"Masked scores · {where}",
    ):
        assert title in drawn, list(drawn)
    pairs = np.arange(LLAMA_HEAD_SIZE // 2)
    angles = np.arange(LENGTH)[:, None] * LLAMA_ROPE_BASE ** (-2 * pairs / LLAMA_HEAD_SIZE)
    shown_angles, _ = said_values(drawn["RoPE angles θ · layer 3"])
    np.testing.assert_allclose(shown_angles, angles, atol=5e-5)  # said to 4 decimals
    weights, fills = said_values(drawn[f"Attention weights · {where}"])
    future = np.triu(np.ones((LENGTH, LENGTH), dtype=bool), 1)
    assert np.isnan(weights[future]).all() and not np.isnan(weights[~future]).any()
    np.testing.assert_allclose(weights[~future].reshape(-1).sum(), LENGTH, atol=LENGTH**2 * 5e-5)
    # Exactly the future keys are grey.
    grey = "rgb({}, {}, {})".format(*(int(NORMAL.masked_colour[k : k + 2], 16) for k in (1, 3, 5)))
    assert ((fills == grey) == future).all(), fills
    expect(page.get_by_text("Head 2 reads K/V head 1, with heads 1–2").first).to_be_visible()
    no_exception(page)


def test_next_token_draws_the_guesses_and_their_table(page: Page, decoder_app_url: str) -> None:
    open_page(page, decoder_app_url, link(model="local:gpt2", view="Next token", query="3: w4"))
    drawn = plots(page, 1)
    bars = drawn["Next-token guesses after “w4”"]["traces"][0]
    assert bars["type"] == "bar" and len(bars["y"]) == 5
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    expect(page.get_by_text(re.compile(r"median rank is \d+ of 96 tokens"))).to_be_visible()
    no_exception(page)


def test_tokens_that_are_markup_are_shown_as_text(page: Page, decoder_app_url: str) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    text = " ".join(("w1", *MARKUP_TOKENS, "w1", *MARKUP_TOKENS))
    star = MARKUP_TOKENS[2]  # Markdown would make it italic
    query = f"3: {star}"
    open_page(
        page, decoder_app_url, link(model="local:gpt2", view="Next token", text=text, query=query)
    )
    assert f"Next-token guesses after “{star}”" in plots(page, 1)
    expect(page.get_by_text(f"After “{star}” (position 3")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    # The grid draws on a canvas; its cells are also in an accessible table for screen readers.
    cells = table.evaluate(
        "grid => [...grid.querySelectorAll('[role=gridcell]')].map(c => c.textContent).join('|')"
    )
    assert all(token in cells for token in MARKUP_TOKENS), cells[:3000]
    assert page.locator("[data-testid=stMain] :is(b, br, a[href^=javascript])").count() == 0
    assert dialogs == []
    no_exception(page)


def test_a_strongest_copying_head_opens_in_the_head_view_and_its_link_reopens_it(
    page: Page, decoder_app_url: str
) -> None:
    open_page(page, decoder_app_url, link(model="local:gpt2", view="Heads that copy"))
    scores, _ = said_values(walked(page, 1)["Previous token score of every head"])
    assert scores.shape == (3, 4)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    button = page.get_by_role("button", name=re.compile(r"^Open layer \d · head \d")).first
    layer, head = re.match(r"Open layer (\d) · head (\d)", button.inner_text()).groups()
    assert float(button.inner_text().rsplit("(", 1)[1].rstrip(")")) == pytest.approx(
        scores.max(), abs=0.005
    )
    button.click()
    expect(page).to_have_url(re.compile(rf"[?&]layer={layer}\b"), timeout=30_000)
    wait_ready(page)
    for _ in range(2):  # the view the click opened, then the same link loaded afresh
        assert re.search(rf"[?&]head={head}\b", page.url) and "view=Head+view" in page.url
        expect(page.get_by_role("tab", name="Head view")).to_have_attribute("aria-selected", "true")
        assert f"Head view · layer {layer} · from “w2”" in plots(page, 1)
        no_exception(page)
        page.goto(page.url)
        wait_ready(page)


def test_why_a_gpt2_head_attends_draws_the_shares_and_the_parts(
    page: Page, decoder_app_url: str
) -> None:
    open_page(page, decoder_app_url, link(model="local:gpt2", view="Why a head attends", layer="2"))
    drawn = plots(page, 2)
    head = "layer 2 · head 2"
    shares = drawn[f"Where {head}'s scores come from"]["traces"][0]
    assert shares["type"] == "bar"
    assert any(label.endswith("(largest)") for label in shares["y"])
    parts = drawn[f"The parts of {head}'s scores QKᵀ"]["traces"]
    assert len(parts) >= 4 and all(part["type"] == "heatmap" for part in parts[:4])
    no_exception(page)


def _focused_label(page: Page) -> str:
    """The accessible label of the control holding the keyboard focus ("" for none)."""
    return page.evaluate("() => document.activeElement.getAttribute('aria-label') || ''")


def test_the_model_menu_is_chosen_by_keyboard_alone(page: Page, decoder_app_url: str) -> None:
    open_page(page, decoder_app_url, "/pretrained")
    for _ in range(60):
        page.keyboard.press("Tab")
        if _focused_label(page) == "Model":
            break
    else:
        raise AssertionError("Tab never reached the model menu")
    page.keyboard.press("ArrowDown")  # opens the menu
    page.keyboard.type("gpt2")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]model=local%3Agpt2\b"), timeout=30_000)
    wait_ready(page)
    expect(
        page.get_by_text("a GPT-2 decoder: each token sees only the tokens before it")
    ).to_be_visible()
    no_exception(page)


def _focused_group(page: Page) -> str:
    """The accessible label of the radio group holding the keyboard focus ("" for none)."""
    return page.evaluate(
        "() => document.activeElement.closest('[role=radiogroup]')?.getAttribute('aria-label')"
        " || ''"
    )


def model_view_title(page: Page) -> str:
    """The model view's grid (plotly; the opened head below it is a walkable matrix)."""
    return next(title for title in plots(page, 1) if title.startswith("Model view"))


def test_a_deep_models_view_is_paged_by_keyboard_and_its_link_reopens_the_page(
    page: Page, decoder_app_url: str
) -> None:
    open_page(page, decoder_app_url, link(model="local:deep", view="Model view", layer="3"))
    assert model_view_title(page) == "Model view · layers 1–6 of 30 (rows) and every head (columns)"
    for _ in range(80):
        page.keyboard.press("Tab")
        if _focused_group(page) == "Layers":
            break
    else:
        raise AssertionError("Tab never reached the Layers control")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]layers=7-12\b"), timeout=30_000)
    wait_ready(page)
    for _ in range(2):  # the page the keyboard opened, then its link loaded afresh
        assert model_view_title(page).startswith("Model view · layers 7–12 of 30")
        expect(page.get_by_text("Opened below: layer 3 · head 2", exact=False)).to_be_visible()
        no_exception(page)
        page.goto(page.url)
        wait_ready(page)


DECODER_VIEWS = (
    link(model="local:deep", view="Model view", layers="25-30"),
    link(model="local:deep", view="Heads that copy"),
    link(model="local:llama", view="Every step"),
    link(model="local:gpt2", view="Every step"),
    link(model="local:llama", view="Model view"),
    link(model="local:gpt2", view="Next token"),
    link(model="local:gpt2", view="Heads that copy"),
    link(model="local:gpt2", view="Why a head attends"),
    link(model="local:gpt2", view="Guided example"),
)


@pytest.mark.parametrize("address", DECODER_VIEWS)
def test_decoder_view_passes_axe_has_text_alternatives_and_nothing_cut_off_or_overlapping(
    page: Page, decoder_app_url: str, address: str
) -> None:
    open_page(page, decoder_app_url, address)
    page.wait_for_timeout(1000)  # let Plotly draw before the scan
    wait_ready(page)
    no_exception(page)
    results = Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    )
    assert results.violations_count == 0, results.generate_report()
    labels = page.locator(CHART).evaluate_all(
        "charts => charts.map(c => (c.closest('[role=figure]') || c).getAttribute('aria-label'))"
    )
    labels += walkable_names(page)
    assert labels and all(label and label.strip() for label in labels), labels
    assert page.evaluate(CLIPPED_FORMULAS_JS) == []
    assert page.evaluate(OVERLAPS_JS) == []
