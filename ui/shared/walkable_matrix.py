"""A matrix you can walk: the heatmap drawn as a WAI-ARIA grid, walked in the browser.

A Streamlit custom component (components v2: inline HTML and JS, no iframe). Its code and
style, ``static/walkable_matrix.js`` and ``.css``, are served by the app's own server
(``enableStaticServing``): each matrix's component carries only a few lines that import the
code, so a browser loads both once per page instead of once per matrix on every run. The
code draws every cell on one canvas and keeps a window of 16 × 16 cells around the focused
one in the DOM as the grid's rows and cells, so a 128 × 128 matrix stays light. One tab
stop; arrows, Home/End, Ctrl+Home/End and PageUp/PageDown move in the browser without a
rerun. Enter, Space or a click selects a cell: only then is ``(row, column)`` sent back,
and :func:`walk` returns it.
What the browser is sent is built in :mod:`ui.shared.walkable_data`.

Every heatmap the app draws is walkable (:mod:`ui.shared.walk_chart`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import streamlit as st

from ui.shared.walkable_data import sent

HERE = Path(__file__).parent
#: The walkable matrix's code and style sheet, served at ``app/static/`` (Streamlit serves the
#: ``static/`` folder beside app.py); the code links the sheet.
CODE = HERE.parents[1] / "static" / "walkable_matrix.js"
STYLE = CODE.with_suffix(".css")
#: Part of both files' addresses: a browser never keeps an older copy of a changed file.
CODE_VERSION = hashlib.sha256(CODE.read_bytes() + STYLE.read_bytes()).hexdigest()[:16]
#: What each matrix's component runs: the shared code, imported once per page (relative to
#: the page's address, as Streamlit's own static files are; the component's module itself
#: is a blob: URL).
LOADER = f"""const code = import(
  new URL("app/static/walkable_matrix.js?v={CODE_VERSION}", document.baseURI).href
);
export default async function (component) {{
  return (await code).render(component);
}}
"""
#: The component, registered once per process (a page script reruns; this module doesn't).
WALKABLE_MATRIX = st.components.v2.component(
    "walkable_matrix",
    html='<div class="wm"></div>',
    js=LOADER,
)


def selected_cell(state: object) -> tuple[int, int] | None:
    """The ``{"row": i, "col": j}`` the browser sent, as ``(i, j)``; None before a selection."""
    if not isinstance(state, dict):
        return None
    row, col = state.get("row"), state.get("col")
    if isinstance(row, int) and isinstance(col, int):
        return row, col
    return None


def walk(data: dict, *, key: str, alt: str = "") -> tuple[int, int] | None:
    """Show the matrix ``data`` describes (:func:`ui.shared.walkable_data.panel_data`, shared
    and never changed); the cell last selected, or None.

    ``alt``: the chart's text alternative, which the grid's description says before its
    summary. ``key`` must be unique on the page: the selection is kept in Session State
    under it.
    A selection outside the matrix (the sentence got shorter) counts as none.
    """
    shape = (len(data["rows"]), len(data["cols"]))
    chosen = _inside(selected_cell(dict(st.session_state.get(key) or {}).get("cell")), shape)
    message = sent(data, chosen, alt)  # JSON bytes: see walkable_data.sent
    result = WALKABLE_MATRIX(key=key, data=message, default={"cell": None}, on_cell_change=_rerun)
    return _inside(selected_cell(result.get("cell")), shape)


def _rerun() -> None:
    """A selection reruns the page (a callback makes ``cell`` a value that triggers one)."""


def _inside(cell: tuple[int, int] | None, shape: tuple[int, int]) -> tuple[int, int] | None:
    """``cell`` if it lies in a matrix of ``shape``; else None (the sentence got shorter)."""
    if cell is None or cell[0] >= shape[0] or cell[1] >= shape[1]:
        return None
    return cell
