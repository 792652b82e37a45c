"""GPT-2, Llama (grouped K/V heads, RoPE base 5000) and Qwen2 (Q/K/V biases, tied head) through
``load_checkpoint`` equal transformers' eager attention on tiny random checkpoints.

Each checkpoint is built offline by ``transformers`` and saved as the Hub serves it
(tiny_checkpoints.py); the reference runs in torch float32. Tolerance 1e-5 absolute.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors.numpy import load_file, save_file

from attention_core.boundary.errors import InputError
from attention_core.pretrained import Checkpoint, load_checkpoint
from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, reference, run_reference, save_model

TOLERANCE = 1e-5
LENGTHS = [1, 2, 9, 33, 128]

CONFIGS = {
    "gpt2": transformers.GPT2Config(
        vocab_size=VOCAB_SIZE, n_embd=32, n_head=4, n_layer=3, n_positions=160,
        bos_token_id=0, eos_token_id=0,
    ),
    "llama": transformers.LlamaConfig(
        vocab_size=VOCAB_SIZE, hidden_size=32, intermediate_size=48, num_hidden_layers=3,
        num_attention_heads=4, num_key_value_heads=2, rope_theta=5000.0,
        max_position_embeddings=256, tie_word_embeddings=False,
    ),
    "qwen2": transformers.Qwen2Config(
        vocab_size=VOCAB_SIZE, hidden_size=48, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=6, num_key_value_heads=3, max_position_embeddings=256,
        tie_word_embeddings=True,
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each tiny checkpoint saved once for the module; "sharded" is Llama in many shards."""
    root = tmp_path_factory.mktemp("checkpoints")
    for name, config in CONFIGS.items():
        save_model(config, root / name)
    save_model(CONFIGS["llama"], root / "sharded", max_shard_size="8KB")
    return {name: root / name for name in [*CONFIGS, "sharded"]}


@pytest.fixture(scope="module")
def loaded(folders: dict[str, Path]) -> dict[str, tuple[Checkpoint, transformers.PreTrainedModel]]:
    return {name: (load_checkpoint(path), reference(path)) for name, path in folders.items()}


def assert_equal_to_reference(checkpoint: Checkpoint, model, ids: np.ndarray) -> dict[str, float]:
    ours = checkpoint.forward(ids)
    theirs = run_reference(model, ids)
    errors = {
        "weights": np.abs(ours.weights - theirs["weights"]).max(),
        "hidden": np.abs(ours.last_hidden_state - theirs["hidden"]).max(),
        "logits": np.abs(ours.logits - theirs["logits"]).max(),
    }
    assert ours.weights.shape == theirs["weights"].shape  # (L, H, T, T), H the query heads
    assert max(errors.values()) <= TOLERANCE, errors
    return errors


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("name", [*CONFIGS, "sharded"])
def test_attention_hidden_states_and_logits_equal_transformers_eager(
    loaded: dict, name: str, length: int
) -> None:
    checkpoint, model = loaded[name]
    ids = np.random.default_rng(length).integers(0, VOCAB_SIZE, size=length)
    assert_equal_to_reference(checkpoint, model, ids)


@settings(max_examples=8, deadline=None)
@given(ids=st.lists(st.integers(0, VOCAB_SIZE - 1), min_size=1, max_size=128))
def test_grouped_query_rope_model_equals_transformers_on_any_ids(loaded: dict, ids: list) -> None:
    checkpoint, model = loaded["llama"]
    assert_equal_to_reference(checkpoint, model, np.asarray(ids, dtype=np.int64))


def test_the_sharded_checkpoint_is_read_from_its_index_and_shards(folders: dict) -> None:
    names = {path.name for path in folders["sharded"].iterdir()}
    assert "model.safetensors.index.json" in names and "model.safetensors" not in names
    assert len([name for name in names if name.endswith(".safetensors")]) > 2


def test_the_info_says_what_each_family_is(loaded: dict) -> None:
    gpt2, llama, qwen2 = (loaded[name][0].info for name in CONFIGS)
    assert (gpt2.family, gpt2.positions, gpt2.rotary_base, gpt2.causal) == (
        "gpt2", "absolute", None, True,
    )  # fmt: skip
    assert (gpt2.n_layers, gpt2.n_heads, gpt2.n_kv_heads, gpt2.d_model, gpt2.d_head) == (
        3, 4, 4, 32, 8,
    )  # fmt: skip
    assert (llama.family, llama.positions, llama.rotary_base) == ("llama", "rotary", 5000.0)
    assert (llama.n_heads, llama.n_kv_heads, llama.d_head, llama.max_positions) == (4, 2, 8, 256)
    assert (qwen2.model_type, qwen2.family, qwen2.n_heads, qwen2.n_kv_heads) == (
        "qwen2", "llama", 6, 3,
    )  # fmt: skip
    assert qwen2.rotary_base == 10_000.0 and qwen2.vocab_size == VOCAB_SIZE


def test_a_rotary_layer_keeps_queries_and_keys_before_and_after_rotation(loaded: dict) -> None:
    checkpoint, _ = loaded["llama"]
    layer = checkpoint.forward(np.arange(5)).layers[0]
    assert layer.angles is not None and layer.angles.shape == (5, 4)  # (T, dk/2)
    np.testing.assert_allclose(layer.angles[3, 1], 3 * 5000.0 ** (-2 / 8), rtol=1e-6)
    np.testing.assert_array_equal(layer.q_rotated[:, 0], layer.q[:, 0])  # position 0: no turn
    assert not np.allclose(layer.k_rotated[:, 1:], layer.k[:, 1:])
    # query heads 0, 1 read K/V head 0; heads 2, 3 read K/V head 1
    np.testing.assert_array_equal(layer.k[0], layer.k[1])
    np.testing.assert_array_equal(layer.v[2], layer.v[3])
    assert not np.array_equal(layer.k[1], layer.k[2])


def test_an_absolute_position_decoder_keeps_its_token_and_position_rows(loaded: dict) -> None:
    checkpoint, model = loaded["gpt2"]
    trace = checkpoint.forward(np.array([5, 7, 5]))
    table = model.transformer.wte.weight.detach().numpy()
    np.testing.assert_array_equal(trace.token_embeddings, table[[5, 7, 5]])
    np.testing.assert_array_equal(
        trace.layers[0].x, trace.token_embeddings + trace.position_embeddings
    )
    assert trace.layers[0].angles is None and trace.layers[0].q_rotated is trace.layers[0].q
    assert trace.layers[0].heads.mask is not None and not trace.layers[0].heads.mask[0, 1]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_half_precision_weights_are_widened_to_the_same_numbers(tmp_path: Path, dtype) -> None:
    save_model(CONFIGS["llama"], tmp_path, dtype=dtype)
    checkpoint = load_checkpoint(tmp_path)
    stored = checkpoint.model.layers[0].w_q  # mapped as stored: float16, or bfloat16's uint16
    assert stored.dtype == (np.float16 if dtype == torch.float16 else np.uint16)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        tmp_path, attn_implementation="eager", dtype=torch.float32
    ).eval()
    assert_equal_to_reference(checkpoint, model, np.arange(40) % VOCAB_SIZE)


def test_a_long_text_is_cut_to_128_tokens_and_the_cut_is_counted(loaded: dict) -> None:
    checkpoint, _ = loaded["gpt2"]
    tokens = checkpoint.tokenize(" ".join(f"w{i % 90 + 1}" for i in range(200)))
    assert (len(tokens), tokens.cut, tokens.ids.shape) == (128, 72, (128,))
    assert tokens.tokens[:3] == ("w1", "w2", "w3") and tokens.labels[90] == "w1₂"
    checkpoint.forward(tokens.ids)  # 128 tokens run


def test_a_short_text_is_tokenized_whole(loaded: dict) -> None:
    tokens = loaded["qwen2"][0].tokenize("w5 w6 w5")
    assert tokens.ids.tolist() == [5, 6, 5] and tokens.cut == 0
    assert tokens.labels == ("w5", "w6", "w5₂")


@pytest.mark.parametrize("text", ["", "   ", "\u200b\n"])
def test_an_empty_text_is_refused(loaded: dict, text: str) -> None:
    with pytest.raises(InputError, match="empty"):
        loaded["llama"][0].tokenize(text)


@pytest.mark.parametrize("ids", [[], [VOCAB_SIZE], [-1], [[1, 2]], [0.5], list(range(129))])
def test_ids_outside_the_vocabulary_or_the_length_limit_are_refused(loaded: dict, ids) -> None:
    with pytest.raises(InputError):
        loaded["gpt2"][0].forward(ids)


def test_gpt2_as_the_hub_stores_it_loads_the_same_numbers(folders: dict, tmp_path: Path) -> None:
    """The Hub's GPT-2 files name tensors without "transformer." and keep old mask buffers."""
    tensors = load_file(folders["gpt2"] / "model.safetensors")
    assert "transformer.wte.weight" in tensors
    hub = {name.removeprefix("transformer."): tensor for name, tensor in tensors.items()}
    hub["h.0.attn.bias"] = np.tril(np.ones((1, 1, 4, 4), dtype=bool))
    hub["h.0.attn.masked_bias"] = np.array(-1e4, dtype=np.float32)
    folder = Path(shutil.copytree(folders["gpt2"], tmp_path / "hub"))
    save_file(hub, folder / "model.safetensors")
    ids = np.array([3, 1, 4, 1, 5])
    ours = load_checkpoint(folder).forward(ids)
    np.testing.assert_array_equal(ours.logits, load_checkpoint(folders["gpt2"]).forward(ids).logits)


def test_a_weight_stored_as_integers_is_refused(folders: dict, tmp_path: Path) -> None:
    tensors = load_file(folders["llama"] / "model.safetensors")
    tensors["model.norm.weight"] = np.ones(32, dtype=np.int64)
    folder = Path(shutil.copytree(folders["llama"], tmp_path / "ints"))
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(InputError, match=r"norm\.weight is stored as int64"):
        load_checkpoint(folder)


def test_llama_with_wide_heads_one_kv_head_and_biases_on_q_k_v_o_equals_transformers(
    tmp_path: Path,
) -> None:
    """head_dim 16 given explicitly (4 heads x 16 > width 32), multi-query attention, and
    Llama's attention_bias (biases on Q, K, V and O), LM head tied."""
    config = transformers.LlamaConfig(
        vocab_size=VOCAB_SIZE, hidden_size=32, intermediate_size=40, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=1, head_dim=16, attention_bias=True,
        max_position_embeddings=128, tie_word_embeddings=True, rope_theta=200.0,
    )  # fmt: skip
    save_model(config, tmp_path)
    checkpoint = load_checkpoint(tmp_path)
    assert (checkpoint.info.d_head, checkpoint.info.n_kv_heads) == (16, 1)
    for length in (3, 128):
        ids = np.random.default_rng(length).integers(0, VOCAB_SIZE, size=length)
        assert_equal_to_reference(checkpoint, reference(tmp_path), ids)


def test_a_trace_counts_each_of_its_arrays_once(loaded: dict) -> None:
    trace = loaded["llama"][0].forward(np.arange(10))
    every = [trace.last_hidden_state, trace.logits]
    for layer in trace.layers:
        every += [*vars(layer).values(), *vars(layer.heads).values()]
    every = [a for a in every if isinstance(a, np.ndarray)]
    distinct = {id(a): a.nbytes for a in every}
    assert trace.layers[1].x is trace.layers[0].output  # one array, counted once
    assert trace.layers[0].q is not trace.layers[0].q_rotated  # RoPE: both kept
    assert trace.nbytes == sum(distinct.values()) < sum(a.nbytes for a in every)
    assert trace.weights.shape == (3, 4, 10, 10)


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_a_decoder_takes_no_sentence_ids_it_reads_one_text(loaded: dict, name: str) -> None:
    model = loaded[name][0].model
    ids = np.arange(4)
    with pytest.raises(ValueError, match="one text"):
        model.embed(ids, np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(model.embed(ids)[0], model.embed(ids, None)[0])
