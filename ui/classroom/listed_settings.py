"""A follower's settings: the link as it stands, listed, not drawn.

A student following the teacher sees the teacher's settings but does not set them.
Their sidebar lists the model settings in one block instead of drawing a dozen widgets
(and the text page's sentences and its head and numbers switches are lines of text):
a widget costs Streamlit far more than a line of text, and the server reruns every
follower one after another after a teacher's change (benchmarks/class_session.py).

:class:`FromLink` takes the same calls as the widgets (:class:`ui.shared.control_source.Drawn`)
and reads the link's value where it is *plain*: exactly the text the
widget itself writes into a link (``heads=2``, ``temperature=0.5``, ``custom_widths=true``)
and a value the widget offers. Any other value raises :class:`NotPlainError` before
anything is drawn, and the caller draws the widgets instead, which keep their own
handling (and warning) of a value they refuse. A missing value is the default, as a
widget at its default is not in the link.

tests/ui/test_control_source.py opens links both ways and compares the settings.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import streamlit as st

from ui.shared.safe import escape_markdown
from ui.shared.url import keep_in_link

T = TypeVar("T")

#: The summary's last line: how a follower gets the widgets back.
CHANGE_HINT = "These are the teacher's settings. Stop following (at the top) to change them."


class NotPlainError(ValueError):
    """A link value that is not what the widget writes, or not one it offers."""


def written(value: object) -> str:
    """A value as a bound widget writes it into the link (Streamlit's own forms).

    ``True`` -> ``"true"``; ``2.0`` -> ``"2"``; ``0.5`` -> ``"0.5"``; an option -> ``str``.
    """
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def _on_step(value: float, low: float, step: float) -> bool:
    steps = (value - low) / step
    return math.isclose(steps, round(steps), abs_tol=1e-9)


@dataclass
class FromLink:
    """The link's plain values; nothing is drawn until :meth:`done` lists them."""

    hint: str = CHANGE_HINT  #: the block's last line ("": none)
    shown: list[tuple[str, str]] = field(default_factory=list)  #: (label or header "", value)

    def _raw(self, key: str) -> str | None:
        """The link's one value for ``key``, kept in the link though no widget is drawn for
        it (:func:`ui.shared.url.keep_in_link`); a repeated key is not plain."""
        keep_in_link(key)
        values = st.query_params.get_all(key)
        if len(values) > 1:
            raise NotPlainError(key)
        return values[0] if values else None

    def _show(self, label: str, value: object) -> None:
        shown = ("on" if value else "off") if isinstance(value, bool) else written(value)
        self.shown.append((label, shown))

    def header(self, text: str) -> None:
        self.shown.append(("", text))

    def caption(self, text: str) -> None:
        """Not shown: captions explain a widget that is not drawn."""

    def expander(
        self, label: str, icon: str | None = None
    ) -> contextlib.AbstractContextManager[object]:
        return contextlib.nullcontext()

    def columns(self, count: int) -> Sequence[contextlib.AbstractContextManager[object]]:
        return [contextlib.nullcontext()] * count

    def selectbox(self, label: str, options: Sequence[T], index: int, key: str, help: str) -> T:
        return self._option(label, options, options[index], key)

    def radio(self, label: str, options: Sequence[T], index: int, key: str) -> T:
        return self._option(label, options, options[index], key)

    def select_slider(self, label: str, options: Sequence[T], value: T, key: str) -> T:
        return self._option(label, options, value, key)

    def _option(self, label: str, options: Sequence[T], default: T, key: str) -> T:
        """The option the link names as its widget writes it, else ``default``."""
        raw = self._raw(key)
        if raw is None:
            value = default
        else:
            matches = [option for option in options if written(option) == raw]
            if not matches:
                raise NotPlainError(key)
            value = matches[0]
        self._show(label, value)
        return value

    def number_input(
        self, label: str, low: int, high: int, value: int, key: str, help: str | None = None
    ) -> int:
        raw = self._raw(key)
        if raw is not None:
            try:
                value = int(raw)
            except ValueError:
                raise NotPlainError(key) from None
            if written(value) != raw or not low <= value <= high:
                raise NotPlainError(key)
        self._show(label, value)
        return value

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
        raw = self._raw(key)
        if raw is not None:
            try:
                read = float(raw) if isinstance(value, float) else int(raw)
            except ValueError:
                raise NotPlainError(key) from None
            if written(read) != raw or not low <= read <= high:
                raise NotPlainError(key)
            if step is not None and not _on_step(read, low, step):
                raise NotPlainError(key)
            value = type(value)(read)
        self._show(label, value)
        return value

    def toggle(self, label: str, key: str, help: str | None = None, value: bool = False) -> bool:
        raw = self._raw(key)
        if raw not in (None, "true", "false"):
            raise NotPlainError(key)
        value = value if raw is None else raw == "true"
        self._show(label, value)
        return value

    def text_area(
        self, label: str, value: str, key: str, max_chars: int, help: str | None = None
    ) -> str:
        raw = self._raw(key)
        text = value if raw is None else raw
        if len(text) > max_chars:
            raise NotPlainError(key)
        self._show(label, text)
        return text

    def done(self) -> None:
        """One block listing the settings, under their headers, then ``hint``."""
        st.markdown(summary(self.shown, self.hint))


def summary(shown: Sequence[tuple[str, str]], hint: str = CHANGE_HINT) -> str:
    """Markdown: each header a heading (as the widgets' ``st.header``), each ``label: value``
    on its own line (a value's line breaks shown as spaces), then ``hint`` in italics;
    every text shown as text."""
    blocks: list[list[str]] = [[]]
    for label, value in shown:
        value = escape_markdown(" ".join(value.split()))
        if label:
            blocks[-1].append(f"{escape_markdown(label)}: **{value}**")
        else:
            blocks += [[f"## {value}"], []]
    if hint:
        blocks[-1].append(f"*{hint}*")
    return "\n\n".join("  \n".join(lines) for lines in blocks if lines)
