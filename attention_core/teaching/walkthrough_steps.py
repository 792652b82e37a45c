r"""The computations behind the classroom walkthrough, one small section per lesson.

Each function returns every number its step shows, so the page only draws:
the documents' printed numbers next to ours (step 2), right and wrong masking
(step 4) and heads side by side (step 5). Step 1 lives in
:mod:`attention_core.teaching.soft_lookup`, step 3 in
:mod:`attention_core.teaching.score_scaling`, step 6 in :mod:`attention_core.teaching.gradcheck`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.api import (
    combine_heads,
    masked_fill,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
)
from attention_core.boundary.errors import InputError
from attention_core.boundary.options import COMBINATIONS
from attention_core.boundary.validation import as_matrix, check_positive_int
from attention_core.maths.attention import AttentionTrace, MultiHeadTrace
from attention_core.maths.projections import Projections, init_projections
from attention_core.teaching import examples
from attention_core.teaching.pitfalls import multiplicative_mask_pitfall, wrong_axis_softmax_pitfall

# --- Step 2: the documents' worked examples ---------------------------------


def printed_difference(ours: np.ndarray, printed: np.ndarray) -> float:
    r"""Largest gap between our numbers and a document's: :math:`\max |A - B|`."""
    return float(np.max(np.abs(np.asarray(ours, dtype=float) - np.asarray(printed, dtype=float))))


def rounded_weights_context(
    weights: np.ndarray, values: np.ndarray, decimals: int = 3
) -> np.ndarray:
    r"""Context vectors from weights rounded *before* multiplying, as the notes did.

    .. math:: \hat C = \mathrm{round}(W, 3)\, V

    ``weights (T, S)``, ``values (S, dv)`` -> ``(T, dv)``.
    """
    return np.round(weights, decimals) @ values


@dataclass(frozen=True)
class FiveDayReproduction:
    """The time-series notes' five-day example, ours against theirs."""

    trace: AttentionTrace  #: our exact attention, weights (5, 5), context (5, 2)
    values: np.ndarray  #: (5, 2) V = X W^V
    printed_weights: np.ndarray  #: (5, 5) as printed (3 decimals)
    printed_output: np.ndarray  #: (5, 2) as printed
    rounded_context: np.ndarray  #: (5, 2) round(W, 3) @ V, what the notes computed
    weights_difference: float  #: max |round(W, 3) - printed|
    exact_output_difference: float  #: max |W V - printed|: the notes' rounding shows
    rounded_output_difference: float  #: max |round(W, 3) V - printed|


def five_day_reproduction(masked: bool) -> FiveDayReproduction:
    """Recompute the notes' five days of two variables (seed 42), with or without mask."""
    trace = examples.five_day_attention(masked)
    inputs = examples.five_day_inputs()
    values = inputs.x @ inputs.w_v
    if masked:
        printed_weights = examples.FIVE_DAY_PRINTED_MASKED_WEIGHTS
        printed_output = examples.FIVE_DAY_PRINTED_MASKED_OUTPUT
    else:
        printed_weights = examples.FIVE_DAY_PRINTED_WEIGHTS
        printed_output = examples.FIVE_DAY_PRINTED_OUTPUT
    rounded = rounded_weights_context(trace.weights, values)
    return FiveDayReproduction(
        trace,
        values,
        printed_weights,
        printed_output,
        rounded,
        printed_difference(np.round(trace.weights, 3), printed_weights),
        printed_difference(trace.context, printed_output),
        printed_difference(rounded, printed_output),
    )


@dataclass(frozen=True)
class ContextEntry:
    r"""One entry :math:`C_{ij} = \sum_k W_{ik} V_{kj}` with its terms."""

    row: int
    column: int
    terms: tuple[tuple[float, float], ...]  #: (weight, value) pairs, one per key
    value: float


def context_entry(weights: np.ndarray, values: np.ndarray, row: int, column: int) -> ContextEntry:
    r"""The dot product behind :math:`C_{ij}`.

    Row i of ``weights (T, S)`` times column j of ``values (S, dv)``.
    """
    weights, values = as_matrix(weights, "weights"), as_matrix(values, "values")
    if not (0 <= row < weights.shape[0] and 0 <= column < values.shape[1]):
        raise InputError(
            f"C has {weights.shape[0]} rows and {values.shape[1]} columns; "
            f"there is no entry ({row}, {column})."
        )
    terms = examples.dot_product_terms(weights[row], values[:, column])
    return ContextEntry(row, column, tuple(terms), float(weights[row] @ values[:, column]))


# --- Step 4: masking, right and wrong ----------------------------------------


@dataclass(frozen=True)
class MaskingComparison:
    """The right causal mask beside two common mistakes, on scores ``(T, S)``.

    ``forbidden_*`` is each query row's total weight on keys it may not see
    (should be 0); ``row_sums_*`` each row's total weight (should be 1).
    """

    scaled: np.ndarray  #: (T, S) the scores before masking
    mask: np.ndarray  #: (T, S) bool, True = may attend
    right: np.ndarray  #: (T, S) softmax(-inf where masked), rows
    multiplied: np.ndarray  #: (T, S) softmax(scores * mask)
    wrong_axis: np.ndarray  #: (T, S) masked, but normalised down the columns

    def forbidden_weight(self, weights: np.ndarray) -> np.ndarray:
        """``(T,)`` weight each query gives to keys the mask forbids."""
        return np.sum(np.where(self.mask, 0.0, weights), axis=-1)

    @staticmethod
    def row_sums(weights: np.ndarray) -> np.ndarray:
        """``(T,)`` total weight of each query."""
        return np.sum(weights, axis=-1)


def masking_comparison(scaled: np.ndarray, mask: np.ndarray) -> MaskingComparison:
    r"""Right and wrong ways to apply ``mask (T, S)`` to ``scaled (T, S)`` scores.

    .. math:: W = \mathrm{softmax}_{\text{row}}(S + M_{-\infty}), \quad
              W^{\times} = \mathrm{softmax}_{\text{row}}(S \odot M), \quad
              W^{\text{col}} = \mathrm{softmax}_{\text{column}}(S + M_{-\infty})
    """
    scaled = as_matrix(scaled, "scores")
    mask = np.asarray(mask, dtype=bool)
    masked = masked_fill(scaled, mask)
    return MaskingComparison(
        scaled,
        mask,
        softmax(masked, axis=-1),
        multiplicative_mask_pitfall(scaled, mask),
        wrong_axis_softmax_pitfall(masked),
    )


def five_day_masking() -> MaskingComparison:
    """:func:`masking_comparison` on the five-day example's scores with a causal mask."""
    scaled = examples.five_day_attention(masked=False).scaled
    return masking_comparison(scaled, np.tri(*scaled.shape, dtype=bool))


# --- Step 5: several heads ----------------------------------------------------


@dataclass(frozen=True)
class MultiHeadExample:
    """Multi-head self-attention on ``T`` random steps of width ``e``, ``H`` heads of ``h``."""

    x: np.ndarray  #: (T, e)
    projections: Projections  #: w_q, w_k, w_v (e, e), w_o (e, e), head_weights (H,)
    trace: MultiHeadTrace  #: per-head q (H, T, h), weights (H, T, T), context (H, T, h)
    combined: dict[str, np.ndarray]  #: strategy -> output: concat (T, e), others (T, h)
    separate_difference: float  #: max |head run on its own - head run in parallel|


def multi_head_example(
    head_width: int = 4, width: int = 12, length: int = 5, seed: int = 0
) -> MultiHeadExample:
    r"""Split width ``e`` into heads of width ``h`` (e = 12, h = 4: three heads).

    .. math:: Q_h = X W^Q_{[:,\, h\text{-th block}]},\quad
              C_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{h}}\right) V_h

    then every combination in :data:`attention_core.boundary.options.COMBINATIONS`.
    Also runs each head on
    its own, to show the heads do not interact (``separate_difference`` is 0).
    """
    width = check_positive_int(width, "Width e", 512)
    head_width = check_positive_int(head_width, "Head width h", width)
    if width % head_width:
        raise InputError(f"The head width h = {head_width} must divide e = {width}.")
    n_heads = width // head_width
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((check_positive_int(length, "Length", 128), width))
    projections = init_projections(rng, width, n_heads, head_width, head_width, width)
    trace = multi_head_attention(
        x, projections.w_q, projections.w_k, projections.w_v, projections.w_o, n_heads
    )
    combined = {
        strategy: combine_heads(trace.context, strategy, projections.w_o, projections.head_weights)
        for strategy in COMBINATIONS
    }
    separate = [
        scaled_dot_product_attention(
            x @ projections.w_q[:, block],
            x @ projections.w_k[:, block],
            x @ projections.w_v[:, block],
        ).context
        for block in (slice(h * head_width, (h + 1) * head_width) for h in range(n_heads))
    ]
    difference = float(np.max(np.abs(np.stack(separate) - trace.context)))
    return MultiHeadExample(x, projections, trace, combined, difference)
