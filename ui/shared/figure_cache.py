"""Figures built once per server and shared by every session that shows the same view.

A class following its teacher reruns the same view for every student, one after
another on one process: a figure built per session would be most of a follower's run
(benchmarks/class_pages.py measures a class following the teacher over every page).
:func:`cached_figures` caches a builder's figures as Streamlit resources: one object
per key for every session, never pickled (``st.cache_data`` would rebuild each
figure with all of plotly's checks on the way out).

A shared figure is read-only by contract: everything that changes it happens inside
the builder, and drawing it (``st.plotly_chart``) only reads it. A builder returns a
:class:`CachedChart` (:func:`cached_chart`): the figure with its text alternative, written once too.

Keys should be small (settings, sizes, the style): Streamlit hashes every argument of
every call again on each run. An argument whose name starts with ``_`` is left out of
the key, so a builder may take the arrays it draws that way when they follow from the
key's other arguments; inputs too big to hash on each run are named by a
:func:`digest`, computed once per run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.figures.build import encode_arrays
from ui.figures.describe import describe_figure
from ui.figures.style import FigureStyle
from ui.shared.walkable_data import figure_panels

#: A figure is built again if asked for half an hour after it was built (Streamlit's TTL
#: counts from the write); an expired one is dropped at the builder's next write. What
#: bounds memory is each builder's ``max_entries``.
FIGURE_TTL_SECONDS = 30 * 60
#: A style is a frozen dataclass whose repr lists every field: hashed as that text.
STYLE_HASHES: Mapping[type, Callable[[Any], Any]] = {FigureStyle: repr}

Builder = TypeVar("Builder", bound=Callable[..., Any])


def cached_figures(
    max_entries: int, hash_funcs: Mapping[type, Callable[[Any], Any]] | None = None
) -> Callable[[Builder], Builder]:
    """Cache a figure builder's results for every session: at most ``max_entries`` figures
    (the least recently used go first), each rebuilt ``FIGURE_TTL_SECONDS`` after it was made.

    ``hash_funcs`` adds key hashes to :data:`STYLE_HASHES` (say, a run's digest).
    """
    return st.cache_resource(
        max_entries=max_entries,
        ttl=FIGURE_TTL_SECONDS,
        show_spinner=False,
        hash_funcs={**STYLE_HASHES, **(hash_funcs or {})},
    )


@dataclass(frozen=True)
class CachedChart:
    """A shared figure and its text alternative (what ``ui.shared.matrix_view.chart``
    would otherwise write from the figure on every run)."""

    figure: go.Figure
    alt: str
    #: Each matrix it draws as a walkable matrix is sent (:func:`figure_panels`), made once.
    walk: tuple[dict[str, Any], ...] = ()


def cached_chart(figure: go.Figure, alt: str | None = None) -> CachedChart:
    """A finished ``figure`` to share, with ``alt`` or else the description of its numbers
    (:func:`ui.figures.describe.describe_figure`).

    Its arrays are put in the form plotly sends (:func:`ui.figures.build.encode_arrays`),
    once, instead of on every draw; the description is written before that.
    """
    text = alt if alt is not None else describe_figure(figure)
    panels = figure_panels(figure)
    return CachedChart(encode_arrays(figure), text, panels)


def digest(named: object, *arrays: np.ndarray) -> str:
    """``named`` and the bytes of ``arrays`` in 64 hex digits, a cache key cheap to hash.

    ``named`` should be frozen values whose repr lists every field (frozen dataclasses,
    tuples, strings, numbers). ``arrays`` adds content a repr would abbreviate.
    """
    hashed = hashlib.sha256(repr(named).encode())
    for array in arrays:  # each array's type and shape first: equal bytes, other arrays
        hashed.update(f"|{array.dtype.str}{array.shape}|".encode())
        hashed.update(np.ascontiguousarray(array).tobytes())
    return hashed.hexdigest()
