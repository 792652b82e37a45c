"""Every heatmap drawn as a matrix one can walk, and the selected number's computation.

:func:`ui.shared.matrix_view.chart` hands a figure here when it draws matrices that
:func:`ui.figures.heatmap.heatmap` built (:func:`ui.shared.walkable_data.figure_panels`):

- one matrix: the walkable matrix (:mod:`ui.shared.walkable_matrix`) is the picture; the
  plotly heatmap (hover, zoom, PNG) waits in an expander, so the matrix is sent once;
- several (a grid of heads): the plotly grid stays the overview, and "Walk a matrix cell
  by cell" opens any one of them as a walkable matrix.

Under it once a cell is selected, "This cell": the selected cell in words, then how it was
computed when the page knows (``cells``: the panel's index and the cell, to the lines of
:class:`attention_core.teaching.cell_computation.CellComputation`). Before a selection the
matrix's own summary says how to select. "Read as a table" stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from types import ModuleType
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.shared.plotly_parts import PLOTLY_CONFIG, plotly_expander, read_as_table
from ui.shared.safe import escape_markdown
from ui.shared.walkable_data import cell_announcement
from ui.shared.walkable_matrix import walk

#: How a page explains cell ``(i, j)`` of its panel ``k``: the lines of its computation.
CellLines = Callable[[int, tuple[int, int]], Sequence[str]]
Place = DeltaGenerator | ModuleType


def walk_chart(
    figure: go.Figure,
    panels: tuple[dict[str, Any], ...],
    key: str,
    *,
    alt: str,
    place: Place = st,
    cells: CellLines | None = None,
    cell_place: Place | None = None,
) -> tuple[int, tuple[int, int]] | None:
    """Draw ``figure``'s matrices ``panels`` walkable (see the module); the panel and cell
    selected, or None. "This cell" goes to ``cell_place`` (default: under the matrix)."""
    if len(panels) == 1:
        with nullcontext() if isinstance(place, ModuleType) else place:
            cell = walk(panels[0], key=f"walk_{key}", alt=alt)
            # Only a selection is written here: before it, the matrix's own summary says how.
            words = st.container() if cell_place is None and cell is not None else cell_place
            read_as_table(figure, key)
            plotly_expander(figure, alt, key)
        index = 0
    else:
        place.plotly_chart(figure, key=key, config=PLOTLY_CONFIG, width="stretch", alt=alt)
        read_as_table(figure, key, place)
        walked = _walk_one_of(panels, key, place)
        if walked is None:
            return None
        index, cell, inside = walked
        words = inside if cell_place is None else cell_place
    if cell is None or words is None:
        return None
    with nullcontext() if isinstance(words, ModuleType) else words:
        this_cell(panels[index], cell, index, cells)
    return index, cell


def _walk_one_of(
    panels: tuple[dict[str, Any], ...], key: str, place: Place
) -> tuple[int, tuple[int, int] | None, DeltaGenerator] | None:
    """A grid's matrices, walked one at a time from an expander opened on demand: the
    panel shown, its selected cell and the expander; None while it is closed."""
    expander = place.expander(
        "Walk a matrix cell by cell",
        icon=":material/grid_view:",
        key=f"walkpanel_{key}",
        on_change="rerun",
    )
    if not expander.open:
        return None
    with expander:
        index = st.selectbox(
            "Matrix",
            range(len(panels)),
            format_func=lambda k: panels[k]["title"],
            key=f"walkpick_{key}",
        )
        index = index if isinstance(index, int) and 0 <= index < len(panels) else 0
        cell = walk(panels[index], key=f"walk_{key}_{index}")
    return index, cell, expander


def this_cell(
    panel: dict[str, Any], cell: tuple[int, int], index: int, cells: CellLines | None
) -> None:
    """The selected ``cell`` of panel ``index`` in words and, when ``cells`` knows, how it
    was computed, as text (tokens are user text: escaped, never markup)."""
    st.markdown("**This cell**")
    st.markdown(escape_markdown(cell_announcement(panel, cell)))
    for line in cells(index, cell) if cells is not None else ():
        st.markdown(escape_markdown(line))
