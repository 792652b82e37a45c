"""The model settings read from the link (a follower's sidebar) equal the widgets' own reading.

Each link is opened twice in AppTest: once with the widgets (:class:`Drawn`), once with
:class:`FromLink` (what a student following the teacher gets); the configs must be
equal. A link value that is not plain makes :class:`FromLink` refuse it, and a follower
then gets the widgets, which read the link as always.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis.strategies import text as st_text
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.boundary.registry import TEMPERATURE, WINDOW
from ui.classroom.listed_settings import CHANGE_HINT, summary, written
from ui.shared.safe import escape_markdown, unescape_markdown

Link = dict[str, str | list[str]]


def settings_script(mode: str, page: str = "text") -> None:
    """Read ``page``'s model settings as ``mode`` says; keep the config (or the error)."""
    import streamlit as st

    from ui.classroom import class_session
    from ui.classroom.class_mode import CLASS_MODE
    from ui.classroom.listed_settings import FromLink, NotPlainError
    from ui.shared import page_mode
    from ui.shared.control_source import Drawn
    from ui.shared.controls import ControlOptions, attention_controls
    from ui.time_series import state as series

    prefix, options = ("", ControlOptions()) if page == "text" else (series.PREFIX, series.OPTIONS)

    if mode == "follower":
        st.session_state[class_session.ROLE_KEY] = class_session.Role("ABCDEF")
        st.session_state[class_session.FOLLOWING_KEY] = True
        st.session_state[class_session.BAR_DRAWN_KEY] = True  # as the class bar's run sets
        page_mode.use(CLASS_MODE)  # as app.py's run does for a session in a class
    source = {"drawn": Drawn(), "link": FromLink()}.get(mode)
    try:
        st.session_state["config"] = attention_controls(prefix, options, source)
    except NotPlainError as refused:
        st.session_state["config"] = f"not plain: {refused}"
    except ac.InputError as error:
        st.session_state["config"] = f"refused: {error}"


def opened(link: Link, mode: str, page: str = "text") -> AppTest:
    return run_with_link(settings_script, (mode, page), link)


def run_with_link(script: Callable[..., None], args: tuple, link: Link) -> AppTest:
    """``script(*args)`` run once in AppTest with ``link``'s query parameters; no exception."""
    at = AppTest.from_function(script, args=args, default_timeout=30)
    for name, value in link.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [element.value for element in at.exception]
    return at


def widget_values(at: AppTest) -> dict[str, str]:
    """Each widget's value as it would write it into the link, by key."""
    widgets = (*at.selectbox, *at.number_input, *at.toggle, *at.slider)
    return {str(widget.key): written(widget.value) for widget in widgets}


def _one_per_option() -> list[Link]:
    """A link per option of every table the sidebar offers, with what the option needs."""
    links: list[Link] = []
    for name, option in ac.MASKS.items():
        link: Link = {"mask": name}
        if WINDOW in option.needs:
            link["window"] = "5"
        if not option.needs - {WINDOW}:
            links.append(link)
    for name, option in ac.SCALINGS.items():
        links.append(
            {"scale": name} | ({"temperature": "0.55"} if TEMPERATURE in option.needs else {})
        )
    links += [{"embedding": name} for name in ac.EMBEDDINGS]
    links += [{"pe": name} for name in ac.POSITIONAL_ENCODINGS]
    links += [{"normaliser": name} for name in ac.NORMALISERS]
    links += [{"combine": name} for name in ac.COMBINATIONS]
    return links


PLAIN_LINKS: list[Link] = [
    {},
    {"d_model": "24", "heads": "3", "seed": "7"},
    {"d_model": "16", "heads": "4", "custom_widths": "true", "dk": "5", "dv": "3"},
    {"custom_widths": "false", "seed": "0"},
    {
        "scale": next(n for n, o in ac.SCALINGS.items() if TEMPERATURE in o.needs),
        "temperature": "2",
    },
    {"d_model": "6"},  # heads' default is then 2 of (1, 2, 3, 6)
    {"d_model": "5", "heads": "5"},
    *_one_per_option(),
]


SERIES_LINKS: list[Link] = [
    {},
    {"ts_pe": "sinusoidal", "ts_mask": "none", "ts_d_model": "8", "ts_heads": "4"},
    {"ts_mask": next(n for n, o in ac.MASKS.items() if WINDOW in o.needs), "ts_window": "4"},
    {"ts_seed": "5", "ts_custom_widths": "true", "ts_dk": "2", "ts_dv": "6"},
]


@pytest.mark.parametrize(
    ("page", "link"),
    [("text", link) for link in PLAIN_LINKS] + [("series", link) for link in SERIES_LINKS],
    ids=lambda value: (
        "&".join(f"{k}={v}" for k, v in value.items()) or "defaults"
        if isinstance(value, dict)
        else value
    ),
)
def test_a_plain_link_reads_the_same_from_the_link_as_with_the_widgets(
    page: str, link: Link
) -> None:
    drawn, read = opened(link, "drawn", page), opened(link, "link", page)
    assert link.items() <= widget_values(drawn).items()  # the widgets took every value
    assert read.session_state["config"] == drawn.session_state["config"]
    assert isinstance(read.session_state["config"], ac.AttentionConfig)
    assert not read.sidebar.selectbox and not read.sidebar.number_input  # nothing drawn
    assert CHANGE_HINT in read.sidebar.markdown[0].value


NOT_PLAIN: list[Link] = [
    {"heads": "abc"},
    {"heads": "3"},  # not offered: 3 does not divide d_model = 16
    {"seed": "3.0"},
    {"seed": "1e3"},
    {"seed": "07"},
    {"seed": ["1", "2"]},
    {"d_model": "1"},  # below the widget's minimum
    {"mask": "nonsense"},
    {"custom_widths": "True"},
    {
        "scale": next(n for n, o in ac.SCALINGS.items() if TEMPERATURE in o.needs),
        "temperature": "0.53",
    },
]


@pytest.mark.parametrize("link", NOT_PLAIN, ids=str)
def test_a_value_that_is_not_plain_is_refused_and_a_follower_gets_the_widgets(link: Link) -> None:
    assert str(opened(link, "link").session_state["config"]).startswith("not plain: ")
    follower, drawn = opened(link, "follower"), opened(link, "drawn")
    assert follower.session_state["config"] == drawn.session_state["config"]
    assert follower.sidebar.selectbox  # the widgets, with their own reading of the link


def test_a_follower_with_a_plain_link_gets_the_list_not_the_widgets() -> None:
    link: Link = {"d_model": "24", "heads": "3", "mask": "causal", "seed": "9"}
    follower = opened(link, "follower")
    assert follower.session_state["config"] == opened(link, "drawn").session_state["config"]
    assert not follower.sidebar.selectbox and not follower.sidebar.number_input
    shown = follower.sidebar.markdown[0].value
    for line in ("Heads: **3**", "d\\_model: **24**", "Mask: **causal**", "Seed: **9**"):
        assert line in shown


@pytest.mark.parametrize(
    ("value", "form"),
    [
        (True, "true"),
        (False, "false"),
        (2.0, "2"),
        (0.55, "0.55"),
        (16, "16"),
        ("causal", "causal"),
    ],
)
def test_written_is_the_form_a_widget_puts_in_the_link(value: Any, form: str) -> None:
    assert written(value) == form


def test_the_summary_shows_markup_as_text() -> None:
    shown = summary([("", "Model"), ("Label *x*", "<b>v</b>\n\nw"), ("", "Attention")])
    assert shown.split("\n\n")[:2] == ["## Model", "Label \\*x\\*: **\\<b\\>v\\</b\\> w**"]
    assert shown.endswith(f"## Attention\n\n*{CHANGE_HINT}*")
    assert unescape_markdown(shown.split("\n\n")[1]) == "Label *x*: **<b>v</b> w**"


@given(st_text().filter(lambda text: "\u2060" not in text))  # the joiner is escape's own
def test_escaped_text_reads_back_as_it_was(text: str) -> None:
    assert unescape_markdown(escape_markdown(text)) == text


@pytest.mark.parametrize("text", ["www.example.com", "http://x.example/y", ":material/home:"])
def test_addresses_and_icon_codes_are_broken_up_invisibly(text: str) -> None:
    escaped = escape_markdown(text)
    assert "\u2060" in escaped and unescape_markdown(escaped) == text
