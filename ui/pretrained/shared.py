"""The pretrained page's figures and tables, built once per server and shared by every session.

A class following its teacher reruns the same view for every student: a head view, a
model view or a step's heatmap built in each session's run was most of a follower's
rerun. Each builder here is a :func:`ui.shared.shared_figures.shared_figures` resource,
keyed by :attr:`PretrainedState.digest` (the model and the input, a short string) and
the view's own settings (layer, head, query, style); the state itself goes in as
``_state``, which is not hashed: its arrays follow from the digest.

A :class:`Drawn` is a figure with its text alternative (:func:`chart`'s ``alt``), so the
description of a 72-panel model view is written once per view too. Shared objects are
read-only: everything that changes a figure happens in its builder, and drawing it
only reads it; a shared table is only sorted or shown, into copies.

Bounds (at most 128 tokens, :data:`attention_core.boundary.limits.MAX_TOKENS`): a head
view at 128 tokens with every query holds at most 2,000 lines (~1 MB of Python lists), a
model view's panels are pooled to 32 × 32 (~1 MB for a 30-layer decoder), a step's heatmap
at 128 tokens ~0.5 MB. A class shows a handful of views at once; each count below keeps a
few views per builder, so all of them together stay under ~60 MB.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.pretrained import head_measures, rollout
from attention_core.pretrained.slim import SlimTrace
from attention_core.teaching.head_questions import head_name
from ui.figures.build import shown_text
from ui.figures.describe import describe_figure, describe_head_view
from ui.figures.head_view import head_view
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.pretrained.figures import model_view_figure
from ui.pretrained.state import PretrainedState
from ui.shared.matrix_view import stage_heatmap
from ui.shared.shared_figures import shared_figures
from ui.shared.stages import Stage, axis_labels

HEAD_VIEWS = 16  #: ≤ 1 MB each at 128 tokens; a class's few views, with head sets and queries
MODEL_VIEWS = 4  #: ≤ 1 MB each (pooled); one per input and style
HEATMAPS = 32  #: one head's weights or rollout, ≤ 0.5 MB each at 128 tokens
STAGE_FIGURES = 48  #: a head's ~10 steps ≤ 0.5 MB each: about five views of "Every step"
TABLES = 16  #: a head table (one row per head) per input and order: a few kB each


@dataclass(frozen=True)
class Drawn:
    """A shared figure and its text alternative (what :func:`chart` would write each run)."""

    figure: go.Figure
    alt: str


def drawn(figure: go.Figure, alt: str | None = None) -> Drawn:
    """``figure`` with ``alt``, or with the description :func:`chart` gives by default."""
    return Drawn(figure, alt if alt is not None else describe_figure(figure))


def mask_of(state: PretrainedState) -> np.ndarray | None:
    """The causal mask ``(T, T)`` of a decoder (grey cells in every view); None for an encoder."""
    return state.trace.mask if isinstance(state.trace, SlimTrace) else None


@shared_figures(HEAD_VIEWS)
def head_view_drawn(
    digest: str,
    layer: int,
    heads: tuple[int, ...],
    query: int | None,
    style: FigureStyle,
    _state: PretrainedState,
) -> Drawn:
    """Layer ``layer``'s lines from ``query`` (None: every token) for ``heads`` (0-based)."""
    weights = _state.weights[layer]  # (H, T, T)
    labels = list(_state.encoded.labels)
    who = "every token" if query is None else f"“{shown_text(labels[query])}”"
    figure = head_view(
        weights,
        labels,
        labels,
        heads=list(heads),
        query=query,
        style=style,
        title=f"Head view · layer {layer + 1} · from {who}",
    )
    alt = describe_head_view(weights, list(heads), query, labels, labels)
    return Drawn(figure, f"Layer {layer + 1}. {alt}")


@shared_figures(MODEL_VIEWS)
def model_view_drawn(digest: str, style: FigureStyle, _state: PretrainedState) -> Drawn:
    """Every layer and head's weights as small multiples (:func:`model_view_figure`)."""
    return drawn(model_view_figure(_state.encoded, _state.weights, style, mask_of(_state)))


@shared_figures(HEATMAPS)
def head_weights_drawn(
    digest: str, layer: int, head: int, style: FigureStyle, _state: PretrainedState
) -> Drawn:
    """One head's weights ``(T, T)``, the model view's opened head."""
    labels = list(_state.encoded.labels)
    return drawn(
        heatmap(
            _state.weights[layer, head],
            labels,
            labels,
            title=f"Attention weights · {head_name(layer, head)}",
            mask=mask_of(_state),
            style=style,
        )
    )


@shared_figures(HEATMAPS)
def rollout_drawn(digest: str, layer: int, style: FigureStyle, _state: PretrainedState) -> Drawn:
    """Attention rollout through layers 1 .. ``layer + 1`` ``(T, T)``."""
    rolled = rollout.attention_rollout(_state.weights)[layer]
    labels = list(_state.encoded.labels)
    return drawn(
        heatmap(
            rolled,
            labels,
            labels,
            title=f"Attention rollout · layers 1–{layer + 1}",
            col_title="input token",
            row_title="token after this layer",
            style=style,
        )
    )


@shared_figures(STAGE_FIGURES)
def stage_drawn(
    digest: str,
    layer: int,
    head: int | None,
    key: str,
    title: str,
    style: FigureStyle,
    _state: PretrainedState,
    _stage: Stage,
    _matrix: np.ndarray,
) -> Drawn:
    """Step ``key``'s heatmap of layer ``layer`` (of ``head``; None for a whole-layer step).

    ``_stage`` and ``_matrix`` follow from the key: the page's stage ``key`` and its matrix.
    """
    labels = list(_state.encoded.labels)
    rows = axis_labels(_stage.rows, labels, labels, _matrix.shape[0])
    cols = axis_labels(_stage.cols, labels, labels, _matrix.shape[1])
    mask = mask_of(_state) if _stage.masked else None
    return drawn(stage_heatmap(_stage, _matrix, rows, cols, title=title, mask=mask, style=style))


@shared_figures(TABLES)
def head_measures_frame(
    digest: str,
    measures: tuple[tuple[str, str], ...],
    sort_by: str | None,
    _state: PretrainedState,
) -> pd.DataFrame:
    """One row per head, Clark et al.'s ``measures`` (name, column title) as columns (3 decimals),
    by layer or, largest first, by the column titled ``sort_by``."""
    values = head_measures.head_measures(_state.weights, _state.encoded.tokens)
    n_layers, n_heads = values["entropy"].shape
    frame = pd.DataFrame(
        {
            "layer": np.repeat(np.arange(1, n_layers + 1), n_heads),
            "head": np.tile(np.arange(1, n_heads + 1), n_layers),
        }
        | {title: values[name].ravel().astype(float).round(3) for name, title in measures}
    )
    if sort_by is None:
        return frame
    return frame.sort_values(sort_by, ascending=False, kind="stable")
