"""Two sessions on one server never see each other's data.

Caches are shared by every session of the server process, so two students who
type different sentences (or upload different files) at the same time must each
see only their own tokens (or columns), whatever order their reruns run in.
Each step below acts in one or both browser contexts, then checks both pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import quote_plus

from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import EXCEPTION, matrix_titled, wait_ready

VIEWPORT = {"width": 1400, "height": 1800}
# Every label a chart draws on an axis, in a legend or as a title (numeric axes arrive as
# typed-array objects, not lists, and hold no words), and the headers and name of every
# walkable matrix (inside its component's shadow root, which body.textContent misses).
CHART_TEXT_JS = """() => {
    const labels = value => Array.isArray(value) ? value : [];
    const plots = Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(plot => [
        plot.layout.title && plot.layout.title.text,
        ...plot.data.flatMap(trace => [trace.name, ...labels(trace.x), ...labels(trace.y)]),
    ]);
    const grids = Array.from(document.querySelectorAll('*')).filter(e => e.shadowRoot)
        .flatMap(e => Array.from(e.shadowRoot.querySelectorAll(
            '[role=grid], [role=columnheader], [role=rowheader]')))
        .map(e => e.getAttribute('role') === 'grid' ? e.getAttribute('aria-label') : e.textContent);
    return [...plots, ...grids].filter(value => value !== undefined && value !== null).map(String);
}"""
# Which of the given words appear anywhere in the page's text (SVG text included).
WORDS_ON_PAGE_JS = "words => words.filter(word => document.body.textContent.includes(word))"
# Distinctive words that appear nowhere in the app's own text.
A_FIRST = ["apricot", "balloon", "cactus", "dolphin"]
A_SECOND = ["emerald", "falcon", "glacier", "harbor", "igloo"]
B_WORDS = ["xylophone", "yodel", "zeppelin", "walrus", "quartz", "rhubarb"]


@contextmanager
def two_sessions(browser: Browser) -> Iterator[tuple[Page, Page]]:
    """Two pages in separate browser contexts: two cookies, two Streamlit sessions."""
    first, second = browser.new_context(), browser.new_context()
    try:
        pages = first.new_page(), second.new_page()
        for page in pages:
            page.set_viewport_size(VIEWPORT)
        yield pages
    finally:
        first.close()
        second.close()


def assert_only_own_words(
    page: Page, own: list[str], foreign: list[str], stale: Sequence[str] = ()
) -> None:
    """``own`` words are on the charts; ``foreign`` ones (another session's) are nowhere.

    ``stale`` words are this session's own earlier input: while a rerun is being
    committed they may linger for a moment, so they only have to disappear.
    """
    page.wait_for_function(  # the rerun that draws them may still be on its way
        f"words => {{ const drawn = new Set(({CHART_TEXT_JS})()); "
        "return words.every(word => drawn.has(word)); }",
        arg=own,
        timeout=60_000,
    )
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    drawn = set(page.evaluate(CHART_TEXT_JS))
    assert set(own) <= drawn, sorted(set(own) - drawn)
    assert not drawn & set(foreign), sorted(drawn & set(foreign))
    assert page.evaluate(WORDS_ON_PAGE_JS, foreign) == []
    if stale:
        page.wait_for_function(
            f"words => ({WORDS_ON_PAGE_JS})(words).length == 0", arg=list(stale), timeout=30_000
        )


def in_url(page: Page, param: str, value: str) -> None:
    """Wait until the page's link holds ``param=value`` (the widget has taken the value)."""
    expect(page).to_have_url(
        re.compile(rf"[?&]{param}={re.escape(quote_plus(value))}(&|$)"), timeout=30_000
    )


def type_sentence(page: Page, words: list[str]) -> None:
    """Type a sentence and submit it, without waiting for the rerun to finish."""
    text_area = page.get_by_test_id("stTextArea").locator("textarea").first
    text_area.fill(" ".join(words))
    text_area.press("Control+Enter")
    in_url(page, "text", " ".join(words))


def settle(*pages: Page) -> None:
    for page in pages:
        wait_ready(page)


def open_page(page: Page, url: str, heading: str) -> None:
    page.goto(url)
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=60_000)


def choose(page: Page, label: str, option: str, param: str) -> None:
    """Pick ``option`` in the sidebar selectbox labelled ``label`` (the rerun is not awaited)."""
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(
        has=page.get_by_text(label, exact=True)
    ).click()
    page.get_by_role("option", name=option, exact=True).click()
    in_url(page, param, option)


def open_tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    in_url(page, "view", name)


def test_two_sessions_typing_on_the_text_page_see_only_their_own_tokens(
    browser: Browser, app_url: str
) -> None:
    with two_sessions(browser) as (a, b):
        open_page(a, f"{app_url}/text", "Text attention")
        open_page(b, f"{app_url}/text", "Text attention")
        settle(a, b)

        # Both submit at once, so the two reruns overlap on the server.
        type_sentence(a, A_FIRST)
        type_sentence(b, B_WORDS)
        settle(a, b)
        assert_only_own_words(a, A_FIRST, B_WORDS)
        assert_only_own_words(b, B_WORDS, A_FIRST)

        choose(a, "Heads", "4", "heads")
        settle(a)
        assert_only_own_words(a, A_FIRST, B_WORDS)
        assert_only_own_words(b, B_WORDS, A_FIRST)

        choose(b, "Mask", "causal", "mask")
        settle(b)
        assert_only_own_words(b, B_WORDS, A_FIRST)
        assert_only_own_words(a, A_FIRST, B_WORDS)

        # A types again while B opens another tab: A's first sentence must be gone too.
        type_sentence(a, A_SECOND)
        open_tab(b, "4 Weights")
        settle(a, b)
        assert_only_own_words(a, A_SECOND, B_WORDS, stale=A_FIRST)
        assert_only_own_words(b, B_WORDS, A_FIRST + A_SECOND)

        # Same settings in both sessions now; only the sentences differ.
        choose(a, "Mask", "causal", "mask")
        choose(b, "Heads", "4", "heads")
        settle(a, b)
        open_tab(a, "4 Weights")
        settle(a)
        assert_only_own_words(a, A_SECOND, B_WORDS + A_FIRST)
        assert_only_own_words(b, B_WORDS, A_FIRST + A_SECOND)

        # B now types what A typed first: a cache hit for B, still nothing of A's current view.
        type_sentence(b, A_FIRST)
        settle(b)
        assert_only_own_words(b, A_FIRST, A_SECOND, stale=B_WORDS)
        assert_only_own_words(a, A_SECOND, B_WORDS + A_FIRST)
        assert "text=emerald+falcon+glacier+harbor+igloo" in a.url
        assert "text=apricot+balloon+cactus+dolphin" in b.url


def series_csv(columns: tuple[str, str], scale: float) -> bytes:
    """31 days of two numeric columns; the same file name is used by both sessions."""
    rows = "".join(
        f"2024-01-{day:02d},{scale * (day % 7):.2f},{scale * day:.2f}\n" for day in range(1, 32)
    )
    return f"date,{columns[0]},{columns[1]}\n{rows}".encode()


A_COLUMNS = ("apples", "bananas")
B_COLUMNS = ("comets", "dragons")
C_COLUMNS = ("glaciers", "harbors")


def upload(page: Page, data: bytes) -> None:
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "data.csv", "mimeType": "text/csv", "buffer": data}]
    )


def test_two_sessions_uploading_files_see_only_their_own_columns(
    browser: Browser, app_url: str
) -> None:
    with two_sessions(browser) as (a, b):
        for page in (a, b):
            open_page(
                page,
                f"{app_url}/time_series?ts_source=upload&ts_length=14",
                "Time-series attention",
            )
        settle(a, b)

        upload(a, series_csv(A_COLUMNS, 1.0))
        upload(b, series_csv(B_COLUMNS, 100.0))
        settle(a, b)
        for page in (a, b):
            expect(matrix_titled(page, "Attention weights of head 1")).to_be_visible(timeout=30_000)
        assert_only_own_words(a, list(A_COLUMNS), list(B_COLUMNS))
        assert_only_own_words(b, list(B_COLUMNS), list(A_COLUMNS))

        choose(a, "Mask", "none", "ts_mask")
        b.get_by_test_id("stRadio").filter(has_text="Head").get_by_text("2", exact=True).click()
        settle(a, b)
        expect(matrix_titled(b, "Attention weights of head 2")).to_be_visible(timeout=30_000)
        assert_only_own_words(a, list(A_COLUMNS), list(B_COLUMNS))
        assert_only_own_words(b, list(B_COLUMNS), list(A_COLUMNS))

        # A replaces its file by another one of the same name: A sees only the new columns.
        upload(a, series_csv(C_COLUMNS, 3.0))
        settle(a)
        assert_only_own_words(a, list(C_COLUMNS), list(B_COLUMNS), stale=list(A_COLUMNS))
        assert_only_own_words(b, list(B_COLUMNS), list(A_COLUMNS + C_COLUMNS))
