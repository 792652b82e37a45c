"""How a matrix of each kind is coloured and named: what a heatmap and a walkable matrix share.

:func:`ui.figures.heatmap.heatmap` draws with these settings and keeps :func:`walk_look` in
its figure's ``layout.meta[WALK_META]``; :mod:`ui.shared.walkable_data` reads it back to
draw the same matrix as a walkable grid.
"""

from __future__ import annotations

import numpy as np

from ui.figures.style import FigureStyle

MASKED_LABEL = "−∞"
# What a masked cell holds after softmax: exactly zero weight.
MASKED_WEIGHT_LABEL = "0"
MASKED_TRACE = "masked"  #: the name of the grey overlay drawn over masked cells
WALK_META = "walk"  #: where ``layout.meta`` keeps how a walkable matrix draws the figure
#: What one number of each kind of matrix is called when a cell is read ("weight 0.42").
KIND_VALUE_NAMES = {"weights": "weight", "scores": "score", "values": "value"}


def colour_settings(kind: str, style: FigureStyle, z: np.ndarray) -> dict:
    """Colour scale for a kind of matrix: sequential 0..1 for weights, diverging at 0 otherwise."""
    if kind == "weights":
        return {"colorscale": style.weights_scale, "zmin": 0.0, "zmax": 1.0}
    finite = z[np.isfinite(z)]
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    bound = bound or 1.0
    return {"colorscale": style.scores_scale, "zmin": -bound, "zmax": bound, "zmid": 0.0}


def display_matrix(matrix: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``float32`` copy of ``matrix (R, C)`` with masked and infinite cells set to NaN."""
    z = np.array(matrix, dtype=np.float32)
    if mask is not None:
        z[~np.broadcast_to(mask, z.shape)] = np.nan
    z[~np.isfinite(z)] = np.nan
    return z


def walk_look(
    kind: str,
    style: FigureStyle,
    z: np.ndarray,
    *,
    value_name: str | None = None,
    row_title: str = "query",
    col_title: str = "key",
) -> dict:
    """How a matrix of ``kind`` (values ``z``, NaN = masked) is drawn and said, as plain JSON:
    what :func:`ui.figures.heatmap.heatmap` keeps in its figure's ``layout.meta`` so that
    :func:`ui.shared.walkable_data.figure_panels` can walk any heatmap the app draws."""
    colours = colour_settings(kind, style, z)
    return {
        "value_name": value_name or KIND_VALUE_NAMES.get(kind, "value"),
        "row_title": row_title,
        "col_title": col_title,
        "decimals": style.decimals,
        "colorscale": colours["colorscale"],
        "zmin": float(colours["zmin"]),
        "zmax": float(colours["zmax"]),
        "masked_colour": style.masked_colour,
        # Written on a small matrix's masked cells, as the heatmap labels them.
        "masked_label": MASKED_WEIGHT_LABEL if kind == "weights" else MASKED_LABEL,
        "cell_px": style.cell_px,
        "font_px": style.font_size,
    }
