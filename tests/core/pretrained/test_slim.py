"""The page's slim forward pass keeps the whole pass's numbers, and a head's score splits exactly.

Tiny random checkpoints (tiny_checkpoints.py) and the bundled all-MiniLM-L6-v2: every
layer recomputed from its kept input equals the whole forward pass's layer, the kept
weights and predictions equal the whole pass's, and the split terms sum to the scores.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.pretrained import Checkpoint, bert, load_checkpoint, loading, predictions
from attention_core.pretrained.head_split import BERT_LATER, PAIR, ROTARY, head_score_split
from attention_core.pretrained.slim import layer_steps, slim_forward
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, save_model


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Checkpoint]:
    root = tmp_path_factory.mktemp("slim")
    found = {}
    for name in ("gpt2", "llama"):
        save_model(CONFIGS[name], root / name)
        found[name] = load_checkpoint(root / name)
    found["bert"] = load_checkpoint(loading.model_directory())
    return found


def ids_for(name: str, length: int) -> np.ndarray:
    vocab = 30_000 if name == "bert" else VOCAB_SIZE
    return np.random.default_rng(length).integers(1, vocab, length)


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
def test_every_recomputed_layer_equals_the_whole_pass(models, name: str) -> None:
    checkpoint, ids = models[name], ids_for(name, 17)
    whole = checkpoint.forward(ids)
    slim = slim_forward(checkpoint.model, ids)
    np.testing.assert_array_equal(slim.weights, whole.weights)
    for layer, expected in enumerate(whole.layers):  # the last layer's output too
        steps = layer_steps(checkpoint.model, slim, layer)
        for field in ("x", "attention_input", "q", "k", "v", "q_rotated", "k_rotated"):
            np.testing.assert_array_equal(getattr(steps, field), getattr(expected, field))
        for field in ("angles", "attention_output", "output"):
            np.testing.assert_array_equal(getattr(steps, field), getattr(expected, field))
        for field in ("scores", "scaled", "masked", "weights", "context"):
            np.testing.assert_array_equal(
                getattr(steps.heads, field), getattr(expected.heads, field)
            )


def test_a_sentence_pairs_recomputed_steps_are_berts_whole_pass_number_for_number(
    models,
) -> None:
    """The page keeps the bundled encoder's pass slim too: every step it draws of a pair
    (sentence B's own type embedding) is bert.forward's, bit for bit."""
    model, tokenizer = models["bert"].model, models["bert"].tokenizer
    encoded = loading.encode(tokenizer, "The cat sat on the mat.", "It was tired.")
    whole = bert.forward(loading.load_model().weights, encoded.ids, encoded.type_ids)
    slim = slim_forward(model, encoded.ids, encoded.type_ids)
    assert slim.type_ids is encoded.type_ids and slim.mask is None
    np.testing.assert_array_equal(slim.weights, whole.weights)
    for layer, expected in enumerate(whole.layers):
        steps = layer_steps(model, slim, layer)
        for field in ("x", "attention_input", "q", "k", "v", "attention_output", "output"):
            np.testing.assert_array_equal(getattr(steps, field), getattr(expected, field))
        for field in ("scores", "scaled", "masked", "weights", "context"):
            np.testing.assert_array_equal(
                getattr(steps.heads, field), getattr(expected.heads, field)
            )
    assert head_score_split(model, slim, 0, 2) == (None, PAIR)


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_the_kept_predictions_are_the_whole_logits_reduced(models, name: str) -> None:
    checkpoint, ids = models[name], ids_for(name, 33)
    logits = checkpoint.forward(ids).logits
    slim = slim_forward(checkpoint.model, ids)
    top_ids, top_probs = predictions.top_next(logits)
    ranks, rank_probs = predictions.rank_of_next(logits, ids)
    np.testing.assert_array_equal(slim.top_ids, top_ids)
    np.testing.assert_array_equal(slim.ranks, ranks)
    np.testing.assert_allclose(slim.top_probs, top_probs)
    np.testing.assert_allclose(slim.rank_probs, rank_probs)
    assert slim.mask is not None and not slim.mask[0, 1] and slim.mask[1, 0]


def test_an_encoder_keeps_no_predictions_and_no_mask(models) -> None:
    slim = slim_forward(models["bert"].model, ids_for("bert", 9))
    assert slim.top_ids is None and slim.ranks is None and slim.mask is None


def test_the_slim_pass_keeps_a_fraction_of_the_whole(models) -> None:
    checkpoint, ids = models["bert"], ids_for("bert", 128)
    whole, slim = checkpoint.forward(ids), slim_forward(checkpoint.model, ids)
    assert slim.nbytes < whole.nbytes / 3


@pytest.mark.parametrize("layer", [0, 1, 2])
@pytest.mark.parametrize("head", [0, 3])
def test_a_gpt2_heads_split_sums_to_its_scores_at_each_layer(models, layer: int, head: int) -> None:
    checkpoint, ids = models["gpt2"], ids_for("gpt2", 21)
    slim = slim_forward(checkpoint.model, ids)
    split, _ = head_score_split(checkpoint.model, slim, layer, head)
    assert split is not None
    scores = layer_steps(checkpoint.model, slim, layer).heads.scores[head]
    np.testing.assert_allclose(np.sum(list(split.values()), axis=0), scores, rtol=1e-4, atol=1e-4)
    rest = sum(np.abs(s).sum() for term, s in split.items() if "rest" in term)
    assert (rest < 1e-3) == (layer == 0)  # nothing written before layer 1


def test_berts_split_is_exact_in_layer_one_and_refused_later(models) -> None:
    checkpoint, ids = models["bert"], ids_for("bert", 12)
    slim = slim_forward(checkpoint.model, ids)
    split, _ = head_score_split(checkpoint.model, slim, 0, 2)
    scores = layer_steps(checkpoint.model, slim, 0).heads.scores[2]
    np.testing.assert_allclose(np.sum(list(split.values()), axis=0), scores, rtol=1e-4, atol=1e-4)
    assert head_score_split(checkpoint.model, slim, 1, 2) == (None, BERT_LATER)


def test_a_rotary_model_has_no_position_part(models) -> None:
    slim = slim_forward(models["llama"].model, ids_for("llama", 5))
    assert head_score_split(models["llama"].model, slim, 0, 0) == (None, ROTARY)


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
def test_every_array_of_a_pass_stays_float32(models, name: str) -> None:
    """NumPy 2 turns float32 times a NumPy float64 scalar into float64 (NEP 50): twice the
    memory and time, invisible to the equality tests (float64 is more exact, not less)."""
    trace = models[name].forward(ids_for(name, 9))
    arrays = [trace.last_hidden_state, *([] if trace.logits is None else [trace.logits])]
    for layer in trace.layers:
        arrays += [a for a in vars(layer).values() if isinstance(a, np.ndarray)]
        arrays += [a for a in vars(layer.heads).values() if isinstance(a, np.ndarray)]
    assert {str(a.dtype) for a in arrays} - {"bool"} == {"float32"}
