r"""Other ways to combine heads than :math:`[\,C_1 \cdots C_H\,]\, W^O`.

Each takes the heads' context vectors ``context (H, T, dv)`` and the layer's
:class:`~attention_core.maths.projections.Projections` (the same signature as
:func:`attention_core.maths.attention.output_projection`, the standard way), so the
table :data:`attention_core.boundary.options.COMBINATIONS` can hand any of them to
:func:`attention_core.maths.attention.multi_head_attention`.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from attention_core.maths.projections import Projections


def mean_of_heads(context: np.ndarray, projections: Projections) -> np.ndarray:
    r""":math:`O = \frac{1}{H} \sum_h C_h`: ``(H, T, dv) -> (T, dv)``."""
    return context.mean(axis=0)


def max_of_heads(context: np.ndarray, projections: Projections) -> np.ndarray:
    r""":math:`O_{tc} = \max_h (C_h)_{tc}`, entry by entry: ``(H, T, dv) -> (T, dv)``."""
    return context.max(axis=0)


def weighted_sum_of_heads(context: np.ndarray, projections: Projections) -> np.ndarray:
    r""":math:`O = \sum_h w_h C_h`, one learned weight per head ``head_weights (H,)``."""
    head_weights = cast(np.ndarray, projections.head_weights)  # (H,), set by the caller
    return np.tensordot(head_weights, context, axes=1)  # (H,) . (H, T, dv) -> (T, dv)
