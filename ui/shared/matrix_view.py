"""Draw one stage of attention: formula and words beside its heatmap, numbers on demand.

Any page can call :func:`matrix_stage` with a :class:`ui.shared.stages.Stage` and the
matrix and the stage's heatmap (:func:`stage_heatmap`), built once per server and shared
(:class:`ui.shared.figure_cache.CachedChart`).
Every chart keeps plotly's own "download as PNG" button.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.figures.describe import describe_figure
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, FigureStyle
from ui.figures.tables import matrix_traces
from ui.shared.code_view import show_code
from ui.shared.export import csv_bytes, download_button, matrix_frame, npz_bytes
from ui.shared.figure_cache import CachedChart, digest
from ui.shared.plotly_parts import PLOTLY_CONFIG, read_as_table
from ui.shared.stages import KEY_SIDE, QUERY_SIDE, Stage
from ui.shared.walk_chart import CellLines, walk_chart
from ui.shared.walkable_data import VALUE_NAMES, figure_panels

TEXT_TO_FIGURE = (1, 2)  # column widths: explanation beside a wider figure


def stage_heatmap(
    stage: Stage,
    matrix: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    mask: np.ndarray | None = None,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """The heatmap of one stage's ``matrix (R, C)``; ``mask`` is used only if ``stage.masked``.

    A per-head stack ``(H, R, C)`` gives small multiples instead, one panel per head.
    """
    look: dict[str, Any] = {
        "title": title,
        "kind": stage.kind,
        "value_name": VALUE_NAMES.get(stage.key),
        "mask": mask if stage.masked else None,
        "row_title": _axis_title(stage.rows),
        "col_title": _axis_title(stage.cols),
        "style": style,
    }
    if np.ndim(matrix) == 3:
        titles = [f"head {head + 1}" for head in range(len(matrix))]
        return heatmap_grid(matrix, row_labels, col_labels, titles=titles, **look)
    return heatmap(matrix, row_labels, col_labels, **look)


def _axis_title(side: str) -> str:
    return {QUERY_SIDE: "query", KEY_SIDE: "key"}.get(side, "column")


def chart(
    figure: go.Figure | CachedChart,
    key: str | None = None,
    *,
    place: DeltaGenerator | ModuleType = st,
    alt: str | None = None,
    lead: str = "",
    cells: CellLines | None = None,
    cell_place: DeltaGenerator | ModuleType | None = None,
) -> tuple[int, tuple[int, int]] | None:
    """Show a plotly figure full width (PNG download kept) with a text alternative.

    Screen readers announce the chart by ``alt``; by default it is written from the
    numbers the figure draws (:func:`ui.figures.describe.describe_figure`), after
    ``lead``, a sentence the page knows better; a :class:`CachedChart` brings the one
    written with it. Every chart in the app goes through here;
    a chart that draws matrices also gets "Read as a table" (:func:`read_as_table`), so it
    needs a ``key`` unique on the page. A heatmap's matrices can be walked cell by cell
    (:func:`ui.shared.walk_chart.walk_chart`; ``cells`` explains a selected cell, written
    to ``cell_place``): the panel and cell selected are returned, else None.
    """
    if isinstance(figure, CachedChart):  # its text alternative was written with it
        panels = figure.walk
        figure, alt = figure.figure, alt or " ".join(part for part in (lead, figure.alt) if part)
    else:
        panels = figure_panels(figure)
    text = alt or describe_figure(figure, lead)
    if (panels or matrix_traces(figure)) and key is None:
        raise ValueError("a chart of matrices needs a key for its 'Read as a table'")
    if panels:
        return walk_chart(
            figure, panels, key, alt=text, place=place, cells=cells, cell_place=cell_place
        )
    place.plotly_chart(figure, key=key, config=PLOTLY_CONFIG, width="stretch", alt=text)
    if matrix_traces(figure):
        read_as_table(figure, key, place)
    return None


def explain(stage: Stage, shapes: Sequence[str]) -> None:
    """The stage's formula, its matrix shapes and its two-sentence explanation."""
    if stage.formula:
        st.latex(stage.formula)
    if shapes:
        st.caption("Shape — " + ";  ".join(shapes))
    st.markdown(stage.explanation)


TOKEN_TABLES_HELD = 32  #: token tables kept for every session (a few kB each)


@st.cache_resource(max_entries=TOKEN_TABLES_HELD, show_spinner=False)
def token_arrow(tokens: tuple[str, ...], labels: tuple[str, ...]) -> pa.Table:
    """Tokens and labels indexed by position, as the Arrow table the browser is sent.

    Built once per sentence for every session: Streamlit would convert a DataFrame
    to Arrow on every rerun, and a whole class reruns the same view at once.
    An Arrow table is immutable, so sessions share it safely; its pandas metadata keeps
    the position as the table's index, so it is shown as the DataFrame was.
    """
    frame = pd.DataFrame({"token": list(tokens), "label": list(labels)})
    frame.index.name = "index"
    return pa.Table.from_pandas(frame)


def token_table(tokens: Sequence[str], labels: Sequence[str], caption: str) -> None:
    """Tokens with their position and plot label, as a table (shown as text, never HTML)."""
    st.caption(caption)
    table = token_arrow(tuple(tokens), tuple(labels))
    st.dataframe(table, width="stretch", height=min(400, 38 + 35 * table.num_rows))


NUMBER_TABLES_HELD = 64  #: rounded matrices kept for every session (a few kB each)


@st.cache_resource(max_entries=NUMBER_TABLES_HELD, show_spinner=False)
def rounded_arrow(
    content: str,
    _matrix: np.ndarray,
    _row_labels: tuple[str, ...],
    _col_labels: tuple[str, ...],
    decimals: int,
) -> pa.Table:
    """``_matrix (R, C)`` rounded to ``decimals``, labelled, as the Arrow table the browser
    is sent; ``content`` (:func:`ui.shared.figure_cache.digest`) names the matrix and labels.

    Built once per view for every session, as :func:`token_arrow`: a class reruns the same
    view for every follower, and Streamlit would convert a DataFrame on every rerun.
    Arrow's conversion of the labelled DataFrame is Streamlit's own, so the table is sent
    as the DataFrame was.
    """
    return pa.Table.from_pandas(matrix_frame(_matrix, _row_labels, _col_labels).round(decimals))


def numbers_table(
    matrix: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    decimals: int,
    key: str,
) -> None:
    """The matrix as a rounded table (labels as text) and a full-precision CSV download."""
    rows, cols = tuple(row_labels), tuple(col_labels)
    content = digest((rows, cols), matrix)
    st.dataframe(rounded_arrow(content, matrix, rows, cols, decimals), width="stretch")
    download_button(
        "Download this matrix (CSV)",
        lambda: csv_bytes(matrix_frame(matrix, rows, cols)),
        f"{key}.csv",
        key=f"csv_{key}",
    )


def matrix_stage(
    stage: Stage,
    matrix: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    key: str,
    shapes: Sequence[str] = (),
    figure: go.Figure | CachedChart,
    title: str | None = None,
    show_numbers: bool = False,
    style: FigureStyle = NORMAL,
    code: Sequence[Callable] = (),
    cells: CellLines | None = None,
) -> None:
    """Formula, shape, words and "The code" (left) beside ``figure``, the heatmap of
    ``matrix (R, C)`` (:func:`stage_heatmap`, mostly shared: :class:`CachedChart`).

    With ``show_numbers`` the rounded numbers and a CSV button follow. ``key`` must
    be unique on the page; it also names the CSV file. ``code``: the core
    functions that computed ``matrix``, shown in an expander. ``cells``: how a selected
    cell was computed, written under the words (:func:`chart`).
    """
    title = title or stage.title
    text_column, figure_column = st.columns(TEXT_TO_FIGURE, gap="medium")
    with text_column:
        st.subheader(title)
        explain(stage, shapes)
        show_code(code, key=f"code_{key}")
        cell_box = st.container()
    with figure_column:
        chart(figure, key=f"chart_{key}", cells=cells, cell_place=cell_box)
    if show_numbers:
        numbers_table(matrix, row_labels, col_labels, decimals=style.decimals, key=key)


def npz_download(
    matrices: dict[str, np.ndarray],
    *,
    file_name: str,
    key: str,
    label: str = "Download every matrix (.npz)",
) -> None:
    """One button for all ``matrices`` as a compressed ``.npz``, built only when clicked."""
    download_button(
        label, lambda: npz_bytes(matrices), file_name, key=key, mime="application/octet-stream"
    )
