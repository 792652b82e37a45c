"""Heads turned off in the real SmolLM2-135M-Instruct GGUF equal transformers reading the same
file with those heads' outputs replaced by forward pre-hooks on ``o_proj`` (zeroed, or their
mean over the positions), on 16 tokens.

The intact passes already differ by ~1e-4 in absolute terms on logits of size ~30 (float32
through 30 layers, test_real_decoder.py allows 1e-4 relative); here the ablated logits and final
hidden states agree to 1e-5 *relative to their largest value*, and the attention weights to
1e-4, as the intact ones. Ablation moves the logits by far more than that.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers

from attention_core.maths.ablation import Ablation
from attention_core.pretrained import Checkpoint, ModelTrace, load_checkpoint
from tests.core.pretrained.ablation_hooks import heads_replaced
from tests.real.model_file import real_decoder_file

LENGTH = 16
#: Heads off: the first and last layers, and two between (SmolLM2: 30 layers of 9 heads).
OFF = [(0, 2), (5, 4), (14, 8), (29, 0)]


@pytest.fixture(scope="module")
def path() -> Path:
    return real_decoder_file()


@pytest.fixture(scope="module")
def ours(path: Path) -> Checkpoint:
    return load_checkpoint(path)


@pytest.fixture(scope="module")
def reference(path: Path) -> Iterator[transformers.PreTrainedModel]:
    torch.set_num_threads(2)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, attn_implementation="eager", dtype=torch.float32
    ).eval()
    yield model
    del model


@pytest.fixture(scope="module")
def ids(ours: Checkpoint) -> np.ndarray:
    text = "The cat sat on the mat. The cat sat on the mat. The cat sat on the mat."
    return ours.tokenize(text).ids[:LENGTH]


@pytest.fixture(scope="module")
def intact(ours: Checkpoint, ids: np.ndarray) -> ModelTrace:
    return ours.forward(ids)


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_ablated_heads_equal_transformers_with_their_output_replaced_by_a_hook(
    ours: Checkpoint,
    reference: transformers.PreTrainedModel,
    ids: np.ndarray,
    intact: ModelTrace,
    kind: str,
) -> None:
    assert len(ids) == LENGTH
    ablation = Ablation.of(OFF, kind)  # type: ignore[arg-type]
    trace = ours.forward(ids, ablation=ablation)
    with torch.no_grad(), heads_replaced(reference, ablation, ours.info.d_head):
        expected = reference(
            torch.tensor(ids)[None], output_attentions=True, output_hidden_states=True
        )
    logits, hidden = expected.logits[0].numpy(), expected.hidden_states[-1][0].numpy()
    assert trace.logits is not None
    error = np.abs(trace.logits - logits).max()
    assert error <= 1e-5 * np.abs(logits).max()
    assert np.abs(trace.last_hidden_state - hidden).max() <= 1e-5 * np.abs(hidden).max()
    for layer, attention in zip(trace.layers, expected.attentions, strict=True):
        np.testing.assert_allclose(layer.heads.weights, attention[0].numpy(), rtol=0, atol=1e-4)
    assert intact.logits is not None
    assert np.abs(intact.logits - trace.logits).max() > 100 * error


def test_no_head_off_is_the_real_model_bit_for_bit(
    ours: Checkpoint, ids: np.ndarray, intact: ModelTrace
) -> None:
    again = ours.forward(ids, ablation=Ablation(frozenset()))
    assert intact.logits is not None and again.logits is not None
    assert np.array_equal(again.logits, intact.logits)
    assert np.array_equal(again.last_hidden_state, intact.last_hidden_state)
