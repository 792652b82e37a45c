"""The text page's runs and figures, computed once per server for every session.

A run is named by a :class:`RunInputs`: the query tokens, the key tokens (``None`` in
self-attention), the config and the custom-mask code (or ``None``). Every cached
function takes the RunInputs and is keyed by its digest, a short string computed once per
rerun, so that Streamlit does not hash the full tokens and config again for each of a
view's cached calls (a rerun's cost: benchmarks/rerun_cost.py). The figure
builders also take the run itself as ``_run``, which Streamlit leaves out of the key
(it follows from the RunInputs), instead of asking the run cache again for every figure.

This module is imported once per process; a page script runs again on every rerun,
so the cached functions live here rather than in ``views/text.py``
(defining them again on each rerun would cost every rerun).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.boundary.arrays import read_only_fields
from ui.figures.describe import describe_head_view
from ui.figures.head_view import head_view
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.shared.figure_cache import STYLE_HASHES, CachedChart, cached_chart, cached_figures, digest
from ui.shared.matrix_view import stage_heatmap
from ui.shared.stages import Stage, axis_labels, stage_title, stages_for
from ui.text.mask_inputs import decode
from ui.text.stage_arrays import key_side_matrix, stage_matrix

# Reruns of one session hit these caches; a room of students with their own sentences
# evicts. The biggest run (128 tokens, d_model 512, 16 heads) is ~20 MB.
RUN_CACHE_ENTRIES = 8
FIGURE_CACHE_ENTRIES = 48
CACHE_TTL_SECONDS = 30 * 60


@dataclass(frozen=True)
class RunInputs:
    """What a run is computed from; ``digest`` names it in every cache."""

    queries: ac.Tokens
    keys: ac.Tokens | None  #: the second sentence's tokens; None in self-attention
    config: ac.AttentionConfig
    mask_code: str | None  #: the custom mask (ui.text.mask_inputs.encode), or None
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The repr of these frozen dataclasses lists every field exactly.
        named = (self.queries, self.keys, self.config, self.mask_code)
        object.__setattr__(self, "digest", digest(named))

    @property
    def labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Unique labels of the queries and of the keys."""
        return self.queries.labels, (self.queries if self.keys is None else self.keys).labels


# Runs and figures are cached as resources: one object shared by every session with the
# same key, never changed once made (a run's arrays are read-only; drawing a figure only
# reads it). st.cache_data would pickle each on the way in and out; a figure comes back
# out rebuilt with all of plotly's checks.
KEY_HASHES = {
    RunInputs: lambda inputs: inputs.digest,
    # Heads in order: equal ablations are one key, however their set was built.
    ac.Ablation: lambda ablation: (ablation.kind, tuple(sorted(ablation.heads))),
    **STYLE_HASHES,
}


@st.cache_resource(
    max_entries=RUN_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def compute(inputs: RunInputs) -> ac.AttentionRun:
    """The attention run for a sentence (pair), a config and an optional custom mask.

    Read by each figure of a view, so kept as one read-only object (20 MB at the largest).
    """
    custom = None if inputs.mask_code is None else decode(inputs.mask_code)
    keys = None if inputs.keys is None else inputs.keys.tokens
    run = ac.run_text_attention(inputs.queries.tokens, inputs.config, keys, custom)
    return read_only_fields(run)


@st.cache_resource(
    max_entries=RUN_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def compute_ablated(inputs: RunInputs, ablation: ac.Ablation) -> ac.AttentionRun:
    """The run of :func:`compute` with the heads of ``ablation`` turned off before they are
    combined (the core checks the heads against the config)."""
    custom = None if inputs.mask_code is None else decode(inputs.mask_code)
    keys = None if inputs.keys is None else inputs.keys.tokens
    run = ac.run_text_attention(inputs.queries.tokens, inputs.config, keys, custom, ablation)
    return read_only_fields(run)


def axes(
    inputs: RunInputs, stage: Stage, shape: tuple[int, ...], second: bool
) -> tuple[list, list]:
    """Row and column labels of a stage's matrix; ``second``: the key sentence's own X, P."""
    query_labels, key_labels = inputs.labels
    if second:
        query_labels = key_labels
    return (
        axis_labels(stage.rows, query_labels, key_labels, shape[-2]),
        axis_labels(stage.cols, query_labels, key_labels, shape[-1]),
    )


def matrix_of(run: ac.AttentionRun, name: str, head: int | None, second: bool) -> np.ndarray:
    return key_side_matrix(run, name) if second else stage_matrix(run, name, head)


cache_figure = cached_figures(FIGURE_CACHE_ENTRIES, KEY_HASHES)


@cache_figure
def heatmap_figure(
    inputs: RunInputs,
    key: str,
    head: int | None,
    second: bool,
    style: FigureStyle,
    _run: ac.AttentionRun,
) -> CachedChart:
    """One stage's heatmap: one head, or the key sentence's side when ``second``.

    ``_run`` is ``compute(inputs)``, passed in (a leading underscore: not hashed).
    """
    run = _run
    stage = stages_for(run.config, run.is_cross)[key]
    matrix = matrix_of(run, key, head, second)
    rows, cols = axes(inputs, stage, matrix.shape, second)
    title = stage_title(stage, head, second)
    return cached_chart(
        stage_heatmap(stage, matrix, rows, cols, title=title, mask=run.mask, style=style)
    )


@cache_figure
def grid_figure(
    inputs: RunInputs, name: str, style: FigureStyle, _run: ac.AttentionRun
) -> CachedChart:
    """Every head's matrix of a per-head stage, side by side (``_run`` = ``compute(inputs)``)."""
    run = _run
    stage = stages_for(run.config, run.is_cross)[name]
    stack = stage_matrix(run, name)
    rows, cols = axes(inputs, stage, stack.shape, False)
    title = f"{stage.title} · all heads"
    return cached_chart(
        stage_heatmap(stage, stack, rows, cols, title=title, mask=run.mask, style=style)
    )


@cache_figure
def head_view_figure(
    inputs: RunInputs,
    query: int | None,
    heads: tuple[int, ...],
    style: FigureStyle,
    _run: ac.AttentionRun,
) -> CachedChart:
    """Lines from the query token(s) to every key, one colour per head (``_run`` as above),
    described by its weights (:func:`ui.figures.describe.describe_head_view`)."""
    query_labels, key_labels = inputs.labels
    weights = _run.trace.weights
    figure = head_view(weights, query_labels, key_labels, heads=heads, query=query, style=style)
    alt = describe_head_view(weights, heads, query, query_labels, key_labels)
    return cached_chart(figure, alt)


#: The experiment's matrices (``ui.text.heads_off``): their titles and arrays, from the run
#: with heads off and the intact run. ``(T, d_out)`` or, for the contexts, ``(T, H·d_v)``.
HEADS_OFF_MATRICES = {
    "intact": ("Output with every head on", lambda off, intact: intact.trace.output),
    "output": ("Output with the heads off", lambda off, intact: off.trace.output),
    "change": (
        "Change: output with the heads off − intact output",
        lambda off, intact: off.trace.output - intact.trace.output,
    ),
    "concat": (
        "Contexts handed to the combination, heads off (all heads side by side)",
        lambda off, intact: off.trace.concat,
    ),
}


@cache_figure
def heads_off_figure(
    inputs: RunInputs,
    ablation: ac.Ablation,
    name: str,
    style: FigureStyle,
    _ablated: ac.AttentionRun,
    _intact: ac.AttentionRun,
) -> CachedChart:
    """One of :data:`HEADS_OFF_MATRICES` as a heatmap, rows the query tokens
    (``_ablated`` = ``compute_ablated(inputs, ablation)``, ``_intact`` = ``compute(inputs)``)."""
    title, array_of = HEADS_OFF_MATRICES[name]
    matrix = array_of(_ablated, _intact)  # (T, C)
    columns = [str(column) for column in range(matrix.shape[1])]
    figure = heatmap(
        matrix,
        list(inputs.queries.labels),
        columns,
        title=title,
        kind="values",
        row_title="query",
        col_title="column",
        style=style,
    )
    return cached_chart(figure)
