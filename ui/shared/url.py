"""Links that reproduce a view, and a clear word when a link's value is refused.

Widgets bound with ``bind="query-params"`` read their value from the URL and
keep the URL up to date. Streamlit silently drops a URL value a widget cannot
take (``heads=0``, ``seed=abc``); :func:`warn_rejected` compares the URL as it
arrived with what the widgets made of it and tells the user what was ignored.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from typing import Final, NoReturn

import streamlit as st
from streamlit.runtime.runtime_util import MESSAGE_FLUSH_INTERVAL_SECS
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.query_params import QueryParams

from ui.shared.safe import show_warning

BIND: Final = "query-params"
CHECKED_FLAG: Final = "_url_checked:"  #: :func:`warn_rejected`'s once-per-link flags
MAX_SHOWN_CHARS = 40


def snapshot() -> dict[str, str]:
    """The query parameters as they are before any widget of this run reads them."""
    return st.query_params.to_dict()


def _same(raw: str, value: object) -> bool:
    if isinstance(value, bool):
        return raw.lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return float(raw) == float(value)
        except ValueError:
            return False
    return raw == str(value)


def shorten(raw: str) -> str:
    return raw if len(raw) <= MAX_SHOWN_CHARS else raw[:MAX_SHOWN_CHARS] + "…"


def warn_rejected(before: dict[str, str], keys: Iterable[str]) -> list[str]:
    """Warn about URL values for ``keys`` that the widgets did not accept.

    Call after the widgets have run. Only a page's first run in a session is
    checked: that is when a link's values arrive; later, a widget that resets
    because another control changed (heads after d_model) is no bad link.
    Returns the rejected keys.
    """
    keys = list(keys)
    first_run_flag = CHECKED_FLAG + ",".join(sorted(keys))
    if st.session_state.get(first_run_flag):
        return []
    st.session_state[first_run_flag] = True
    rejected = []
    for key in keys:
        if key not in before:
            continue
        raw = before[key]
        if st.query_params.get(key) == raw or _same(raw, st.session_state.get(key)):
            continue
        rejected.append(key)
    warn_refused({key: before[key] for key in rejected})
    return rejected


def warn_refused(refused: dict[str, str]) -> None:
    """One warning naming each refused ``key=value`` of the link (values shortened)."""
    if refused:
        details = "; ".join(f"{key}={shorten(raw)}" for key, raw in refused.items())
        show_warning(
            f"This link has values that are not valid here, so the defaults are used instead: "
            f"{details}."
        )


# Free-text parameters: any value, "inf" included, is a valid sentence.
FREE_TEXT_KEYS = frozenset({"text", "text2", "pe_sentence"})
_REFUSED_NUMBERS = "_refused_link_numbers"


def _beyond_float_range(raw: str) -> bool:
    try:
        return math.isinf(float(raw))
    except ValueError:
        return False


def overflowing(params: Mapping[str, str]) -> dict[str, str]:
    """The values of ``params`` that no page takes: numbers beyond float range (``seed=inf``),
    in any parameter but free text. Every link is checked so before its page runs, and every
    lesson step's view (``ui.lessons.views``)."""
    return {
        key: raw
        for key, raw in params.items()
        if key not in FREE_TEXT_KEYS and _beyond_float_range(raw)
    }


def reload_without_overflowing_numbers(page: st.Page) -> None:
    """Reopen ``page`` without link values like ``seed=inf`` or ``seed=1e400``, and say so.

    Streamlit fills an integer number input from the link with ``int(float(v))``
    and does not catch the OverflowError this raises for an infinite value, so
    such a link would crash the page before it can check anything. Call in the
    navigation script, before the page runs.
    """
    params = st.query_params.to_dict()
    refused = overflowing(params)
    if refused:
        st.session_state[_REFUSED_NUMBERS] = refused
        kept = {key: raw for key, raw in params.items() if key not in refused}
        st.switch_page(page, query_params=kept)
    warn_refused(st.session_state.pop(_REFUSED_NUMBERS, {}))


def show_link_in_browser() -> None:
    """Send this run's link to the browser's address bar (a run the server opened on a link).

    Streamlit's internals (it is pinned), as :func:`open_link`.
    """
    ctx = get_script_run_ctx()
    if ctx is not None:
        with ctx.session_state.query_params() as params:
            params._send_query_param_msg()


def drop_link_bindings(params: QueryParams) -> None:
    """Unbind every widget from the link, so a link opened next sets their values.

    Streamlit's internals (it is pinned): the session's query parameters, touched
    only while no run of that session reads them.
    """
    for widget_id in list(params._bindings_by_widget):
        params.unbind_widget(widget_id)


def keep_in_link(key: str) -> None:
    """Unbind ``key``'s widget from the link, keeping the link's value for ``key``.

    Streamlit takes the parameter of a bound widget that a run does not draw out of the
    link at the run's end; a value this run reads from the link instead
    (:class:`ui.classroom.listed_settings.FromLink`) must stay. Streamlit's internals (it is
    pinned), as :func:`open_link`; the widget binds again when it is next drawn.
    """
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as params:
        binding = params.get_binding_for_param(key)
        if binding is not None:
            params.unbind_widget(binding.widget_id)


def open_link(page: st.Page, query: Mapping[str, str | list[str]]) -> NoReturn:
    """Open ``page`` at ``query`` as a link opened anew, in one run (from a fragment too).

    ``st.switch_page`` refuses a new value for a parameter bound to a widget, and the
    widget keeps its own value over the link's. Streamlit lets a link win only when the
    browser goes back or forward: every bound widget then takes the link's value, or
    its default when the link has none. So this drops the bindings (the new page's
    widgets bind again as they run), sets the link and asks for that kind of run, as
    ``st.switch_page`` asks for its own. These are Streamlit's internals (it is
    pinned); tests/views/test_classroom.py, tests/deploy/test_class_watch.py and the
    class browser test go through here.
    The new link's values are checked again (:func:`warn_rejected`).
    """
    ctx = get_script_run_ctx()
    if ctx is None or ctx.script_requests is None:
        raise RuntimeError("open_link needs a running Streamlit script")
    for flag in [key for key in st.session_state if str(key).startswith(CHECKED_FLAG)]:
        del st.session_state[flag]
    with ctx.session_state.query_params() as params:
        drop_link_bindings(params)
        params.from_dict(query)  # sends the new link to the browser
    time.sleep(2 * MESSAGE_FLUSH_INTERVAL_SECS)  # as st.switch_page: the link arrives first
    ctx.script_requests.request_rerun(
        RerunData(
            query_string=ctx.query_string,
            page_script_hash=page._script_hash,
            cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info,
            is_history_navigation=True,
        )
    )
    st.empty()  # a yield point: the runner starts the new run here
    raise RuntimeError("Streamlit did not open the link")  # unreachable in a running app
