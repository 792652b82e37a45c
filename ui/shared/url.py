"""Links that reproduce a view, and a clear word when a link's value is refused.

Widgets bound with ``bind="query-params"`` read their value from the URL and
keep the URL up to date. Streamlit silently drops a URL value a widget cannot
take (``heads=0``, ``seed=abc``); :func:`warn_rejected` compares the URL as it
arrived with what the widgets made of it and tells the user what was ignored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

import streamlit as st

from ui.shared.safe import show_warning

BIND: Final = "query-params"
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


def _shorten(raw: str) -> str:
    return raw if len(raw) <= MAX_SHOWN_CHARS else raw[:MAX_SHOWN_CHARS] + "…"


def warn_rejected(before: dict[str, str], keys: Iterable[str]) -> list[str]:
    """Warn about URL values for ``keys`` that the widgets did not accept.

    Call after the widgets have run. Only a page's first run in a session is
    checked: that is when a link's values arrive; later, a widget that resets
    because another control changed (heads after d_model) is no bad link.
    Returns the rejected keys.
    """
    keys = list(keys)
    first_run_flag = "_url_checked:" + ",".join(sorted(keys))
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
        details = "; ".join(f"{key}={_shorten(raw)}" for key, raw in refused.items())
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


def reload_without_overflowing_numbers(page: st.Page) -> None:
    """Reopen ``page`` without link values like ``seed=inf`` or ``seed=1e400``, and say so.

    Streamlit fills an integer number input from the link with ``int(float(v))``
    and does not catch the OverflowError this raises for an infinite value, so
    such a link would crash the page before it can check anything. Call in the
    navigation script, before the page runs.
    """
    params = st.query_params.to_dict()
    refused = {
        key: raw
        for key, raw in params.items()
        if key not in FREE_TEXT_KEYS and _beyond_float_range(raw)
    }
    if refused:
        st.session_state[_REFUSED_NUMBERS] = refused
        kept = {key: raw for key, raw in params.items() if key not in refused}
        st.switch_page(page, query_params=kept)
    warn_refused(st.session_state.pop(_REFUSED_NUMBERS, {}))
