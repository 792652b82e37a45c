"""Figures of the pretrained page: the model view's small multiples, a group of layers at a time,
and a score of every head (layers × heads).

A model has L × H heads: 72 for the bundled model, 270 for SmolLM2-135M (30 × 9), 1,536 for a
48-layer model with 32 heads. One figure of them all would be too tall to read and, past some
30 rows, refused by plotly. So the model view shows at most :data:`GROUP_ROWS` rows of
panels at a time, a group of whole layers, and the page lets students page through the groups
(:class:`ModelViewGrid`). A layer with more heads than :data:`MAX_COLUMNS` wraps onto more
rows, each layer starting a row of its own, so panels keep the bundled model's width.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention_core.pretrained import pooling
from attention_core.pretrained.loading import Encoded
from attention_core.pretrained.trace import ModelTokens
from ui.figures import build
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, FigureStyle

# The model view draws up to 72 heads at once: 72 x 128 x 128 = 1.2 M cells would be
# ~5 MB on the wire and freeze a school laptop. Longer inputs are pooled into
# this many bins of neighbouring tokens (72 x 32 x 32 = 74 k cells).
MODEL_VIEW_BINS = 32
#: Rows of panels in one group: the bundled model's 6 layers x 12 heads are one group, drawn
#: as they always were; 6 rows of ~110 px fit a laptop's screen without scrolling far.
GROUP_ROWS = 6
#: Panels side by side at most: the bundled model's 12 heads, ~35 px wide each on a laptop.
MAX_COLUMNS = 12
ROW_PX = 110  #: height of one row of panels, its title included (taller when presenting)
FRAME_PX = 140  #: the figure's title and margins


@dataclass(frozen=True)
class ModelViewGrid:
    """How the model view lays out ``n_layers`` × ``n_heads`` panels, from the model's shape only
    (so every viewer of a link, presenting or not, pages through the same groups)."""

    n_layers: int
    n_heads: int

    @property
    def rows_per_layer(self) -> int:
        """Rows of panels one layer's heads take: ``ceil(H / MAX_COLUMNS)``."""
        return -(-self.n_heads // MAX_COLUMNS)

    @property
    def columns(self) -> int:
        """Panels to a row: a layer's heads spread evenly over its rows."""
        return -(-self.n_heads // self.rows_per_layer)

    @property
    def layers_per_group(self) -> int:
        """Whole layers in one group of at most :data:`GROUP_ROWS` rows (at least one)."""
        return max(1, GROUP_ROWS // self.rows_per_layer)

    @property
    def groups(self) -> tuple[range, ...]:
        """The groups of layers (0-based ranges), in order: 0-5, 6-11, ... for 9 heads."""
        step = self.layers_per_group
        return tuple(
            range(start, min(start + step, self.n_layers))
            for start in range(0, self.n_layers, step)
        )

    def group_of(self, layer: int) -> range:
        """The group holding ``layer`` (0-based)."""
        return self.groups[layer // self.layers_per_group]

    def places(self, layers: range) -> list[int]:
        """The grid cell (row by row from 0) of each head of ``layers``, layer by layer:
        each layer starts a new row, so a row never holds two layers."""
        width, rows = self.columns, self.rows_per_layer
        return [
            (index * rows + head // width) * width + head % width
            for index in range(len(layers))
            for head in range(self.n_heads)
        ]


def group_label(layers: range) -> str:
    """A group as the pager and the link name it, counted from 1: ``"7-12"``, or ``"5"``."""
    first, last = layers.start + 1, layers.stop
    return f"{first}" if first == last else f"{first}-{last}"


def group_words(layers: range) -> str:
    """A group in a sentence: "layers 7–12", or "layer 5"."""
    first, last = layers.start + 1, layers.stop
    return f"layer {first}" if first == last else f"layers {first}–{last}"


def model_view_title(grid: ModelViewGrid, layers: range) -> str:
    """The figure's title: which layers it shows, and how the heads are laid out."""
    if len(layers) == grid.n_layers:
        shown = "every layer"
    else:
        shown = f"{group_words(layers)} of {grid.n_layers}"
    if grid.rows_per_layer == 1:
        heads = "head (columns)" if shown == "every layer" else "every head (columns)"
        return f"Model view · {shown} (rows) and {heads}"
    return (
        f"Model view · {shown}, each layer's {grid.n_heads} heads on "
        f"{grid.rows_per_layer} rows of up to {grid.columns}"
    )


def model_view_figure(
    encoded: Encoded | ModelTokens,
    weights: np.ndarray,
    style: FigureStyle,
    mask: np.ndarray | None = None,
    layers: range | None = None,
) -> go.Figure:
    """The heads of ``layers`` (default: all) of ``weights (L, H, T, T)`` as small multiples,
    tokens pooled into :data:`MODEL_VIEW_BINS` bins when longer.

    Panels are laid out by :class:`ModelViewGrid`, titled "L<layer> H<head>" (from 1).
    ``mask (T, T)`` (a decoder's causal mask): cells no query of a bin may attend to are
    grey, as in every other view.
    """
    n_layers, n_heads = weights.shape[:2]
    grid = ModelViewGrid(n_layers, n_heads)
    layers = range(n_layers) if layers is None else layers
    pooled = pooling.pool_weights(weights[layers.start : layers.stop], MODEL_VIEW_BINS)
    panels = pooled.reshape(len(layers) * n_heads, *pooled.shape[-2:])  # (G·H, B, B)
    labels = pooling.bin_labels(encoded.labels, MODEL_VIEW_BINS)
    titles = [f"L{layer + 1} H{head + 1}" for layer in layers for head in range(n_heads)]
    figure = heatmap_grid(
        panels.astype(np.float32),
        labels,
        labels,
        titles=titles,
        title=model_view_title(grid, layers),
        kind="weights",
        mask=None
        if mask is None
        else pooling.pool_weights(mask.astype(np.float32), MODEL_VIEW_BINS) > 0,
        style=style,
        columns=grid.columns,
        places=grid.places(layers),
    )
    # Panels of ~70 px: token names would cover them; hovering a cell names its tokens. No
    # padding around a panel (Streamlit's theme pads 8 px), so a panel's title stays clear of
    # its grey (masked) background. Set on the plain layout and built once more, unchecked as
    # the grid was (tests/ui/test_frozen_figures.py builds it checked too): plotly's update
    # calls took longer than the grid itself for 66 panels.
    data, layout = build.plain(figure)
    layout = copy.deepcopy(layout)
    row_px = round(ROW_PX * style.cell_px / NORMAL.cell_px)
    layout["height"] = FRAME_PX + len(layers) * grid.rows_per_layer * row_px
    layout["margin"] = {**layout["margin"], "pad": 0}
    for axis in ("x", "y"):
        build.update_axes(layout, axis, {"showticklabels": False})
    for annotation in layout["annotations"]:
        annotation["font"] = {**annotation.get("font", {}), "size": style.tick_size}
    return build.figure(data, layout, checked=False)


def head_scores_figure(scores: np.ndarray, label: str, style: FigureStyle) -> go.Figure:
    """A score of every head ``(L, H)`` (previous token, induction …) as a heatmap, layers down.

    Tall enough that every layer keeps its label at the chart's font: a heatmap's own height
    stops growing at 24 rows, and 48 layers in it labelled only every other one.
    """
    n_layers, n_heads = scores.shape
    row_px = style.tick_size + 7
    auto = style.cell_px * min(n_layers, 24)
    return heatmap(
        scores,
        [f"layer {i}" for i in range(1, n_layers + 1)],
        [f"head {j}" for j in range(1, n_heads + 1)],
        title=f"{label.capitalize()} score of every head",
        row_title="layer",
        col_title="head",
        style=style,
        height=120 + max(auto, row_px * n_layers),
        value_name=f"{label} score",  # a cell reads "induction score 0.42", not "weight"
    )
