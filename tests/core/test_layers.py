"""The shared layers (attention_core/maths/layers.py): erf / GELU accuracy, LayerNorm, ReLU,
the MLP, each against a hand computation or PyTorch."""

from __future__ import annotations

import math

import numpy as np
import torch

from attention_core.maths import layers


def test_erf_matches_math_erf_to_two_tenths_of_a_millionth() -> None:
    x = np.linspace(-6.0, 6.0, 24_001)  # step 5e-4, includes 0 and both tails
    expected = np.array([math.erf(value) for value in x])
    error = np.abs(layers.erf(x) - expected)
    assert error.max() <= 2e-7  # Abramowitz & Stegun 7.1.26: |error| <= 1.5e-7
    assert layers.erf(np.array([0.0]))[0] == 0.0
    np.testing.assert_array_equal(layers.erf(-x), -layers.erf(x))  # odd


def test_gelu_is_x_times_the_normal_cdf() -> None:
    x = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    phi = np.array([0.5 * (1.0 + math.erf(value / math.sqrt(2.0))) for value in x])
    np.testing.assert_allclose(layers.gelu(x), x * phi, rtol=0, atol=4e-7)
    # known values: GELU(1) = 0.8413447..., GELU(-1) = -0.1586553...
    np.testing.assert_allclose(
        layers.gelu(np.array([1.0, -1.0])), [0.8413447, -0.1586553], atol=1e-6
    )


def test_layer_norm_gives_zero_mean_unit_variance_rows_then_gain_and_bias() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 10.0, 10.0, 14.0]])
    plain = layers.layer_norm(x, np.ones(4), np.zeros(4), eps=0.0)
    np.testing.assert_allclose(plain.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(plain.var(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(plain[1], [-1 / math.sqrt(3)] * 3 + [math.sqrt(3)])
    scaled = layers.layer_norm(x, np.full(4, 2.0), np.full(4, 0.5), eps=0.0)
    np.testing.assert_allclose(scaled, 2.0 * plain + 0.5)


def test_gelu_tanh_equals_torch_gelu_tanh() -> None:
    x = np.linspace(-5.0, 5.0, 101)
    expected = torch.nn.GELU(approximate="tanh")(torch.tensor(x)).numpy()
    np.testing.assert_allclose(layers.gelu_tanh(x), expected, rtol=0, atol=1e-12)


def test_relu_zeroes_negatives_and_keeps_positives() -> None:
    np.testing.assert_array_equal(
        layers.relu(np.array([-2.0, -0.0, 0.0, 0.5, 3.0])), [0, 0, 0, 0.5, 3]
    )


def test_mlp_is_activation_of_x_w_in_plus_b_in_times_w_out_plus_b_out() -> None:
    x = np.array([[1.0, -1.0], [0.5, 2.0]])  # (T=2, d=2)
    w_in = np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]])  # (d=2, d_ff=3)
    b_in = np.array([0.0, -1.0, 0.5])
    w_out = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (d_ff=3, d=2)
    b_out = np.array([0.25, -0.25])
    # row 1: x W_in + b_in = [-1, -2, -0.5] -> ReLU 0 -> b_out
    # row 2: [4.5, 1, 0] -> ReLU [4.5, 1, 0] -> [4.5, 1] + b_out
    expected = np.array([[0.25, -0.25], [4.75, 0.75]])
    np.testing.assert_array_equal(layers.mlp(x, w_in, b_in, w_out, b_out, layers.relu), expected)


def test_mlp_takes_any_activation() -> None:
    x = np.array([[0.3, -0.7]])
    w_in, b_in = np.eye(2), np.zeros(2)
    w_out, b_out = np.eye(2), np.zeros(2)
    np.testing.assert_array_equal(layers.mlp(x, w_in, b_in, w_out, b_out, np.tanh), np.tanh(x))
