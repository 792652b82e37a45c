"""The NumPy BERT forward pass: every layer's attention is computed by
attention_core.maths.attention's own functions (its norms and GELU: tests/core/test_layers.py)."""

from __future__ import annotations

import pytest

from attention_core.maths import attention
from attention_core.pretrained import bert, loading


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
