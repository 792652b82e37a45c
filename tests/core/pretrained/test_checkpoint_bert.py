"""all-MiniLM-L6-v2 through ``load_checkpoint`` is exactly today's ``bert.forward``."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.maths.attention import output_projection
from attention_core.pretrained import Checkpoint, bert, load_checkpoint, loading


@pytest.fixture(scope="module")
def checkpoint() -> Checkpoint:
    return load_checkpoint(loading.model_directory())


def test_minilm_loads_as_a_bidirectional_absolute_position_bert(checkpoint: Checkpoint) -> None:
    info = checkpoint.info
    assert (info.name, info.family, info.causal, info.positions, info.rotary_base) == (
        "all-MiniLM-L6-v2", "bert", False, "absolute", None,
    )  # fmt: skip
    assert (info.n_layers, info.n_heads, info.n_kv_heads, info.d_model, info.d_head) == (
        6, 12, 12, 384, 32,
    )  # fmt: skip
    assert (info.vocab_size, info.max_positions) == (30522, 512)


@pytest.mark.parametrize("text", ["The animal didn't cross the street.", "a", "repeat " * 200])
def test_the_trace_is_todays_bert_forward_number_for_number(
    checkpoint: Checkpoint, text: str
) -> None:
    tokens = checkpoint.tokenize(text)
    encoded = loading.encode(checkpoint.tokenizer, text)
    assert tokens.ids.tolist() == encoded.ids.tolist() and tokens.cut == encoded.cut
    assert tokens.tokens == encoded.tokens and tokens.labels == encoded.labels
    trace = checkpoint.forward(tokens.ids)
    today = bert.forward(
        loading.load_weights(loading.model_directory()), encoded.ids, encoded.type_ids
    )
    np.testing.assert_array_equal(trace.weights, today.weights)
    np.testing.assert_array_equal(trace.last_hidden_state, today.last_hidden_state)
    assert trace.logits is None and len(trace.layers) == 6
    first = trace.layers[0]
    np.testing.assert_array_equal(first.q, today.layers[0].q)
    weights = loading.load_weights(loading.model_directory()).layers[0]
    attended = output_projection(first.heads.context, weights.projections())
    np.testing.assert_array_equal(first.attention_output, attended)


def test_a_long_text_is_cut_to_128_and_the_cut_reported(checkpoint: Checkpoint) -> None:
    tokens = checkpoint.tokenize("word " * 300)
    assert len(tokens) == 128 and tokens.cut == 300 + 2 - 128
