"""Script in a text field, a CSV header or a link never runs, on any page.

Each test opens a page with payloads in the link, types or uploads more, and then
checks that no dialog opened, no injected element exists, no request went to the
payloads' targets, and that the payload is visible as literal text where the page
shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import EXCEPTION, as_shown, matrix_titled, wait_ready

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
JS_LINK = "[click](javascript:alert(1))"
# Plotly draws <a>, <b> … of chart text as SVG elements; it must drop a javascript: link.
PLOTLY_JS_LINK = "<a href='javascript:alert(1)'>js</a>"
REMOTE_IMAGE = "![x](http://x)"
VIEWPORT = {"width": 1400, "height": 1800}


def injected_request(url: str) -> bool:
    """A request only an injected ``<img src=x>`` or ``![x](http://x)`` would make."""
    parts = urlsplit(url)
    return parts.hostname == "x" or parts.path.endswith("/x")


@contextmanager
def watched(page: Page) -> Iterator[list[str]]:
    """Record every dialog (alert, confirm …) and every request an injection would make."""
    events: list[str] = []

    def on_dialog(dialog) -> None:
        events.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on(
        "request",
        lambda request: (
            events.append(f"request: {request.url}") if injected_request(request.url) else None
        ),
    )
    page.set_viewport_size(VIEWPORT)
    yield events


LONG = 60_000  # ms; the server may be busy (a classroom benchmark, two cores)


def open_page(page: Page, base_url: str, path: str, params: dict[str, str], heading: str) -> None:
    """Open the link and wait until the page's script has drawn it."""
    page.goto(f"{base_url}{path}?{urlencode(params)}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=LONG)
    wait_ready(page)


# Inline event handlers (onerror=…) and javascript: URLs in any attribute, href and
# SVG's xlink:href included. Streamlit and Plotly set neither.
SCRIPT_ATTRIBUTES_JS = """() => Array.from(document.querySelectorAll('*'))
    .flatMap(element => Array.from(element.attributes))
    .filter(a => a.name.toLowerCase().startsWith('on') || /^\\s*javascript:/i.test(a.value))
    .map(a => `${a.name}=${a.value}`)"""


def assert_nothing_ran(page: Page, events: list[str]) -> None:
    page.wait_for_timeout(500)  # an onerror handler would fire within this time
    assert events == []
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("img[src='http://x'], img[src='http://x/']").count() == 0
    assert page.locator("script", has_text="alert(1)").count() == 0
    assert page.evaluate(SCRIPT_ATTRIBUTES_JS) == []
    expect(page.locator(EXCEPTION)).to_have_count(0)


def expect_literal(page: Page, text: str) -> None:
    """``text`` is on the page as text (markup would have been turned into elements)."""
    expect(page.get_by_text(as_shown(text)).first).to_be_visible(timeout=LONG)


# The labels as Plotly shows them: the figures escape them (Plotly reads tags and entities in
# labels), and Plotly decodes the entities when it draws; a textarea decodes without running.
SWAP_LABELS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(plot => plot.layout.title.text.includes('Attention weights'))
    .map(plot => Array.from(plot.data[0].x).map(label => {
        const box = document.createElement('textarea'); box.innerHTML = label; return box.value;
    }))"""
TOKENS_OF_IMG_AND_SCRIPT = [
    "<",
    "img",
    "src",
    "=",
    "x",
    "onerror",
    "=₂",
    "alert",
    "(",
    "1",
    ")",
    ">",
    "<₂",
    "script",
    ">₂",
    "alert₂",
    "(₂",
    "1₂",
    ")₂",
    "<₃",
    "/",
    "script₂",
    ">₃",
]


def axis_texts(page: Page) -> list[str]:
    """The text of every SVG text node of the charts (axis labels, legends, titles)."""
    return page.locator(".js-plotly-plot text").all_text_contents()


def test_home_shows_a_script_in_the_present_parameter_as_text(page: Page, app_url: str) -> None:
    with watched(page) as events:
        open_page(page, app_url, "/", {"present": SCRIPT}, "Attention Visualizer")
        expect_literal(page, f"present={SCRIPT}")
        expect(page.get_by_role("switch", name="Presentation mode")).not_to_be_checked()
        assert_nothing_ran(page, events)


def test_text_page_shows_script_from_link_and_typing_only_as_text(page: Page, app_url: str) -> None:
    with watched(page) as events:
        open_page(
            page,
            app_url,
            "/text",
            {
                "text": IMG,
                "cross": "true",
                "text2": SCRIPT,
                "pe": SCRIPT,
                "mask": IMG,
                "view": "4 Weights",
            },
            "Text attention",
        )
        expect_literal(page, f"pe={SCRIPT}; mask={IMG}")
        text_areas = page.get_by_test_id("stTextArea").locator("textarea")
        expect(text_areas.nth(0)).to_have_value(IMG)
        expect(text_areas.nth(1)).to_have_value(SCRIPT)
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=LONG)
        labels = axis_texts(page)
        assert {"img", "onerror", "script", "alert"} <= set(labels)
        # Head 1's walkable weights write the tokens as their headers' text (textContent).
        grid = page.get_by_role("grid", name="Attention weights · head 1")
        headers = grid.get_by_role("columnheader").all_inner_texts()
        headers += grid.get_by_role("rowheader").all_inner_texts()
        assert {"img", "onerror", "script", "alert"} <= set(headers)
        assert_nothing_ran(page, events)

        # The head view lists the query tokens in a selectbox: text there too.
        page.get_by_role("tab", name="5 Head view").click()
        expect(page.get_by_text("Query token", exact=True)).to_be_visible(timeout=LONG)
        wait_ready(page)
        assert_nothing_ran(page, events)

        text_areas.nth(0).fill(f"{JS_LINK} {REMOTE_IMAGE} {SCRIPT}")
        text_areas.nth(0).press("Control+Enter")
        expect(page).to_have_url(re.compile(r"[?&]text=%5Bclick%5D"), timeout=LONG)
        wait_ready(page)
        expect(text_areas.nth(0)).to_have_value(f"{JS_LINK} {REMOTE_IMAGE} {SCRIPT}")
        assert_nothing_ran(page, events)


def test_time_series_page_shows_markup_in_a_csv_header_only_as_text(
    page: Page, app_url: str
) -> None:
    header = f"{SCRIPT},{IMG},{PLOTLY_JS_LINK},{JS_LINK}"
    rows = "".join(f"{day},{day % 7},{day % 5},note {day}\n" for day in range(40))
    with watched(page) as events:
        open_page(
            page,
            app_url,
            "/time_series",
            {"ts_source": "upload", "ts_length": "10", "ts_mask": IMG},
            "Time-series attention",
        )
        expect_literal(page, f"ts_mask={IMG}")
        page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
            files=[
                {
                    "name": "markup.csv",
                    "mimeType": "text/csv",
                    "buffer": f"{header}\n{rows}".encode(),
                }
            ]
        )
        wait_ready(page)
        expect(matrix_titled(page, "Attention weights of head 1")).to_be_visible(timeout=LONG)
        features = page.get_by_test_id("stMultiSelect").filter(has_text="Feature columns")
        expect(features.get_by_text(SCRIPT, exact=True)).to_be_visible()
        expect(features.get_by_text(IMG, exact=True)).to_be_visible()
        expect_literal(page, f"Column '{JS_LINK}' is left out: text, not numbers")
        assert {SCRIPT, IMG, "js"} <= set(axis_texts(page))  # legend entries
        assert_nothing_ran(page, events)


def test_positional_page_shows_script_from_link_and_typing_only_as_text(
    page: Page, app_url: str
) -> None:
    with watched(page) as events:
        open_page(
            page,
            app_url,
            "/positional_encoding",
            {"pe_kind": SCRIPT, "pe_sentence": f"{IMG} {SCRIPT}"},
            "Positional encodings",
        )
        expect_literal(page, f"pe_kind={SCRIPT}")
        sentence = page.get_by_test_id("stTextInput").locator("input")
        expect(sentence).to_have_value(f"{IMG} {SCRIPT}")
        # The swap grids hide their tick labels; the tokens are the charts' (hover) labels.
        page.wait_for_function(f"() => ({SWAP_LABELS_JS})().length == 2", timeout=LONG)
        assert page.evaluate(SWAP_LABELS_JS) == [TOKENS_OF_IMG_AND_SCRIPT] * 2
        assert_nothing_ran(page, events)

        sentence.fill(f"{JS_LINK} {REMOTE_IMAGE} <b>bold</b>")
        sentence.press("Enter")
        page.wait_for_function(f"() => ({SWAP_LABELS_JS})().flat().includes('bold')", timeout=LONG)
        wait_ready(page)
        expect(sentence).to_have_value(f"{JS_LINK} {REMOTE_IMAGE} <b>bold</b>")
        assert page.locator(".js-plotly-plot b", has_text="bold").count() == 0
        assert_nothing_ran(page, events)


@pytest.mark.parametrize(
    ("params", "shown"),
    [({"step": IMG}, f"step={IMG}"), ({"step": "5", "wt_combine": SCRIPT}, f"wt_combine={SCRIPT}")],
    ids=["step", "combine"],
)
def test_walkthrough_shows_script_from_the_link_only_as_text(
    page: Page, app_url: str, params: dict[str, str], shown: str
) -> None:
    with watched(page) as events:
        open_page(page, app_url, "/walkthrough", params, "Classroom walkthrough")
        expect_literal(page, shown)
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=LONG)
        assert_nothing_ran(page, events)
