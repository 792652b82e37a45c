"""Our forward pass on the real SmolLM2-135M-Instruct GGUF equals transformers reading the
same file (``from_pretrained(..., gguf_file=...)``, eager attention): attention weights to
1e-4, final hidden states and logits to 1e-4 relative, the same top-1 token at every
position, on sentences of 1 to 128 tokens. And it knows real facts.
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

from attention_core.pretrained import Checkpoint, load_checkpoint, predictions
from hosting.models.packaged import SMOLLM2_INSTRUCT, check
from tests.real.model_file import real_decoder_file

LONG = (
    "The old lighthouse keeper climbed the spiral stairs every evening at dusk. He trimmed "
    "the wick, polished the great lens and watched the ships pass on the dark water. One "
    "winter night a storm rolled in from the north, and the waves rose higher than the "
    "rocks. A small fishing boat lost its way in the rain. The keeper saw its lantern "
    "flicker, rang the bell and kept the light turning until dawn. When the sun came up, "
    "the boat was safe in the harbour, and the fishermen walked up the hill to thank him. "
    "He made them tea and told them stories about the sea, the birds and the long nights "
    "alone with the light, until the afternoon."
)
SENTENCES = (
    "Hello",
    "The animal didn't cross the street because it was too tired.",
    'In 2024, 3 cats and 12 dogs met at the café: "Bonjour!"\nThen they left.',
    LONG,
)


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


def test_the_file_is_the_pinned_one(path: Path) -> None:
    check(SMOLLM2_INSTRUCT, path)  # raises unless the SHA-256 is the pinned one


def test_the_model_is_the_real_size(ours: Checkpoint) -> None:
    info = ours.info
    sizes = (info.n_layers, info.n_heads, info.n_kv_heads, info.d_model, info.vocab_size)
    assert sizes == (30, 9, 3, 576, 49152)
    assert info.family == "llama"
    assert info.rotary_base == 100_000.0


@pytest.mark.parametrize("text", SENTENCES)
def test_every_layer_hidden_state_and_logit_equals_transformers(
    ours: Checkpoint, reference: transformers.PreTrainedModel, text: str
) -> None:
    tokens = ours.tokenize(text)
    trace = ours.forward(tokens.ids)
    with torch.no_grad():
        expected = reference(
            torch.tensor(tokens.ids)[None], output_attentions=True, output_hidden_states=True
        )
    assert len(trace.layers) == len(expected.attentions) == 30
    for layer, attention in zip(trace.layers, expected.attentions, strict=True):
        np.testing.assert_allclose(layer.heads.weights, attention[0].numpy(), rtol=0, atol=1e-4)
    hidden = expected.hidden_states[-1][0].numpy()  # after the final RMSNorm
    logits = expected.logits[0].numpy()
    assert np.abs(trace.last_hidden_state - hidden).max() <= 1e-4 * np.abs(hidden).max()
    assert trace.logits is not None
    assert np.abs(trace.logits - logits).max() <= 1e-4 * np.abs(logits).max()
    np.testing.assert_array_equal(trace.logits.argmax(axis=1), logits.argmax(axis=1))


def test_the_inputs_run_from_one_to_the_longest_the_page_allows(ours: Checkpoint) -> None:
    lengths = [len(ours.tokenize(text)) for text in SENTENCES]
    assert min(lengths) == 1
    assert max(lengths) == 128  # LONG is cut to the page's limit
    assert ours.tokenize(LONG).cut > 0


def _top(ours: Checkpoint, text: str, k: int = 5) -> list[tuple[str, float]]:
    tokens = ours.tokenize(text)
    logits = ours.forward(tokens.ids).logits
    ids, probabilities = predictions.top_next(logits, k=k)
    decode = ours.tokenizer.whole.decode
    return [(decode([int(i)]), float(p)) for i, p in zip(ids[-1], probabilities[-1], strict=True)]


def test_it_knows_the_capital_of_france(ours: Checkpoint) -> None:
    (first, probability), *_ = _top(ours, "The capital of France is")
    assert first == " Paris"
    assert probability > 0.5


def test_it_continues_a_story_with_words_that_fit(ours: Checkpoint) -> None:
    guesses = [word for word, _ in _top(ours, "Once upon a time there was a")]
    assert guesses[:5] == [" small", " town", " woman", " young", " man"]
