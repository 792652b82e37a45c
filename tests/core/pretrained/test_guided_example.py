"""The issue's claim, measured: on the guided sentence, layer 4 head 2 and layer 6 head 12
(1-based) send >= 0.6 of "it"'s attention to "animal", and no other head does."""

from __future__ import annotations

import numpy as np

from attention_core.pretrained import bert, loading
from ui.pretrained.guided import GUIDED_TEXT, strong_heads


def test_two_heads_link_it_to_animal() -> None:
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, GUIDED_TEXT)
    weights = bert.forward(model.weights, encoded.ids, encoded.type_ids).weights
    it, animal = encoded.tokens.index("it"), encoded.tokens.index("animal")
    assert (it, animal) == (10, 2)
    found = strong_heads(weights, it, animal, 0.6)
    assert [(layer + 1, head + 1) for layer, head, _ in found] == [(4, 2), (6, 12)]
    np.testing.assert_allclose([value for _, _, value in found], [0.6768, 0.6733], atol=1e-4)
    assert float(weights[:, :, it, animal].mean()) < 0.1
