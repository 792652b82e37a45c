"""Where a page's settings come from: widgets the student sets, or the link as it stands.

Both sources take the same calls, so one function says which settings there are
(:func:`ui.shared.controls.model_settings`), the page's mode picks the source
(:meth:`ui.shared.page_mode.PageMode.read_settings`), and both read a link alike:

* :class:`Drawn` draws each widget bound to the link (:data:`ui.shared.url.BIND`);
* :class:`ui.classroom.listed_settings.FromLink` reads the link's value where it is *plain*.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Protocol, TypeVar

import streamlit as st

from ui.shared.url import BIND

T = TypeVar("T")


class Controls(Protocol):
    """The calls a page makes for its settings (:class:`Drawn`, or the class's
    :class:`ui.classroom.listed_settings.FromLink`)."""

    def header(self, text: str) -> None: ...

    def caption(self, text: str) -> None: ...

    def expander(
        self, label: str, icon: str | None = None
    ) -> contextlib.AbstractContextManager[object]: ...

    def columns(self, count: int) -> Sequence[contextlib.AbstractContextManager[object]]: ...

    def selectbox(self, label: str, options: Sequence[T], index: int, key: str, help: str) -> T: ...

    def radio(self, label: str, options: Sequence[T], index: int, key: str) -> T: ...

    def select_slider(self, label: str, options: Sequence[T], value: T, key: str) -> T: ...

    def number_input(
        self, label: str, low: int, high: int, value: int, key: str, help: str | None = None
    ) -> int: ...

    def slider(
        self,
        label: str,
        low: float,
        high: float,
        value: float,
        key: str,
        help: str,
        step: float | None = None,
    ) -> float: ...

    def toggle(
        self, label: str, key: str, help: str | None = None, value: bool = False
    ) -> bool: ...

    def text_area(
        self, label: str, value: str, key: str, max_chars: int, help: str | None = None
    ) -> str: ...

    def done(self) -> None: ...


class Drawn:
    """The widgets, each bound to the link: the student sets them."""

    def header(self, text: str) -> None:
        st.header(text)

    def caption(self, text: str) -> None:
        st.caption(text)

    def expander(
        self, label: str, icon: str | None = None
    ) -> contextlib.AbstractContextManager[object]:
        return st.expander(label, icon=icon)

    def columns(self, count: int) -> Sequence[contextlib.AbstractContextManager[object]]:
        return st.columns(count, vertical_alignment="bottom")

    def selectbox(self, label: str, options: Sequence[T], index: int, key: str, help: str) -> T:
        return st.selectbox(label, options, index=index, key=key, bind=BIND, help=help)

    def radio(self, label: str, options: Sequence[T], index: int, key: str) -> T:
        return st.radio(label, options, index=index, horizontal=True, key=key, bind=BIND)

    def select_slider(self, label: str, options: Sequence[T], value: T, key: str) -> T:
        return st.select_slider(label, options, value, key=key, bind=BIND)

    def number_input(
        self, label: str, low: int, high: int, value: int, key: str, help: str | None = None
    ) -> int:
        return int(st.number_input(label, low, high, value, key=key, bind=BIND, help=help))

    def slider(
        self,
        label: str,
        low: float,
        high: float,
        value: float,
        key: str,
        help: str,
        step: float | None = None,
    ) -> float:
        return st.slider(label, low, high, value, step, key=key, bind=BIND, help=help)

    def toggle(self, label: str, key: str, help: str | None = None, value: bool = False) -> bool:
        return st.toggle(label, value, key=key, bind=BIND, help=help)

    def text_area(
        self, label: str, value: str, key: str, max_chars: int, help: str | None = None
    ) -> str:
        text = st.text_area(label, value, key=key, bind=BIND, max_chars=max_chars, help=help)
        return text or ""

    def done(self) -> None:
        """Nothing more: the widgets are the settings."""
