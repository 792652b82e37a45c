"""A widget looks up its own key in Session State without copying all of Session State.

Streamlit 1.67's select box, radio, slider, number and text inputs and date and time
inputs each ask whether their key holds ``None`` by building ``filtered_state``: a fresh
dict of every user-visible entry of the session, each read through its presenter. That is
O(K) per widget for a session of K entries, so O(W·K) per run, and K grows with every page
a student visits; on the text page it was a sixth of a run's server time
(benchmarks/class_pages.py).

Those call sites only ask ``key in state`` and ``state[key]`` for the widget's own user
key. For such a key (neither an element id nor internal), ``SessionState`` answers both
directly with the same result: ``filtered_state`` holds a user key when its widget id (or
the key itself, unmapped) is among the session's keys, with the value
``SessionState[key]`` reads, presenter and all (tests/ui/test_widget_lookup.py compares
the two on random sessions). :func:`install` hands those modules a session state whose
``filtered_state`` is a :class:`KeyLookup` doing just that; any other use of it builds
the full dict, as before. Nothing else is changed.

These are Streamlit's internals (it is pinned, requirements.txt).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from streamlit.runtime.state import get_session_state
from streamlit.runtime.state.common import is_element_id
from streamlit.runtime.state.session_state import _is_internal_key

#: The widget modules that read ``get_session_state().filtered_state`` for their own key.
WIDGET_MODULES = (
    "streamlit.elements.widgets.number_input",
    "streamlit.elements.widgets.radio",
    "streamlit.elements.widgets.selectbox",
    "streamlit.elements.widgets.slider",
    "streamlit.elements.widgets.text_widgets",
    "streamlit.elements.widgets.time_widgets",
)


class KeyLookup(Mapping[str, Any]):
    """``filtered_state`` of a ``SafeSessionState``, answering ``in`` and ``[]`` for a user
    key directly; everything else reads the full dict Streamlit builds."""

    def __init__(self, safe: Any) -> None:
        self._safe = safe

    def _direct(self, key: object) -> bool:
        return isinstance(key, str) and not is_element_id(key) and not _is_internal_key(key)

    def _full(self) -> dict[str, Any]:
        return self._safe.filtered_state

    def __contains__(self, key: object) -> bool:
        if not self._direct(key):
            return key in self._full()
        with self._safe._lock:
            return key in self._safe._state

    def __getitem__(self, key: str) -> Any:
        if not self._direct(key):
            return self._full()[key]
        with self._safe._lock:
            return self._safe._state[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._full())

    def __len__(self) -> int:
        return len(self._full())


class WidgetSessionState:
    """A ``SafeSessionState`` whose ``filtered_state`` is a :class:`KeyLookup`."""

    def __init__(self, safe: Any) -> None:
        self._safe = safe

    @property
    def filtered_state(self) -> KeyLookup:
        return KeyLookup(self._safe)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._safe, name)


def _widget_session_state() -> WidgetSessionState:
    return WidgetSessionState(get_session_state())


def install() -> None:
    """Give the widget modules :func:`_widget_session_state` (once per process)."""
    for name in WIDGET_MODULES:
        importlib.import_module(name).get_session_state = _widget_session_state  # type: ignore[attr-defined]
