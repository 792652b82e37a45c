"""The walkthrough's figures and tables, built once per server for every session.

A view of a lecture step is named by a few small settings (a slider's value, a head
width, the :class:`FigureStyle`); every student of a lecture reruns the same view, so
each builder here runs once per view and server, and every session
draws the very same objects (:func:`ui.shared.figure_cache.cached_figures`).
Everything returned is read-only: figures are only drawn, tables are immutable Arrow
tables (Streamlit would convert a DataFrame again on every run), arrays are frozen.

Bounds: there are two styles (normal, presenting). One view holds a few small figures
(5 × 5 heatmaps, a dozen points per line): at most 12 kB pickled, a few hundred kB as
plotly objects, so all of this module's bounds together (~200 views) stay under ~50 MB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa

import attention_core as ac
from attention_core.boundary.arrays import read_only_fields
from attention_core.teaching import score_scaling, soft_lookup, walkthrough_steps
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures
from ui.shared.worked_examples import DAYS
from ui.walkthrough import figures as wf

if TYPE_CHECKING:  # importing gradcheck imports PyTorch: only when step 6 is shown
    from attention_core.teaching.gradcheck import GradientCheck

#: Views keyed by the style alone: two styles, room to spare.
STYLE_VIEWS = 4
#: Step 1's query plane: a lecture visits a handful of the 61 × 61 slider positions.
LOOKUP_VIEWS = 64
#: Step 3: up to 63 key counts × 2 styles exist; a lecture looks at a few.
SCALING_VIEWS = 32
#: Step 5: 6 head widths × 2 styles (the grid), × 4 ways to combine (the output).
HEAD_GRID_VIEWS = 12
HEAD_OUTPUT_VIEWS = 48
#: Step 6: any seed, masked or not, × 2 styles; a lecture tries a few seeds.
GRADIENT_VIEWS = 16
#: Step 6's panels, in order: the gradients of the three weight matrices.
SHOWN_GRADIENTS = ("W_Q", "W_K", "W_V")


def arrow(frame: pd.DataFrame) -> pa.Table:
    """``frame`` as the Arrow table Streamlit sends (index kept in its pandas metadata)."""
    return pa.Table.from_pandas(frame)


# --- Lecture step 1 ------------------------------------------------------------


@dataclass(frozen=True)
class LookupView:
    """The soft lookup for one query, its figure and its table."""

    trace: soft_lookup.LookupTrace
    figure: CachedChart
    table: pa.Table


@cached_figures(LOOKUP_VIEWS)
def lookup_view(x: float, y: float, style: FigureStyle) -> LookupView:
    """Step 1 for the query ``(x, y)``: keys, query and weights, and the lookup table."""
    examples = ac.examples
    trace = read_only_fields(
        soft_lookup.soft_lookup((x, y), examples.LOOKUP_KEY_VECTORS, examples.LOOKUP_VALUE_VECTORS)
    )
    figure = wf.lookup_figure(
        examples.LOOKUP_KEY_VECTORS,
        examples.LOOKUP_KEYS,
        trace.query,
        trace.weights,
        examples.LOOKUP_VALUES,
        style=style,
    )
    frame = wf.lookup_frame(
        examples.LOOKUP_KEYS,
        examples.LOOKUP_VALUES,
        examples.LOOKUP_KEY_VECTORS,
        trace.scores,
        trace.weights,
        style.decimals,
    )
    return LookupView(trace, cached_chart(figure), arrow(frame))


# --- Lecture step 3 ------------------------------------------------------------


@dataclass(frozen=True)
class ScalingView:
    """Softmax saturation for ``n`` keys: the core table, its figure and its table."""

    table: score_scaling.SaturationTable
    figure: CachedChart
    frame: pa.Table


@cached_figures(SCALING_VIEWS)
def scaling_view(n_keys: int, style: FigureStyle) -> ScalingView:
    """Step 3 for ``n_keys`` keys: three measures against width d, unscaled vs scaled."""
    table = read_only_fields(score_scaling.softmax_saturation(n_keys=n_keys))
    unscaled = {
        "largest weight": table.max_weight_unscaled,
        "entropy": table.entropy_unscaled,
        "gradient size ‖∂a/∂s‖": table.gradient_unscaled,
    }
    scaled = {
        "largest weight": table.max_weight_scaled,
        "entropy": table.entropy_scaled,
        "gradient size ‖∂a/∂s‖": table.gradient_scaled,
    }
    frame = wf.saturation_frame(
        table.widths,
        {
            "score spread, unscaled": table.score_std_unscaled,
            "score spread, scaled": table.score_std_scaled,
            "largest weight, unscaled": table.max_weight_unscaled,
            "largest weight, scaled": table.max_weight_scaled,
            "entropy, unscaled": table.entropy_unscaled,
            "entropy, scaled": table.entropy_scaled,
        },
    )
    figure = wf.saturation_figure(table.widths, unscaled, scaled, style=style)
    return ScalingView(table, cached_chart(figure), arrow(frame))


# --- Lecture step 4 ------------------------------------------------------------


@dataclass(frozen=True)
class MaskingView:
    """The five days' right mask beside two mistakes: three heatmaps and their numbers."""

    result: walkthrough_steps.MaskingComparison
    panels: tuple[CachedChart, ...]  #: right, × 0/1 mask, column softmax
    table: pa.Table


@cached_figures(STYLE_VIEWS)
def masking_view(style: FigureStyle) -> MaskingView:
    """Step 4: the weights of each variant and each query's forbidden weight and row sum."""
    result = read_only_fields(walkthrough_steps.five_day_masking())
    panels = tuple(
        cached_chart(heatmap(weights, DAYS, DAYS, title=title, mask=mask, style=style))
        for title, weights, mask in (
            ("Right: −∞, then softmax", result.right, result.mask),
            ("Wrong: × 0/1 mask", result.multiplied, None),
            ("Wrong: column softmax", result.wrong_axis, result.mask),
        )
    )
    frame = wf.masking_frame(
        DAYS,
        {
            "weight on future, right": result.forbidden_weight(result.right),
            "weight on future, ×mask": result.forbidden_weight(result.multiplied),
            "row sum, right": result.row_sums(result.right),
            "row sum, wrong axis": result.row_sums(result.wrong_axis),
        },
    )
    return MaskingView(result, panels, arrow(frame))


# --- Lecture step 5 ------------------------------------------------------------


@cached_figures(HEAD_GRID_VIEWS)
def multi_head(head_width: int) -> walkthrough_steps.MultiHeadExample:
    """The multi-head example with heads of ``head_width`` (read-only, outputs too)."""
    return read_only_fields(walkthrough_steps.multi_head_example(head_width=head_width))


@cached_figures(HEAD_GRID_VIEWS)
def head_weights_figure(head_width: int, style: FigureStyle) -> CachedChart:
    """Each head's attention weights ``(H, 5, 5)``, four panels a row."""
    weights = multi_head(head_width).trace.weights
    return cached_chart(
        heatmap_grid(
            weights,
            DAYS,
            DAYS,
            titles=[f"head {index + 1}" for index in range(weights.shape[0])],
            title="Each head's attention weights",
            style=style,
            columns=4,
        )
    )


@cached_figures(HEAD_OUTPUT_VIEWS)
def head_output_figure(head_width: int, strategy: str, style: FigureStyle) -> CachedChart:
    """The heads combined by ``strategy``: ``(5, 12)`` for concat, else ``(5, h)``."""
    output = multi_head(head_width).combined[strategy]
    return cached_chart(
        heatmap(
            output,
            DAYS,
            [f"out {j}" for j in range(output.shape[1])],
            title=f"Combined output ({output.shape[0]}, {output.shape[1]})",
            kind="values",
            col_title="feature",
            style=style,
        )
    )


# --- Lecture step 6 ------------------------------------------------------------


@dataclass(frozen=True)
class GradientView:
    """The hand-written backward pass checked against autograd, its figure and its table."""

    check: GradientCheck
    figure: CachedChart
    table: pa.Table


@cached_figures(GRADIENT_VIEWS)
def gradient_check(seed: int, causal: bool) -> GradientCheck:
    """The backward pass by hand and by autograd for one example (read-only), whatever the style."""
    from attention_core.teaching import gradcheck  # imports PyTorch: only for this step

    return read_only_fields(gradcheck.check_gradients(gradcheck.gradient_example(seed, causal)))


@cached_figures(GRADIENT_VIEWS)
def gradient_view(seed: int, causal: bool, style: FigureStyle) -> GradientView:
    """Step 6 for one example: W_Q, W_K, W_V's gradients by hand, and max |hand − autograd|."""
    check = gradient_check(seed, causal)
    hand = {name: check.hand[name] for name in SHOWN_GRADIENTS}
    figure = wf.gradient_grid(
        hand, title="Gradient each weight matrix receives (by hand)", style=style
    )
    return GradientView(
        check, cached_chart(figure), arrow(wf.difference_frame(check.max_difference))
    )
