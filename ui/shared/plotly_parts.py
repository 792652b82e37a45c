"""What every matrix chart has beside its picture: plotly's settings, "Read as a table",
and the plotly chart itself kept in an expander where a walkable matrix draws the matrix."""

from __future__ import annotations

from types import ModuleType

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.figures.tables import figure_tables

PLOTLY_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
}


def read_as_table(figure: go.Figure, key: str, place: DeltaGenerator | ModuleType = st) -> None:
    """Every matrix ``figure`` draws as a real HTML table (headers = tokens), in an expander.

    A screen reader can walk a table cell by cell; it cannot read a heatmap. Labels are
    shown as text (``st.text``, ``st.table``), never as markup. The tables are built only
    while the expander is open (opening it reruns the page): built for every chart on every
    rerun, they would weigh on every rerun's bytes and server time (benchmarks/capacity.py).
    """
    expander = place.expander(
        "Read as a table", icon=":material/table:", key=f"table_{key}", on_change="rerun"
    )
    if not expander.open:
        return
    with expander:
        tables = figure_tables(figure)
        for table in tables:
            if len(tables) > 1 or table.note:
                st.text(" ".join(part for part in (table.title, table.note) if part))
            st.table(table.frame)


def plotly_expander(
    figure: go.Figure, alt: str, key: str, place: DeltaGenerator | ModuleType = st
) -> None:
    """The plotly heatmap (hover, zoom, PNG download), built only while its expander is open:
    the walkable matrix above it already draws the matrix, so a page sends it once."""
    expander = place.expander(
        "Plotly heatmap (hover, zoom, PNG)",
        icon=":material/grid_on:",
        key=f"plotly_{key}",
        on_change="rerun",
    )
    if expander.open:
        with expander:
            st.plotly_chart(figure, key=key, config=PLOTLY_CONFIG, width="stretch", alt=alt)
