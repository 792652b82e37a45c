"""Figures of the pretrained page: the model view's small multiples (every layer and head)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core.pretrained import pooling
from attention_core.pretrained.loading import Encoded
from attention_core.pretrained.trace import Tokens
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import FigureStyle

# The model view draws 72 heads at once: 72 x 128 x 128 = 1.2 M cells would be
# ~5 MB on the wire and freeze a school laptop. Longer inputs are pooled into
# this many bins of neighbouring tokens (72 x 32 x 32 = 74 k cells).
MODEL_VIEW_BINS = 32


def model_view_figure(
    encoded: Encoded | Tokens,
    weights: np.ndarray,
    style: FigureStyle,
    mask: np.ndarray | None = None,
) -> go.Figure:
    """All ``L x H`` heads' weights ``(L, H, T, T)`` as small multiples, pooled if long.

    ``mask (T, T)`` (a decoder's causal mask): cells no query of a bin may attend to are
    grey, as in every other view.
    """
    n_layers, n_heads = weights.shape[:2]
    pooled = pooling.pool_weights(weights, MODEL_VIEW_BINS).reshape(
        n_layers * n_heads, *pooling.pool_weights(weights[0, 0], MODEL_VIEW_BINS).shape
    )
    labels = pooling.bin_labels(encoded.labels, MODEL_VIEW_BINS)
    titles = [f"L{layer + 1} H{head + 1}" for layer in range(n_layers) for head in range(n_heads)]
    figure = heatmap_grid(
        pooled.astype(np.float32),
        labels,
        labels,
        titles=titles,
        title="Model view · every layer (rows) and head (columns)",
        kind="weights",
        mask=None
        if mask is None
        else pooling.pool_weights(mask.astype(np.float32), MODEL_VIEW_BINS) > 0,
        style=style,
        columns=n_heads,
    )
    # Panels of ~70 px: token names would cover them; hovering a cell names its tokens.
    figure.update_layout(height=140 + n_layers * 110)
    figure.update_xaxes(showticklabels=False)
    figure.update_yaxes(showticklabels=False)
    figure.update_annotations(font_size=style.tick_size)
    return figure
