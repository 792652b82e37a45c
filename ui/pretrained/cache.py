"""The pretrained page's figures and tables, built once per server for every session.

Every student of a lecture reruns the same view: a head view, a
model view or a step's heatmap built in each session's run was most of a student's
rerun. Each builder here is a :func:`ui.shared.figure_cache.cached_figures` resource,
keyed by :attr:`PretrainedState.digest` (the model and the input, a short string) and
the view's own settings (layer, head, query, style); the state itself goes in as
``_state``, which is not hashed: its arrays follow from the digest.

A :class:`CachedChart` is a figure with its text alternative (:func:`chart`'s ``alt``), so the
description of a 72-panel model view is written once per view too. Shared objects are
read-only: everything that changes a figure happens in its builder, and drawing it
only reads it; a shared table is only sorted or shown, into copies. Builders are called
with keyword arguments: for each positional one Streamlit reads the function's signature
again, which cost more than building a small key.

Bounds (at most 128 tokens, :data:`attention_core.boundary.limits.MAX_TOKENS`): a head
view at 128 tokens with every query holds at most 2,000 lines (~1 MB of Python lists), a
model view one group of at most 6 rows of panels pooled to 32 × 32 (≤ 0.75 MB), a step's
heatmap at 128 tokens ~0.5 MB. A lecture shows a handful of views at once; each count below
keeps a few views per builder, so all of them together stay under ~60 MB. A heatmap's walk
data (:attr:`CachedChart.walk`) is made with it: ~0.1 MB for a 128-token matrix, ~0.4 MB and
~0.05 s for a model view group of 54 pooled panels (30 layers × 9 heads).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention_core.pretrained import head_measures, rollout
from attention_core.pretrained.circuits import DETECTORS, strongest
from attention_core.teaching.head_questions import head_name
from ui.figures.build import shown_text
from ui.figures.describe import describe_head_view
from ui.figures.head_view import head_view
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.pretrained.figures import head_scores_figure, model_view_figure
from ui.pretrained.state import PretrainedState
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures
from ui.shared.matrix_view import stage_heatmap
from ui.shared.stages import Stage, axis_labels

HEAD_VIEWS = 16  #: ≤ 1 MB each at 128 tokens; a lecture's few views, with head sets and queries
MODEL_VIEWS = 8  #: ≤ 0.75 MB each (pooled): a 30-layer model's 5 groups of layers, and a few more
HEATMAPS = 32  #: one head's weights or rollout, ≤ 0.5 MB each at 128 tokens
STAGE_VIEWS = 6  #: a head's ~12 steps, ≤ 0.5 MB each at 128 tokens: ≤ 36 MB in all
TABLES = 16  #: a head table (one row per head) per input and order: a few kB each


@cached_figures(HEAD_VIEWS)
def head_view_drawn(
    digest: str,
    layer: int,
    heads: tuple[int, ...],
    query: int | None,
    style: FigureStyle,
    _state: PretrainedState,
) -> CachedChart:
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
    return cached_chart(figure, f"Layer {layer + 1}. {alt}")


@cached_figures(MODEL_VIEWS)
def model_view_drawn(
    digest: str, first: int, stop: int, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """Every head of layers ``first`` .. ``stop - 1`` (0-based, one group of the model view)
    as small multiples (:func:`model_view_figure`)."""
    layers = range(first, stop)
    figure = model_view_figure(_state.encoded, _state.weights, style, _state.trace.mask, layers)
    return cached_chart(figure)


@cached_figures(HEATMAPS)
def head_weights_drawn(
    digest: str, layer: int, head: int, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """One head's weights ``(T, T)``, the model view's opened head."""
    labels = list(_state.encoded.labels)
    return cached_chart(
        heatmap(
            _state.weights[layer, head],
            labels,
            labels,
            title=f"Attention weights · {head_name(layer, head)}",
            mask=_state.trace.mask,
            style=style,
        )
    )


@cached_figures(HEATMAPS)
def rollout_drawn(
    digest: str, layer: int, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """Attention rollout through layers 1 .. ``layer + 1`` ``(T, T)``."""
    rolled = rollout.attention_rollout(_state.weights)[layer]
    labels = list(_state.encoded.labels)
    return cached_chart(
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


@cached_figures(STAGE_VIEWS)
def stage_figures(
    digest: str,
    layer: int,
    head: int,
    steps: tuple[str, ...],
    style: FigureStyle,
    _state: PretrainedState,
    _steps: tuple[tuple[str, Stage, np.ndarray, str], ...],
) -> dict[str, CachedChart]:
    """The heatmap of each step of layer ``layer``, head ``head``, by step key (read-only).

    ``_steps`` follows from the key: (key, stage, matrix, title) of each of the ``steps``
    the page shows (the keys, in the key: an encoder's and a decoder's steps differ).
    One lookup for the whole tab: each cached call costs Streamlit's hashing of its key.
    """
    labels = list(_state.encoded.labels)
    figures = {}
    for key, stage, matrix, title in _steps:
        rows = axis_labels(stage.rows, labels, labels, matrix.shape[0])
        cols = axis_labels(stage.cols, labels, labels, matrix.shape[1])
        mask = _state.trace.mask if stage.masked else None
        figure = stage_heatmap(stage, matrix, rows, cols, title=title, mask=mask, style=style)
        figures[key] = cached_chart(figure)
    return figures


@cached_figures(TABLES)
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


@cached_figures(HEATMAPS)
def induction_drawn(
    key: str, folder: str | None, text: str, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """The model's strongest induction head on ``text`` (the decoder chapter's sentence read
    twice), from the second copy's last word: its lines, titled by its induction score."""
    tokens, run = _state.model.guided_run(text)
    labels = list(tokens.labels)
    scores = _state.model.copying_scores()["induction"]
    layer, head, value = strongest(scores, 1)[0]
    query = len(tokens.ids) - 2  # the second copy's last word: its next token was seen once
    return cached_chart(
        head_view(
            run.weights[layer],
            labels,
            labels,
            heads=[head],
            query=query,
            style=style,
            title=f"{head_name(layer, head)} (induction score {value:.2f}) "
            f"from “{shown_text(labels[query])}”",
        )
    )


@cached_figures(HEATMAPS)
def induction_weights_drawn(
    key: str, folder: str | None, text: str, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """The weights ``(T, T)`` of the model's strongest induction head on ``text`` (the decoder
    chapter's sentence read twice), whose lines :func:`induction_drawn` draws."""
    tokens, run = _state.model.guided_run(text)
    labels = list(tokens.labels)
    layer, head, _ = strongest(_state.model.copying_scores()["induction"], 1)[0]
    return cached_chart(
        heatmap(
            run.weights[layer, head],
            labels,
            labels,
            title=f"Attention weights · {head_name(layer, head)} · the sentence read twice",
            mask=run.mask,
            style=style,
        )
    )


@cached_figures(HEATMAPS)
def copying_drawn(
    key: str, folder: str | None, detector: str, style: FigureStyle, _state: PretrainedState
) -> CachedChart:
    """Every head's ``detector`` score ``(L, H)`` of the model ``key`` as a heatmap."""
    scores = _state.model.copying_scores()[detector]
    return cached_chart(head_scores_figure(scores, DETECTORS[detector].label, style))
