"""WCAG 2.2 AA in Chromium: axe-core on every view, a text alternative on every chart,
the text page driven by keyboard alone.

The views are read from the app itself (app.py's CONTENT_PAGES table, views/text.py's TABS),
so a page or tab added later is scanned too. axe-core is the copy bundled with
axe-playwright-python (no network).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

import attention_core as ac
from tests.browser.helpers import EXCEPTION, no_axe_violations, wait_ready

ROOT = Path(__file__).resolve().parents[2]
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
VIEWPORT = {"width": 1400, "height": 1600}
CHART = "[data-testid='stPlotlyChart']"
# Views behind a page's own controls, reached by their links.
DEEPER_VIEWS = (
    "/pretrained?view=Head+summary",
    "/pretrained?view=Every+step",
    "/walkthrough?step=4",
)


def _assigned(path: Path, name: str) -> ast.expr:
    """The expression assigned to the module-level ``name`` in ``path`` (read, not imported)."""
    for node in ast.parse(path.read_text()).body:
        targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            assert node.value is not None
            return node.value
    raise AssertionError(f"{name} not found in {path}")


def navigation_pages() -> list[str]:
    """Page names (URL paths) of app.py's CONTENT_PAGES table, in the navigation's order."""
    rows = ast.literal_eval(_assigned(ROOT / "app.py", "CONTENT_PAGES"))
    return [row[0] for row in rows]


def text_tabs() -> list[str]:
    """The labels of the text page's table of tabs: ``Tab("1 Tokens", tokens_tab), ...``."""
    table = _assigned(ROOT / "ui" / "text" / "sections.py", "TABS")
    assert isinstance(table, ast.Tuple)
    return [ast.literal_eval(call.args[0]) for call in table.elts if isinstance(call, ast.Call)]


def views() -> list[str]:
    """Every view to scan: home, each page, each text-page tab, and all of them presenting."""
    plain = ["/"] + [f"/{name}" for name in navigation_pages()]
    plain += [f"/text?{urlencode({'view': tab})}" for tab in text_tabs()]
    presenting = [f"{v}{'&' if '?' in v else '?'}present=1" for v in plain]
    return plain + presenting + list(DEEPER_VIEWS)


def open_view(page: Page, url: str) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(url)
    wait_ready(page, timeout=120_000)
    # A link's settings may trigger one more run (e.g. a default tab dropped from the
    # address); scan only once the page has settled and Plotly has drawn.
    page.wait_for_timeout(1500)
    wait_ready(page, timeout=120_000)
    errors = page.locator(EXCEPTION)
    assert errors.count() == 0, errors.first.inner_text()


def test_the_scan_covers_every_page_and_tab() -> None:
    pages = navigation_pages()
    assert {"text", "time_series", "positional_encoding", "walkthrough"} <= set(pages)
    assert len(text_tabs()) >= 6
    assert len(views()) == 2 * (1 + len(pages) + len(text_tabs())) + len(DEEPER_VIEWS)


@pytest.mark.parametrize("path", views())
def test_view_has_no_wcag_a_or_aa_violation_and_every_chart_a_text_alternative(
    page: Page, app_url: str, path: str
) -> None:
    open_view(page, app_url + path)
    results = Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    )
    assert results.violations_count == 0, results.generate_report()
    labels = page.locator(CHART).evaluate_all(
        "charts => charts.map(c => (c.closest('[role=figure]') || c).getAttribute('aria-label'))"
    )
    assert all(label and label.strip() for label in labels), labels


def test_weights_grid_names_the_strongest_link_the_core_computes(page: Page, app_url: str) -> None:
    sentence = "The animal didn't cross the street because it was too tired."
    tokenized = ac.tokenize(sentence)
    run = ac.run_text_attention(tokenized.tokens, ac.AttentionConfig())
    weights = run.trace.weights[0]  # head 1, (T, T)
    row, col = np.unravel_index(int(np.argmax(weights)), weights.shape)
    labels = tokenized.labels
    strongest = (
        f"{weights[row, col]:.4f}; the largest at query '{labels[row]}', key '{labels[col]}'"
    )
    open_view(page, app_url + "/text?" + urlencode({"view": "4 Weights"}))
    # Head 1's weights are a walkable grid (ui/shared/walkable_matrix.py): its description says.
    grid = page.get_by_role("grid", name="Attention weights · head 1")
    expect(grid).to_have_accessible_description(re.compile(re.escape(strongest)))


def test_plotlys_hover_toolbar_has_targets_of_at_least_24_px(page: Page, app_url: str) -> None:
    open_view(page, app_url + "/text?" + urlencode({"view": "4 Weights"}))
    chart = page.locator(".js-plotly-plot").first  # every head's weights: a plotly grid
    chart.scroll_into_view_if_needed()
    chart.hover()
    buttons = page.locator(".js-plotly-plot .modebar-btn")
    expect(buttons.first).to_be_visible()
    sizes = [buttons.nth(n).bounding_box() for n in range(buttons.count())]
    assert all(box["width"] >= 24 and box["height"] >= 24 for box in sizes if box), sizes
    no_axe_violations(page)


def test_read_as_a_table_opens_a_real_table_with_the_tokens_as_headers(
    page: Page, app_url: str
) -> None:
    sentence = "The cat sat on the mat."
    open_view(page, app_url + "/text?" + urlencode({"view": "4 Weights", "text": sentence}))
    assert page.locator("table").count() == 0  # built only when opened
    page.get_by_text("Read as a table").first.click()
    table = page.locator("table").first
    expect(table).to_be_visible(timeout=30_000)
    headers = table.locator("th").all_inner_texts()
    assert {"cat", "sat", "mat"} <= {h.strip() for h in headers}, headers


def _focus_name(page: Page) -> str:
    return page.evaluate(
        """() => { const e = document.activeElement;
        return (e.getAttribute('aria-label') || e.innerText || e.value || e.tagName).trim(); }"""
    )


def _tab_to(page: Page, pattern: str, limit: int = 120) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if re.search(pattern, _focus_name(page)):
            return
    raise AssertionError(f"Tab never reached a control named like {pattern!r}")


def test_keyboard_alone_changes_heads_and_mask_and_reaches_every_control(
    page: Page, app_url: str
) -> None:
    open_view(page, app_url + "/text")
    page.evaluate(
        """() => { window.__visited = new Set();
        document.addEventListener('focusin', e => window.__visited.add(e.target)); }"""
    )
    _tab_to(page, r"^Heads$")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]heads=(?!2\b)\d+"), timeout=30_000)
    wait_ready(page)
    expect(page.get_by_text(re.compile(r"H = (?!2 )\d+ heads")).first).to_be_visible()
    _tab_to(page, r"^Mask$")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]mask=\w+"), timeout=30_000)
    wait_ready(page)
    for _ in range(400):  # on through the rest of the page and round to the top again
        page.keyboard.press("Tab")
    missed = page.evaluate(
        """() => [...document.querySelectorAll(
            'input, textarea, select, button, [role=tab], [role=switch], [role=slider]')]
          .filter(e => e.checkVisibility({visibilityProperty: true}) && !e.disabled
                  && e.tabIndex >= 0)
          .filter(e => !window.__visited.has(e))
          .map(e => e.getAttribute('aria-label') || e.innerText || e.outerHTML.slice(0, 80))"""
    )
    assert missed == [], missed


def test_nothing_moves_for_readers_who_ask_for_reduced_motion(page: Page, app_url: str) -> None:
    page.emulate_media(reduced_motion="reduce")
    open_view(page, app_url + "/text")
    moving = page.evaluate(
        """() => [...document.querySelectorAll('*')].filter(e => {
            const s = getComputedStyle(e);
            return s.animationName !== 'none' ||
                s.transitionDuration.split(',').some(d => parseFloat(d) > 0); })
          .map(e => e.tagName + '.' + e.className).slice(0, 10)"""
    )
    assert moving == [], moving
