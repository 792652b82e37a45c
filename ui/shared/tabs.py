"""A page's table of tabs or sections: a title and a drawing function each.

Every page with tabs declares them once as a tuple of :class:`Tab` (in its own
``ui/<page>/`` package) and shows them with :func:`show_tabs`; only the open tab
is drawn. The open tab is in the URL (``view=3 Q K V``), so a link opens the tab
its sender was looking at. A page whose parts are not tabs (drawn one below the
other, or picked one at a time) declares them the same way, as :class:`Section`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import streamlit as st

from ui.shared.url import BIND

State = TypeVar("State")


@dataclass(frozen=True)
class Tab(Generic[State]):
    """One tab: its label (also its value in the URL) and what draws it from the page's state."""

    label: str
    draw: Callable[[State], None]


def show_tabs(tabs: Sequence[Tab[State]], state: State, key: str = "view") -> None:
    """Tabs bound to the URL parameter ``key``; only the open one is built, from ``state``."""
    labels = [tab.label for tab in tabs]
    for shown, tab in zip(st.tabs(labels, key=key, bind=BIND), tabs, strict=True):
        if shown.open:
            with shown:
                tab.draw(state)


@dataclass(frozen=True)
class Section(Generic[State]):
    """One part of a page that is not a tab: its heading ("" for none) and what draws it."""

    title: str
    draw: Callable[[State], None]


def show_sections(sections: Sequence[Section[State]], state: State) -> None:
    """Each section under its own header (if it has a title), one below the other."""
    for section in sections:
        if section.title:
            st.header(section.title)
        section.draw(state)
