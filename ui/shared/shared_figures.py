"""Figures built once per server and shared by every session that shows the same view.

A class following its teacher reruns the same view for every student, one after
another on one process: a figure built per session was most of a follower's run on
the pages that built theirs each time (BENCHMARKS.md, "Every page for a class").
:func:`shared_figures` caches a builder's figures as Streamlit resources: one object
per key for every session, never pickled (``st.cache_data`` would rebuild each
figure with all of plotly's checks on the way out).

A shared figure is read-only by contract: everything that changes it happens inside
the builder, and drawing it (``st.plotly_chart``) only reads it. Keys should be small
(settings, sizes, the style); an argument whose name starts with ``_`` is left out of
the key, so a builder may take the arrays it draws that way when they follow from the
key's other arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import streamlit as st

from ui.figures.style import FigureStyle

FIGURE_TTL_SECONDS = 30 * 60  #: an idle view's figures are freed after half an hour
#: A style is a frozen dataclass whose repr lists every field: hashed as that text.
STYLE_HASHES: Mapping[type, Callable[[Any], Any]] = {FigureStyle: repr}

Builder = TypeVar("Builder", bound=Callable[..., Any])


def shared_figures(
    max_entries: int, hash_funcs: Mapping[type, Callable[[Any], Any]] | None = None
) -> Callable[[Builder], Builder]:
    """Cache a figure builder's results for every session: at most ``max_entries`` figures,
    each freed ``FIGURE_TTL_SECONDS`` after its last use.

    ``hash_funcs`` adds key hashes to :data:`STYLE_HASHES` (say, a run's digest).
    """
    return st.cache_resource(
        max_entries=max_entries,
        ttl=FIGURE_TTL_SECONDS,
        show_spinner=False,
        hash_funcs={**STYLE_HASHES, **(hash_funcs or {})},
    )
