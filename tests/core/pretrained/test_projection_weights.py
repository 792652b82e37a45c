"""One head's W^Q, W^K, W^V and the norm before attention, and where a layer's input comes from,
read per family exactly as the forward pass used them: on the tiny random GPT-2, Llama (grouped
K/V heads, RoPE rows reordered at load) and Qwen2 (biases) checkpoints, the bundled BERT, and
tiny GGUF files (a llama's rows stored in RoPE's order, a GPT-2's ``c_attn`` stored transposed),
plain and quantised (Q4_1, Q8_0 repacked; Q4_K dequantised by ``gguf``).

Each head's slices equal the columns of the whole layer's projections bit for bit; its
projections of the layer's attention input give the trace's Q (before RoPE), K and V; the
norm gives the attention input; the embeddings and the residual parts give each layer's input.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

import numpy as np
import pytest

from attention_core.maths.attention import kv_group
from attention_core.maths.layers import layer_norm, rms_norm
from attention_core.maths.projections import Projections
from attention_core.pretrained import Checkpoint, load_checkpoint, loading
from attention_core.pretrained.layer_input import embedded, residual
from attention_core.pretrained.projection_weights import (
    Norm,
    attention_norm,
    head_projections,
)
from attention_core.pretrained.quantised import Quantised, Repacked
from attention_core.pretrained.trace import Model
from tests.core.pretrained.gguf_files import write_gguf
from tests.core.pretrained.gguf_tiny_models import tiny_checkpoint
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model

TEXT = "The cat sat on the mat. The dog sat on the log."
#: GGUF files: (architecture, weight type).
GGUF = (("llama", "Q4_1"), ("llama", "Q4_K"), ("qwen2", "Q8_0"), ("gpt2", "Q4_1"), ("gpt2", "F32"))
CASES = [*CONFIGS, "bert", *(f"gguf-{arch}-{qtype}" for arch, qtype in GGUF)]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Checkpoint]:
    root = tmp_path_factory.mktemp("checkpoints")
    found = {"bert": load_checkpoint(loading.model_directory())}
    for name, config in CONFIGS.items():
        save_model(config, root / name)
        found[name] = load_checkpoint(root / name)
    for arch, qtype in GGUF:
        tiny = tiny_checkpoint(arch)
        path = root / f"{arch}-{qtype}.gguf"
        write_gguf(path, tiny.model, tiny.tokenizer, qtype, tiny.pre)
        found[f"gguf-{arch}-{qtype}"] = load_checkpoint(path)
    return found


def whole_layer(model: Model, layer: int) -> Projections:
    """The layer's projections as its family's forward pass builds them."""
    block = model.layers[layer]
    if model.info.family == "llama":
        return block.projections(model.info, model.interleaved)  # type: ignore[attr-defined]
    return block.projections()


def normed(norm: Norm | None, x: np.ndarray) -> np.ndarray:
    if norm is None:
        return x
    if norm.kind == "RMSNorm":
        return rms_norm(x, norm.gain, norm.eps)
    assert norm.bias is not None
    return layer_norm(x, norm.gain, norm.bias, norm.eps)


@pytest.mark.parametrize("name", CASES)
def test_a_heads_weights_are_the_columns_of_the_layers_projections(
    checkpoints: dict[str, Checkpoint], name: str
) -> None:
    model = checkpoints[name].model
    info, dk = model.info, model.info.d_head
    for layer in range(info.n_layers):
        whole = whole_layer(model, layer)
        for head in range(info.n_heads):
            own = head_projections(model, layer, head)
            kv = kv_group(head, info.n_heads, info.n_kv_heads)
            assert own.kv_head == kv
            for mine, matrix, mine_bias, bias, index in (
                (own.w_q, whole.w_q, own.b_q, whole.b_q, head),
                (own.w_k, whole.w_k, own.b_k, whole.b_k, kv),
                (own.w_v, whole.w_v, own.b_v, whole.b_v, kv),
            ):
                columns = slice(index * dk, (index + 1) * dk)
                np.testing.assert_array_equal(mine, matrix[:, columns])
                assert (mine_bias is None) == (bias is None)
                if bias is not None:
                    np.testing.assert_array_equal(mine_bias, bias[columns])


@pytest.mark.parametrize("name", CASES)
def test_the_norm_and_the_heads_weights_give_the_traces_n_q_k_and_v(
    checkpoints: dict[str, Checkpoint], name: str
) -> None:
    checkpoint = checkpoints[name]
    model = checkpoint.model
    trace = checkpoint.forward(checkpoint.tokenize(TEXT).ids)
    for layer, steps in enumerate(trace.layers):
        norm = attention_norm(model, layer)
        assert (norm is None) == (model.info.family == "bert")
        np.testing.assert_array_equal(normed(norm, steps.x), steps.attention_input)
        for head in range(model.info.n_heads):
            own = head_projections(model, layer, head)
            for w, b, drawn in ((own.w_q, own.b_q, steps.q), (own.w_k, own.b_k, steps.k),
                                (own.w_v, own.b_v, steps.v)):  # fmt: skip
                projected = steps.attention_input @ w + (0 if b is None else b)  # (T, dk)
                np.testing.assert_allclose(projected, drawn[head], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_the_embeddings_and_each_layers_parts_sum_to_the_next_layers_input(
    checkpoints: dict[str, Checkpoint], name: str
) -> None:
    checkpoint = checkpoints[name]
    model = checkpoint.model
    ids = checkpoint.tokenize(TEXT).ids
    trace = checkpoint.forward(ids)
    first = embedded(model, ids)
    assert first.parts[0].rows[0] == f"id {ids[0]}"
    np.testing.assert_array_equal(normed(first.norm, first.summed), trace.layers[0].x)
    for layer, steps in enumerate(trace.layers):
        parts = residual(model, layer, steps)
        np.testing.assert_array_equal(parts.x, steps.x)
        next_input = normed(parts.norm, parts.summed)
        np.testing.assert_allclose(next_input, steps.output, rtol=1e-6, atol=1e-6)
        if parts.norm is None:  # a decoder adds X + A, then M: the very numbers of the pass
            np.testing.assert_array_equal(parts.summed, steps.output)
            np.testing.assert_array_equal(parts.after, steps.x + steps.attention_output)


def test_berts_embeddings_are_its_three_tables_rows_and_a_sentence_pairs_b_rows(
    checkpoints: dict[str, Checkpoint],
) -> None:
    model = checkpoints["bert"].model
    ids, type_ids = np.array([101, 7592, 102, 2088, 102]), np.array([0, 0, 0, 1, 1])
    made = embedded(model, ids, type_ids)
    assert [part.name for part in made.parts] == [
        "word embedding",
        "position embedding",
        "sentence embedding",
    ]
    assert made.parts[2].rows == ("sentence A",) * 3 + ("sentence B",) * 2
    x, _, _ = model.embed(ids, type_ids)
    np.testing.assert_array_equal(normed(made.norm, made.summed), x)


def test_the_gguf_cases_hold_the_layouts_they_are_named_for(
    checkpoints: dict[str, Checkpoint],
) -> None:
    """So the cases above read what they say: quantised blocks, a llama's interleaved rows, a
    GPT-2's ``c_attn`` stored transposed."""
    llama_q4 = checkpoints["gguf-llama-Q4_1"].model
    assert isinstance(llama_q4.layers[0].w_q, Repacked) and llama_q4.interleaved  # type: ignore[attr-defined]
    assert isinstance(checkpoints["gguf-llama-Q4_K"].model.layers[0].w_q, Quantised)
    qwen2 = checkpoints["gguf-qwen2-Q8_0"].model
    assert isinstance(qwen2.layers[0].w_k, Repacked) and not qwen2.interleaved  # type: ignore[attr-defined]
    assert qwen2.layers[0].b_k is not None
    c_attn = checkpoints["gguf-gpt2-Q4_1"].model.layers[0].w_qkv
    assert isinstance(c_attn, Repacked) and c_attn.transposed
    plain = checkpoints["gguf-gpt2-F32"].model.layers[0].w_qkv
    assert isinstance(plain, np.ndarray) and not plain.flags.c_contiguous  # a transposed view
