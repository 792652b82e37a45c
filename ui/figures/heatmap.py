"""The one heatmap builder every matrix view uses.

Data is sent as float32 (plotly encodes NumPy arrays as base64 typed arrays:
about 5.3 bytes per cell on the wire instead of ~19 for JSON numbers). Masked
cells are NaN in the data and drawn grey, labelled −∞ on scores and 0 on
weights (softmax gives them exactly zero); hover shows the exact
number with its row and column names.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import build
from ui.figures.contrast import DARK_TEXT, cell_text_colours
from ui.figures.matrix_look import (
    MASKED_LABEL,
    MASKED_TRACE,
    MASKED_WEIGHT_LABEL,
    WALK_META,
    colour_settings,
    display_matrix,
    walk_look,
)
from ui.figures.style import NORMAL, FigureStyle

# Numbers are written inside the cells when the matrix is this small or smaller.
MAX_CELLS_WITH_TEXT = 144


def _hover(row_title: str, col_title: str, style: FigureStyle) -> str:
    return (
        f"{row_title}: %{{y}}<br>{col_title}: %{{x}}<br>"
        f"value: %{{z:{style.number_format}}}<extra></extra>"
    )


def _masked_overlay(
    mask: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    row_title: str,
    col_title: str,
    style: FigureStyle,
    label: str,
) -> dict:
    """Grey cells labelled ``label`` where the mask forbids attention (small matrices only).

    Scores there are −∞; weights there are exactly 0.
    """
    overlay = np.where(mask, np.nan, 0.0).astype(np.float32)
    return {
        "type": "heatmap",
        "z": overlay,
        "x": list(cols),
        "y": list(rows),
        "colorscale": [[0, style.masked_colour], [1, style.masked_colour]],
        "showscale": False,
        # A constant texttemplate would also print −∞ over the allowed (NaN) cells.
        "text": np.where(mask, "", label).tolist(),
        "texttemplate": "%{text}",
        # Both masked greys are light: black text on them is 7.8:1 or more.
        "textfont": {"size": style.font_size, "color": DARK_TEXT},
        "hovertemplate": f"{row_title}: %{{y}}<br>{col_title}: %{{x}}<br>masked ({label})"
        "<extra></extra>",
        "name": MASKED_TRACE,
    }


def _cell_numbers(
    z: np.ndarray, rows: list[str], cols: list[str], colours: dict, style: FigureStyle
) -> dict:
    """Each finite cell's number written on it, black or white per cell (>= 4.5:1 contrast).

    A heatmap's text has one colour for all cells, so the numbers are a text-only
    scatter over the cells, coloured by :func:`contrast.cell_text_colours`.
    """
    text_colours = cell_text_colours(z, colours["colorscale"], colours["zmin"], colours["zmax"])
    row_index, col_index = np.nonzero(np.isfinite(z))
    decimals = min(style.decimals, 2)
    return {
        "type": "scatter",
        "x": [cols[j] for j in col_index],
        "y": [rows[i] for i in row_index],
        "mode": "text",
        "text": [f"{z[i, j]:.{decimals}f}" for i, j in zip(row_index, col_index, strict=True)],
        "textfont": {
            "size": style.font_size,
            "color": text_colours[row_index, col_index].tolist(),
        },
        "hoverinfo": "skip",
        "showlegend": False,
        "name": "cell numbers",
    }


def _panel(z: np.ndarray, rows: list[str], cols: list[str], name: str, hover: str) -> dict:
    """One matrix ``z (R, C)`` as a heatmap trace: rows down, columns across, no hover on NaN.

    The colours are the caller's: its own scale and bar (:func:`heatmap`) or the
    grid's shared colour axis (:func:`heatmap_grid`).
    """
    return {
        "type": "heatmap",
        "z": z,
        "x": cols,
        "y": rows,
        "hovertemplate": hover,
        "hoverongaps": False,
        "name": name,
    }


def _frame(title: str, style: FigureStyle, mask: np.ndarray | None) -> dict:
    """Title and font of a matrix figure; a grey background where the mask forbids cells."""
    frame = {
        "title": {"text": title, "font": {"size": style.title_size}},
        "font": {"size": style.font_size},
    }
    if mask is not None and not np.all(mask):
        frame["plot_bgcolor"] = style.masked_colour
    return frame


def heatmap(
    matrix: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    kind: str = "weights",
    mask: np.ndarray | None = None,
    row_title: str = "query",
    col_title: str = "key",
    style: FigureStyle = NORMAL,
    height: int | None = None,
    value_name: str | None = None,
) -> go.Figure:
    """A labelled heatmap of ``matrix (R, C)``.

    ``kind`` picks the colour scale ('weights' 0..1 sequential; 'scores' and
    'values' diverging around 0). ``mask (R, C)`` bool, True = allowed: the
    other cells are NaN in the data and shown grey, labelled −∞ (scores) or 0
    (weights, which are exactly zero there). Labels must be
    unique (repeated labels would merge on a category axis).
    """
    z = display_matrix(matrix, mask)
    rows, cols = build.as_text(row_labels), build.as_text(col_labels)
    if len(rows) != z.shape[0] or len(cols) != z.shape[1]:
        raise ValueError(f"labels {len(rows)}x{len(cols)} do not match matrix {z.shape}")
    small = z.size <= MAX_CELLS_WITH_TEXT
    colours = colour_settings(kind, style, z)
    trace = {
        **_panel(z, rows, cols, title, _hover(row_title, col_title, style)),
        "colorbar": {"thickness": 12, "tickfont": {"size": style.tick_size}},
        **colours,
        "colorscale": build.colour_scale(colours["colorscale"]),
    }
    traces: list[dict] = [trace]
    if small:
        traces.append(_cell_numbers(z, rows, cols, colours, style))
    if mask is not None and small and not np.all(mask):
        label = MASKED_WEIGHT_LABEL if kind == "weights" else MASKED_LABEL
        traces.append(_masked_overlay(mask, rows, cols, row_title, col_title, style, label))
    layout = _layout(title, row_title, col_title, style, z.shape, height, mask)
    look = walk_look(
        kind, style, z, value_name=value_name, row_title=row_title, col_title=col_title
    )
    layout["meta"] = {WALK_META: look}
    return build.figure(traces, layout, checked=False)


def _layout(
    title: str,
    row_title: str,
    col_title: str,
    style: FigureStyle,
    shape: tuple[int, int],
    height: int | None,
    mask: np.ndarray | None,
) -> dict:
    auto_height = 120 + style.cell_px * min(shape[0], 24)
    return {
        **_frame(title, style, mask),
        "height": height or auto_height,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        # Column labels go below the matrix: on top they run into the title in a
        # narrow column or with presentation fonts.
        "xaxis": {
            "title": {"text": col_title},
            "side": "bottom",
            "tickfont": {"size": style.tick_size},
            "type": "category",
            "automargin": True,
            "showgrid": False,
        },
        "yaxis": {
            "title": {"text": row_title},
            "autorange": "reversed",
            "tickfont": {"size": style.tick_size},
            "type": "category",
            "automargin": True,
            "showgrid": False,
        },
    }


def heatmap_grid(
    matrices: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    titles: Sequence[str],
    title: str,
    kind: str = "weights",
    mask: np.ndarray | None = None,
    row_title: str = "query",
    col_title: str = "key",
    style: FigureStyle = NORMAL,
    columns: int = 4,
    places: Sequence[int] | None = None,
    value_name: str | None = None,
) -> go.Figure:
    """Small multiples of ``matrices (H, R, C)`` (e.g. every head's weights), ``columns`` wide,
    on one colour axis (colours compare across panels); masked cells as in :func:`heatmap`.

    ``places``: each panel's cell, row by row from 0 (default: one after the other); a cell
    no panel takes stays empty. Any number of rows and columns fits (:func:`build.subplot_layout`).
    """
    stack = np.asarray(matrices)
    cells = list(range(stack.shape[0]) if places is None else places)
    columns = max(1, min(columns, max(cells) + 1))
    n_rows = -(-(max(cells) + 1) // columns)
    by_cell = dict(zip(cells, titles, strict=True))
    layout = build.subplot_layout(
        n_rows,
        columns,
        [by_cell.get(cell, "") for cell in range(max(cells) + 1)],
        horizontal_spacing=0.04,
        vertical_spacing=0.08 if n_rows > 1 else 0.0,
    )
    hover = _hover(row_title, col_title, style)
    whole = display_matrix(stack, None)
    colours = colour_settings(kind, style, whole)
    rows, cols = build.as_text(row_labels), build.as_text(col_labels)
    traces = [
        {
            **_panel(display_matrix(stack[index], mask), rows, cols, titles[index], hover),
            "coloraxis": "coloraxis",
            **build.cell_axes(cell // columns + 1, cell % columns + 1, columns),
        }
        for index, cell in enumerate(cells)
    ]
    colour_axis = {
        "colorscale": build.colour_scale(colours["colorscale"]),
        "cmin": colours["zmin"],
        "cmax": colours["zmax"],
    }
    layout.update(
        **_frame(title, style, mask),
        coloraxis=colour_axis,
        height=140 + n_rows * max(220, 12 * min(stack.shape[1], 40)),
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        meta={
            WALK_META: walk_look(
                kind, style, whole, value_name=value_name, row_title=row_title, col_title=col_title
            )
        },
    )
    build.update_axes(
        layout,
        "x",
        {
            "type": "category",
            "showticklabels": stack.shape[2] <= 16,
            "showgrid": False,
            "tickfont": {"size": style.tick_size},
        },
    )
    build.update_axes(
        layout,
        "y",
        {
            "type": "category",
            "autorange": "reversed",
            "showgrid": False,
            "showticklabels": stack.shape[1] <= 16,
            "tickfont": {"size": style.tick_size},
        },
    )
    # Panels share their rows: label them once, on the left, clear of their neighbours.
    build.update_axes(
        layout, "y", {"showticklabels": False}, columns=range(2, columns + 1), grid_cols=columns
    )
    return build.figure(traces, layout, checked=False)
