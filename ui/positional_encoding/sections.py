"""The positional-encoding page's sections: the matrix, its waves, P Pᵀ, rotary; then the swap."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.teaching.cell_computation import similarity_cell
from attention_core.teaching.encoding_cells import encoding_cell
from ui.positional_encoding import cache, figures
from ui.positional_encoding.kinds import ENCODINGS
from ui.positional_encoding.questions import check_yourself_section
from ui.positional_encoding.state import (
    PREFIX,
    PositionalState,
)
from ui.positional_encoding.swap import swap_view
from ui.shared.export import csv_bytes, download_button, matrix_frame
from ui.shared.matrix_view import chart
from ui.shared.numbers import short_difference
from ui.shared.safe import show_error
from ui.shared.tabs import Section
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines


@dataclass(frozen=True)
class Encoding:
    """The page's settings and what they show (the shared matrices and charts)."""

    state: PositionalState
    view: cache.EncodingView

    @property
    def matrix(self) -> np.ndarray:
        """The encoding matrix ``P (T, d)`` (read-only)."""
        return self.view.matrix


def encoding_lines(state: PositionalState) -> CellLines:
    """Entry ``(p, j)`` of the encoding matrix ``state`` draws, recomputed from its formula
    (:func:`attention_core.teaching.encoding_cells.encoding_cell`)."""
    return lambda _panel, cell: encoding_cell(state.kind, *cell, state.d_model, state.base).lines


def matrix_view(encoding: Encoding) -> None:
    matrix, kind, base = encoding.matrix, encoding.state.kind, encoding.state.base
    length, width = matrix.shape
    encoding_kind = ENCODINGS[kind]
    left, right = st.columns([3, 2])
    drawn = encoding.view.matrix_chart
    cells = encoding_lines(encoding.state)
    chart(drawn, key=f"{PREFIX}matrix_figure", place=left, cells=cells)
    with right:
        st.markdown(encoding_kind.words)
        for line in encoding_kind.formulas:
            st.latex(line)
        st.caption(f"Shape: P ({length}, {width}), one row per position · b = {base:g}")
        if kind == "none":
            st.info("All zeros: every position looks exactly the same.")
        download_button(
            "Download the matrix (CSV)",
            lambda: csv_bytes(
                matrix_frame(
                    matrix, figures.position_labels(length), figures.dimension_labels(width)
                )
            ),
            f"positional_{kind}_{length}x{width}.csv",
            f"{PREFIX}download_matrix",
        )


def curves_view(encoding: Encoding) -> None:
    matrix, kind = encoding.matrix, encoding.state.kind
    width = matrix.shape[1]
    left, right = st.columns([3, 2])
    with right:
        dims = st.multiselect(
            "Dimensions to plot",
            list(range(width)),
            default=figures.default_dimensions(width),
            max_selections=8,
            key=f"{PREFIX}dims",
            bind=BIND,
        )
        st.markdown(ENCODINGS[kind].curves_words)
        if ENCODINGS[kind].waves:
            st.latex(r"\omega_i = b^{-2i/d}, \qquad \text{period} = 2\pi / \omega_i")
        else:
            st.latex(r"P_{:,\,j} \text{ for the chosen dimensions } j")
        st.caption(f"Shape: each curve is one column P[:, j], {matrix.shape[0]} values")
    if dims:
        drawn = cache.curves_chart(encoding.state, tuple(dims))
        chart(drawn, key=f"{PREFIX}curves_figure", place=left)
    else:
        left.info("Pick at least one dimension to plot.")


def similarity_lines(matrix: np.ndarray) -> CellLines:
    """Entry ``(p, r)`` of ``P Pᵀ`` as the dot product of rows p and r of ``matrix (T, d)``."""
    return lambda _panel, cell: similarity_cell(matrix, *cell).lines


def similarity_view(encoding: Encoding) -> None:
    state = encoding.state
    kind, length = state.kind, encoding.matrix.shape[0]
    left, right = st.columns([3, 2])
    drawn = encoding.view.similarity_chart
    cells = similarity_lines(encoding.matrix)
    chart(drawn, key=f"{PREFIX}similarity_figure", place=left, cells=cells)
    with right:
        st.markdown(ENCODINGS[kind].similarity_words)
        st.latex(r"G = P P^\top, \qquad G_{pr} = \sum_j P_{pj} P_{rj}")
        if ENCODINGS[kind].waves:
            st.latex(r"G_{pr} = \sum_i \cos\big((p - r)\,\omega_i\big) \quad (\text{even } d)")
        st.caption(f"Shape: G ({length}, {length})")
        labels = figures.position_labels(length)
        download_button(
            "Download P Pᵀ (CSV)",
            lambda: csv_bytes(matrix_frame(encoding.view.similarity, labels, labels)),
            f"position_similarity_{kind}_{length}.csv",
            f"{PREFIX}download_similarity",
        )


def rotary_view(encoding: Encoding) -> None:
    """Rotary encodings only: the score depends on the offset between query and key alone."""
    offsets, drawn = encoding.view.offsets, encoding.view.rotary_chart
    if offsets is None or drawn is None:
        return  # not rotary
    d_model = encoding.state.d_model
    st.subheader("Rotary: only the distance between query and key matters")
    left, right = st.columns([3, 2])
    chart(drawn, key=f"{PREFIX}rotary_figure", place=left)
    with right:
        st.markdown(
            "Take one query and one key vector and place them at positions p and p + o. "
            "Turning both by their positions leaves only the difference of the angles, so "
            "the score is the same wherever the pair sits: the curves lie on top of each other."
        )
        st.latex(r"\langle R_p\, q,\; R_{p+o}\, k \rangle = \langle q,\; R_o\, k \rangle")
        st.caption(
            f"Shapes: q, k ({d_model},) drawn at random (seed 0) · scores "
            f"({len(offsets.starts)}, {len(offsets.offsets)})"
        )
        st.metric("Largest gap between the curves", short_difference(offsets.spread))
        st.caption(f"Exactly {offsets.spread:.1e}: rounding in the last digits of a float.")
        download_button(
            "Download the scores (CSV)",
            lambda: csv_bytes(
                matrix_frame(
                    offsets.scores.T,
                    [f"o={o}" for o in offsets.offsets],
                    [f"p={p}" for p in offsets.starts],
                )
            ),
            "rotary_offset_scores.csv",
            f"{PREFIX}download_rotary",
        )


#: The views of the chosen encoding, in the order the page shows them.
ENCODING_VIEWS = (matrix_view, curves_view, similarity_view, rotary_view)


def encoding_views(state: PositionalState) -> None:
    """The encoding matrix of ``state`` and every view of it; a clear error if it cannot be made."""
    try:
        encoding = Encoding(state, cache.encoding_view(state))
        for view in ENCODING_VIEWS:
            view(encoding)
    except ac.InputError as error:
        show_error(str(error))


#: The page's sections, in order: the chosen encoding, why any encoding is needed, questions.
SECTIONS: tuple[Section[PositionalState], ...] = (
    Section("", encoding_views),
    Section("Why we need it: swap two words", swap_view),
    Section("", check_yourself_section),
)
