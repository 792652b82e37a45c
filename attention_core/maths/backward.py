r"""The backward pass of single-head attention, written out by hand.

Forward, for inputs ``x_q (T, d_q)``, ``x_k (S, d_q)``, ``x_v (S, d_in_v)``:

.. math:: Q = X_q W^Q,\; K = X_k W^K,\; V = X_v W^V,\;
          S = s\, Q K^\top,\; A = \mathrm{softmax}(\mathrm{mask}(S)),\; O = A V

Backward, given :math:`G = \partial L / \partial O` of shape ``(T, d_v)``:

.. math::
    \partial V = A^\top G,\quad
    \partial A = G V^\top,\quad
    \partial S = s\, A \odot \big(\partial A - \mathrm{rowsum}(\partial A \odot A)\big),\\
    \partial Q = \partial S\, K,\quad
    \partial K = \partial S^\top Q,\quad
    \partial W^Q = X_q^\top \partial Q,\quad
    \partial X_q = \partial Q\, (W^Q)^\top \quad\text{(likewise for K and V)}

The softmax step uses the Jacobian :math:`\mathrm{diag}(a) - a a^\top` of each row
without building it. Like :mod:`attention_core.maths.attention`, these functions
check nothing: :func:`attention_core.boundary.api.attention_backward` checks a
caller's arrays once and calls them. Masked entries have :math:`A = 0`, so they get no gradient:
the mask needs no backward rule of its own. This fixes three bugs of the source
notebook: it multiplied the scores by a 0/1 mask (which does not mask), it
``squeeze``-d away the query axis when there was one query, and it initialised
:math:`W^V` with the query's fan-in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.maths.attention import AttentionTrace, scaled_dot_product_attention


@dataclass(frozen=True)
class AttentionGradients:
    """Gradients of a loss with respect to every input and weight of one head."""

    forward: AttentionTrace  #: the forward pass (on the projected Q, K, V)
    d_x_q: np.ndarray  #: (T, d_q)
    d_x_k: np.ndarray  #: (S, d_q)
    d_x_v: np.ndarray  #: (S, d_in_v)
    d_w_q: np.ndarray  #: (d_q, dk)
    d_w_k: np.ndarray  #: (d_q, dk)
    d_w_v: np.ndarray  #: (d_in_v, dv)
    d_q: np.ndarray  #: (T, dk) gradient at the projected queries
    d_k: np.ndarray  #: (S, dk)
    d_v: np.ndarray  #: (S, dv)
    d_scores: np.ndarray  #: (T, S) gradient at the raw scores Q K^T


def softmax_backward(weights: np.ndarray, d_weights: np.ndarray) -> np.ndarray:
    r"""Gradient at softmax inputs: :math:`a \odot (g - \langle g, a \rangle)` per row.

    ``weights, d_weights (..., T, S)``. Equal to multiplying each row's gradient
    by the Jacobian :math:`\mathrm{diag}(a) - a a^\top`.
    """
    return weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))


def attention_backward(
    x_q: np.ndarray,
    x_k: np.ndarray,
    x_v: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    d_output: np.ndarray,
    scale: float,
    mask: np.ndarray | None = None,
) -> AttentionGradients:
    r"""Forward and hand-written backward pass of single-head attention.

    Shapes: ``x_q (T, d_q)``, ``x_k (S, d_q)``, ``x_v (S, d_in_v)``,
    ``w_q, w_k (d_q, dk)``, ``w_v (d_in_v, dv)``, ``d_output (T, dv)`` =
    :math:`\partial L/\partial O`; ``scale`` the factor :math:`s`; ``mask (T, S)``
    bool or None.
    """
    q, k, v = x_q @ w_q, x_k @ w_k, x_v @ w_v
    forward = scaled_dot_product_attention(q, k, v, scale, mask)
    d_v = forward.weights.T @ d_output  # (S, dv)
    d_weights = d_output @ v.T  # (T, S)
    d_scores = forward.scale * softmax_backward(forward.weights, d_weights)  # (T, S)
    d_q = d_scores @ k  # (T, dk)
    d_k = d_scores.T @ q  # (S, dk)
    return AttentionGradients(
        forward=forward,
        d_x_q=d_q @ w_q.T,
        d_x_k=d_k @ w_k.T,
        d_x_v=d_v @ w_v.T,
        d_w_q=x_q.T @ d_q,
        d_w_k=x_k.T @ d_k,
        d_w_v=x_v.T @ d_v,
        d_q=d_q,
        d_k=d_k,
        d_v=d_v,
        d_scores=d_scores,
    )
