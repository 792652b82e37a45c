"""The pieces of the NumPy BERT forward pass: erf / GELU accuracy, LayerNorm, and that every
layer's attention is computed by attention_core.maths.attention's own functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core.maths import attention, layers
from attention_core.pretrained import bert, loading


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


def test_every_layer_attends_through_attention_py(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forward pass calls split_heads 3x, scaled_dot_product_attention and merge_heads
    once per layer, and the trace keeps exactly what those functions returned."""
    calls: dict[str, list] = {"split_heads": [], "scaled_dot_product_attention": []}
    calls["merge_heads"] = []
    for name, found in calls.items():
        original = getattr(attention, name)

        def spy(*args, _original=original, _found=found, **kwargs):
            result = _original(*args, **kwargs)
            _found.append(result)
            return result

        monkeypatch.setattr(attention, name, spy)
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "Attention is all you need.")
    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    assert len(calls["split_heads"]) == 3 * 6
    assert len(calls["scaled_dot_product_attention"]) == 6
    assert len(calls["merge_heads"]) == 6
    for index, layer in enumerate(trace.layers):
        assert layer.heads is calls["scaled_dot_product_attention"][index]
        assert layer.q is calls["split_heads"][3 * index]
        assert layer.k is calls["split_heads"][3 * index + 1]
        assert layer.v is calls["split_heads"][3 * index + 2]
        assert layer.q.shape == (12, len(encoded), 32)
