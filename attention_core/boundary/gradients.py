r"""The hand-written backward pass, checked: a caller's arrays are checked once, then
:mod:`attention_core.maths.backward` computes (and checks nothing).
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.api import check_scores_finite, resolve_scale
from attention_core.boundary.errors import InputError
from attention_core.boundary.validation import (
    as_matrix,
    check_mask_shape,
    check_one_row_per_key,
    check_same_width,
)
from attention_core.maths import backward


def softmax_backward(weights: object, d_weights: object) -> np.ndarray:
    r"""Checked :func:`backward.softmax_backward`: the gradient at the softmax inputs."""
    weights, d_weights = np.asarray(weights, dtype=float), np.asarray(d_weights, dtype=float)
    if weights.shape != d_weights.shape:
        raise InputError(
            f"weights {weights.shape} and their gradient {d_weights.shape} need the same shape."
        )
    return backward.softmax_backward(weights, d_weights)


def attention_backward(
    x_q: object,
    x_k: object,
    x_v: object,
    w_q: object,
    w_k: object,
    w_v: object,
    d_output: object,
    mask: np.ndarray | None = None,
    scale: float | None = None,
) -> backward.AttentionGradients:
    r"""Checked :func:`backward.attention_backward`: one head's forward and backward pass.

    Shapes: ``x_q (T, d_q)``, ``x_k (S, d_q)``, ``x_v (S, d_in_v)``,
    ``w_q, w_k (d_q, dk)``, ``w_v (d_in_v, dv)``, ``d_output (T, dv)`` =
    :math:`\partial L/\partial O`. ``scale`` defaults to :math:`1/\sqrt{d_k}`.
    """
    x_q, x_k, x_v = as_matrix(x_q, "x_q"), as_matrix(x_k, "x_k"), as_matrix(x_v, "x_v")
    w_q, w_k, w_v = as_matrix(w_q, "w_q"), as_matrix(w_k, "w_k"), as_matrix(w_v, "w_v")
    for x, w, name in ((x_q, w_q, "w_q"), (x_k, w_k, "w_k"), (x_v, w_v, "w_v")):
        if x.shape[1] != w.shape[0]:
            raise InputError(f"{name} needs {x.shape[1]} rows to match its input, got {w.shape}.")
    check_same_width(w_q, "w_q", w_k, "w_k")
    check_one_row_per_key(x_k, "x_k", x_v, "x_v")
    if mask is not None:
        mask = check_mask_shape(mask, (x_q.shape[0], x_k.shape[0]))
    d_output = as_matrix(d_output, "d_output")
    output_shape = (x_q.shape[0], w_v.shape[1])
    if d_output.shape != output_shape:
        raise InputError(
            f"The output gradient must have the output's shape {output_shape}, "
            f"got {d_output.shape}."
        )
    scale = resolve_scale(scale, w_q.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        gradients = backward.attention_backward(x_q, x_k, x_v, w_q, w_k, w_v, d_output, scale, mask)
    check_scores_finite(gradients.forward)
    return gradients
