"""The NumPy BERT forward pass: every layer's attention is computed by
attention_core.maths.attention's own functions (its norms and GELU: tests/core/test_layers.py)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.maths import attention
from attention_core.pretrained import bert, loading
from attention_core.pretrained.trace import BlockTrace, ModelTrace


def test_every_layer_attends_through_multi_head_attention(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forward pass calls attention.multi_head_attention once per layer with BERT's biased
    projections, and the trace keeps exactly the arrays it returned."""
    calls: list[tuple[tuple, attention.MultiHeadTrace]] = []
    original = attention.multi_head_attention

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append((args, result))
        return result

    monkeypatch.setattr(attention, "multi_head_attention", spy)
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "Attention is all you need.")
    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    assert len(calls) == 6
    for layer, weights, (args, returned) in zip(
        trace.layers, model.weights.layers, calls, strict=True
    ):
        projections = args[2]
        assert projections.b_q is weights.b_q and projections.b_o is weights.b_o
        assert layer.q is returned.q and layer.k is returned.k and layer.v is returned.v
        for name in ("scores", "scaled", "masked", "weights", "context"):
            assert getattr(layer.heads, name) is getattr(returned, name)
        assert layer.q.shape == (12, len(encoded), 32)


def test_the_trace_keeps_each_heads_arrays_but_not_their_concat() -> None:
    """The page's cache counts every byte a trace keeps: the heads' arrays, not [C_1 ... C_H]."""
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "Hello")
    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    assert type(trace.layers[0].heads) is attention.AttentionTrace


def test_a_layer_is_the_block_trace_every_family_returns_in_berts_own_terms() -> None:
    """Post-LayerNorm: attention reads the layer's input itself; no RoPE: Q and K are never
    turned; the attention output is [C_1 ... C_H] W^O + b^O, before the residual."""
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "Attention is all you need.", "Yes.")
    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    assert isinstance(trace, ModelTrace) and trace.logits is None
    first, second = trace.layers[:2]
    assert isinstance(first, BlockTrace)
    assert first.attention_input is first.x and second.x is first.output
    assert first.q_rotated is first.q and first.k_rotated is first.k and first.angles is None
    combined = attention.output_projection(
        first.heads.context, model.weights.layers[0].projections()
    )
    np.testing.assert_array_equal(first.attention_output, combined)
    assert trace.last_hidden_state is trace.layers[-1].output
