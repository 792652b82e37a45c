"""Projections with biases: Q = X W^Q + b^Q (and K, V, O), checked against a hand computation."""

from __future__ import annotations

import numpy as np

from attention_core.maths import attention
from attention_core.maths.projections import Projections


def test_project_adds_the_bias_to_every_row_then_splits_heads() -> None:
    x = np.array([[1.0, 0.0], [0.0, 2.0]])  # (T=2, d=2)
    w = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.0, -1.0, 1.0]])  # (d=2, H*dk=4)
    b = np.array([10.0, 20.0, 30.0, 40.0])
    # x W + b = [[11, 22, 33, 44], [11, 20, 28, 42]]; head 0 is columns 0-1, head 1 columns 2-3
    expected = np.array([[[11.0, 22.0], [11.0, 20.0]], [[33.0, 44.0], [28.0, 42.0]]])
    np.testing.assert_array_equal(attention.project(x, w, 2, b), expected)


def test_biased_multi_head_attention_equals_the_formula_by_hand() -> None:
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (T=3, d=2)
    w_q = np.array([[1.0, 0.0], [0.0, 1.0]])
    w_k = np.array([[0.0, 1.0], [1.0, 0.0]])
    w_v = np.array([[2.0, 0.0], [0.0, 3.0]])
    w_o = np.array([[1.0, 1.0], [0.0, 1.0]])
    b_q, b_k = np.array([0.5, -0.5]), np.array([1.0, 0.0])
    b_v, b_o = np.array([0.0, 1.0]), np.array([-1.0, 2.0])
    projections = Projections(w_q, w_k, w_v, w_o, b_q=b_q, b_k=b_k, b_v=b_v, b_o=b_o)
    trace = attention.multi_head_attention(x, x, projections, n_heads=1, scale=0.5)

    q, k, v = x @ w_q + b_q, x @ w_k + b_k, x @ w_v + b_v  # (T, d) each
    scaled = 0.5 * q @ k.T
    weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(trace.q[0], q, rtol=0, atol=1e-15)
    np.testing.assert_allclose(trace.k[0], k, rtol=0, atol=1e-15)
    np.testing.assert_allclose(trace.v[0], v, rtol=0, atol=1e-15)
    np.testing.assert_allclose(trace.weights[0], weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(trace.output, weights @ v @ w_o + b_o, rtol=0, atol=1e-14)


def test_projections_without_biases_give_exactly_x_w() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6))
    w_q, w_k, w_v, w_o = (rng.standard_normal((6, 6)) for _ in range(4))
    trace = attention.multi_head_attention(x, x, Projections(w_q, w_k, w_v, w_o), 2, 0.5)
    np.testing.assert_array_equal(trace.q, attention.split_heads(x @ w_q, 2))
    np.testing.assert_array_equal(trace.output, attention.merge_heads(trace.context) @ w_o)
