"""Heads turned off in GPT-2, Llama (grouped K/V heads, RoPE), Qwen2 and BERT.

Nothing off changes nothing, bit for bit; a zeroed head equals its slice of W_O zeroed by hand;
and the result equals transformers with that head's output replaced by a forward pre-hook on
``c_proj`` / ``o_proj`` (BERT: ``attention.output.dense``), which sees the heads side by side
``(B, T, H*dk)`` before W_O: zeroed, or its positional mean. Tiny random checkpoints
(tiny_checkpoints.py, the ones test_families.py uses) and the bundled all-MiniLM-L6-v2;
tolerance 1e-5 absolute.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
import transformers

from attention_core.boundary.errors import InputError
from attention_core.maths.ablation import Ablation
from attention_core.pretrained import Checkpoint, ModelTrace, bert, load_checkpoint, loading
from attention_core.pretrained.slim import layer_steps, slim_forward
from tests.core.pretrained.ablation_hooks import heads_replaced
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, reference, save_model

TOLERANCE = 1e-5
#: Heads off in each tiny model: two layers, first and last heads among them.
OFF = {
    "gpt2": [(0, 1), (2, 3)],
    "llama": [(0, 0), (1, 3), (2, 1)],  # query heads 0 and 1 share K/V head 0
    "qwen2": [(0, 5), (1, 2)],
}


@pytest.fixture(scope="module")
def loaded(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Checkpoint, transformers.PreTrainedModel]]:
    root = tmp_path_factory.mktemp("ablation")
    for name, config in CONFIGS.items():
        save_model(config, root / name)
    return {name: (load_checkpoint(root / name), reference(root / name)) for name in CONFIGS}


def assert_same_pass(ours: ModelTrace, theirs: ModelTrace) -> None:
    assert ours.logits is not None and theirs.logits is not None
    assert np.array_equal(ours.logits, theirs.logits)
    assert np.array_equal(ours.last_hidden_state, theirs.last_hidden_state)
    for mine, other in zip(ours.layers, theirs.layers, strict=True):
        for name in ("attention_output", "output", "q", "k", "v"):
            assert np.array_equal(getattr(mine, name), getattr(other, name)), name
        assert np.array_equal(mine.heads.weights, other.heads.weights)


def with_w_o_slices_zeroed(checkpoint: Checkpoint, off: list[tuple[int, int]]) -> Checkpoint:
    """The same model with each ablated head's slice of W_O zeroed by hand: GPT-2 stores W_O
    as ``(H*dk, d)`` (rows), the Llama family as ``(d, H*dk)`` (columns)."""
    model, d_head = checkpoint.model, checkpoint.info.d_head
    layers = list(model.layers)
    for index, head in off:
        w_o = np.array(layers[index].w_o, dtype=np.float32)
        cut = slice(head * d_head, (head + 1) * d_head)
        if checkpoint.info.family == "gpt2":
            w_o[cut, :] = 0.0
        else:
            w_o[:, cut] = 0.0
        layers[index] = replace(layers[index], w_o=w_o)
    return replace(checkpoint, model=replace(model, layers=tuple(layers)))  # type: ignore[type-var]


def ids(length: int) -> np.ndarray:
    return np.random.default_rng(length).integers(0, VOCAB_SIZE, size=length)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_turning_no_head_off_changes_nothing_bit_for_bit(loaded: dict, name: str) -> None:
    checkpoint, _ = loaded[name]
    intact = checkpoint.forward(ids(9))
    assert_same_pass(checkpoint.forward(ids(9), ablation=None), intact)
    assert_same_pass(checkpoint.forward(ids(9), ablation=Ablation(frozenset())), intact)
    assert_same_pass(checkpoint.forward(ids(9), ablation=Ablation(frozenset(), "mean")), intact)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_zeroing_heads_equals_zeroing_their_slice_of_w_o_by_hand(loaded: dict, name: str) -> None:
    checkpoint, _ = loaded[name]
    ablated = checkpoint.forward(ids(12), ablation=Ablation.of(OFF[name]))
    by_hand = with_w_o_slices_zeroed(checkpoint, OFF[name]).forward(ids(12))
    assert ablated.logits is not None and by_hand.logits is not None
    np.testing.assert_allclose(ablated.logits, by_hand.logits, rtol=0, atol=TOLERANCE)
    assert not np.allclose(ablated.logits, checkpoint.forward(ids(12)).logits, atol=1e-3)


@pytest.mark.parametrize("length", [1, 7, 33])
@pytest.mark.parametrize("kind", ["zero", "mean"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_ablated_heads_equal_transformers_with_their_output_replaced_by_a_hook(
    loaded: dict, name: str, kind: str, length: int
) -> None:
    checkpoint, model = loaded[name]
    ablation = Ablation.of(OFF[name], kind)  # type: ignore[arg-type]
    ours = checkpoint.forward(ids(length), ablation=ablation)
    with torch.no_grad(), heads_replaced(model, ablation, checkpoint.info.d_head):
        output = model(input_ids=torch.tensor(ids(length)[None]), output_attentions=True)
    theirs = output.logits[0].numpy()
    assert ours.logits is not None
    np.testing.assert_allclose(ours.logits, theirs, rtol=0, atol=TOLERANCE)
    for layer, weights in zip(ours.layers, output.attentions, strict=True):
        np.testing.assert_allclose(layer.heads.weights, weights[0].numpy(), rtol=0, atol=TOLERANCE)
    with torch.no_grad():  # the hooks are gone: transformers' model is intact again
        intact = model(input_ids=torch.tensor(ids(length)[None])).logits[0].numpy()
    if length > 1 or kind == "zero":  # one token's mean is itself
        assert not np.allclose(intact, theirs, atol=1e-3)


def test_the_slim_pass_keeps_the_ablation_and_redraws_a_layer_with_it(loaded: dict) -> None:
    checkpoint, _ = loaded["llama"]
    ablation = Ablation.of(OFF["llama"], "mean")
    whole = checkpoint.forward(ids(10), ablation=ablation)
    slim = slim_forward(checkpoint.model, ids(10), ablation=ablation)
    assert slim.ablation == ablation
    np.testing.assert_array_equal(slim.weights, whole.weights)
    np.testing.assert_array_equal(slim.final_output, whole.layers[-1].output)
    redrawn = layer_steps(checkpoint.model, slim, 1)
    np.testing.assert_array_equal(redrawn.attention_output, whole.layers[1].attention_output)


def test_a_head_the_model_does_not_have_is_refused_in_words(loaded: dict) -> None:
    checkpoint, _ = loaded["qwen2"]  # 2 layers of 6 heads
    with pytest.raises(InputError, match="Layer 1 has no head 6: each layer has heads 0 to 5"):
        checkpoint.forward(ids(3), ablation=Ablation.of([(1, 6)]))
    with pytest.raises(InputError, match="There is no layer 2: this model has layers 0 to 1"):
        checkpoint.forward(ids(3), ablation=Ablation.of([(2, 0)]))
    every = Ablation.of([(layer, head) for layer in range(2) for head in range(6)])
    with pytest.raises(InputError, match="turns off all 12 heads"):
        checkpoint.forward(ids(3), ablation=every)
    assert checkpoint.model.forward(ids(3), ablation=every).logits is not None  # the core runs it


# --- BERT (all-MiniLM-L6-v2): the encoder's heads, the same way -----------------------------

BERT_OFF = [(0, 3), (2, 0), (5, 11)]


@pytest.fixture(scope="module")
def encoder() -> loading.PretrainedModel:
    return loading.load_model()


def encoded(encoder: loading.PretrainedModel) -> loading.Encoded:
    return loading.encode(encoder.tokenizer, "The animal didn't cross the street.", "It was tired.")


def test_bert_with_no_head_off_is_unchanged_bit_for_bit(encoder: loading.PretrainedModel) -> None:
    tokens = encoded(encoder)
    intact = bert.forward(encoder.weights, tokens.ids, tokens.type_ids)
    for ablation in (None, Ablation(frozenset()), Ablation(frozenset(), "mean")):
        again = bert.forward(encoder.weights, tokens.ids, tokens.type_ids, ablation)
        assert np.array_equal(again.last_hidden_state, intact.last_hidden_state)
        for mine, other in zip(again.layers, intact.layers, strict=True):
            assert np.array_equal(mine.attention_output, other.attention_output)
            assert np.array_equal(mine.output, other.output)


def test_zeroing_bert_heads_equals_zeroing_their_rows_of_w_o_by_hand(
    encoder: loading.PretrainedModel,
) -> None:
    tokens, weights = encoded(encoder), encoder.weights
    d_head = weights.d_model // weights.n_heads
    layers = list(weights.layers)
    for index, head in BERT_OFF:
        w_o = np.array(layers[index].w_o)
        w_o[head * d_head : (head + 1) * d_head] = 0.0
        layers[index] = replace(layers[index], w_o=w_o)
    by_hand = bert.forward(replace(weights, layers=tuple(layers)), tokens.ids, tokens.type_ids)
    ablated = bert.forward(weights, tokens.ids, tokens.type_ids, Ablation.of(BERT_OFF))
    np.testing.assert_allclose(ablated.last_hidden_state, by_hand.last_hidden_state, atol=1e-6)


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_ablated_bert_equals_bert_model_with_a_hook(
    encoder: loading.PretrainedModel, kind: str
) -> None:
    tokens = encoded(encoder)
    ablation = Ablation.of(BERT_OFF, kind)  # type: ignore[arg-type]
    ours = bert.forward(encoder.weights, tokens.ids, tokens.type_ids, ablation)
    model = transformers.BertModel.from_pretrained(
        str(encoder.directory), attn_implementation="eager", local_files_only=True
    ).eval()
    d_head = encoder.weights.d_model // encoder.weights.n_heads
    with torch.no_grad(), heads_replaced(model, ablation, d_head):
        theirs = model(
            input_ids=torch.tensor(tokens.ids[None]),
            token_type_ids=torch.tensor(tokens.type_ids[None]),
        ).last_hidden_state[0]
    np.testing.assert_allclose(ours.last_hidden_state, theirs.numpy(), rtol=0, atol=TOLERANCE)
