"""The tiny GGUF files are what llama.cpp would write: transformers reads them back exactly.

transformers' GGUF reader undoes llama.cpp's conventions (tensor names, the Llama W_Q/W_K
permutation, GPT-2's transposed Conv1D weights, the metadata keys); a file that reads back to
the source model's own logits and attention weights was written in those conventions.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest
import torch
import transformers

from tests.core.pretrained import gguf_files
from tests.core.pretrained.gguf_files import QTYPES, llama_permute, llama_unpermute, write_gguf
from tests.core.pretrained.gguf_kquants import K_QUANT_ENCODERS
from tests.core.pretrained.gguf_tiny_models import tiny_checkpoint, tiny_tokenizer

SENTENCE = "The query of one token is compared with the key of every other token; the scores"
CHECKPOINTS = [("llama", False), ("llama", True), ("qwen2", None), ("gpt2", None)]

# How far a quantised file's logits may be from the F32 file's: ||Δ logits|| / ||logits||.
# These random two-layer models move their logits about 6.5x as far (relative) as rounding
# moves their weights (Q8_0: weights 0.5%, logits 3%; Q4_0: 8%, 49%); each bound is about
# 1.5x the largest error measured on the three architectures. A file in the wrong layout
# (W_Q/W_K left unpermuted) is at 1.03, so even the 4-bit bounds tell the two apart.
LOGITS_RELATIVE_TOLERANCE = {
    "F16": 0.003,
    "BF16": 0.02,
    "Q8_0": 0.06,
    "Q6_K": 0.2,
    "Q5_K": 0.4,
    "Q4_K": 0.7,
    "Q4_1": 0.7,
    "Q4_0": 0.7,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gguf")


def read_with_transformers(path: Path) -> transformers.PreTrainedModel:
    """transformers' reading of a GGUF file: eager attention, float32, eval mode."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, attn_implementation="eager", dtype=torch.float32
    )
    return model.eval()


def run(model: transformers.PreTrainedModel) -> dict[str, np.ndarray]:
    """Logits (T, V) and attention weights (L, H, T, T) of ``model`` on ``SENTENCE``."""
    ids = torch.tensor([tiny_tokenizer().encode(SENTENCE).ids])  # the same ids for every model
    with torch.no_grad():
        output = model(input_ids=ids, output_attentions=True)
    return {
        "logits": output.logits[0].numpy(),
        "weights": torch.stack([a[0] for a in output.attentions]).numpy(),
    }


def relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    return float(np.linalg.norm(actual - expected) / np.linalg.norm(expected))


@pytest.mark.parametrize(("architecture", "tied"), CHECKPOINTS)
def test_transformers_reads_each_f32_file_back_to_the_source_logits_and_weights(
    folder: Path, architecture: str, tied: bool | None
) -> None:
    checkpoint = tiny_checkpoint(architecture, tied)
    path = folder / f"{architecture}-{tied}-F32.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    expected, actual = run(checkpoint.model), run(read_with_transformers(path))
    np.testing.assert_allclose(actual["logits"], expected["logits"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(actual["weights"], expected["weights"], rtol=0, atol=1e-6)
    # the comparison means something: a typical row's largest weight is over 5x a uniform row's
    peaks = expected["weights"].max(axis=-1) * np.arange(1, expected["weights"].shape[-1] + 1)
    assert np.median(peaks) > 5


def test_the_config_transformers_reads_is_the_source_config(folder: Path) -> None:
    checkpoint = tiny_checkpoint("llama")
    path = folder / "llama-config.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    config = read_with_transformers(path).config
    assert config.rope_parameters["rope_theta"] == 50_000.0
    assert (config.num_attention_heads, config.num_key_value_heads, config.head_dim) == (4, 2, 64)
    assert (config.hidden_size, config.intermediate_size, config.vocab_size) == (256, 512, 384)
    assert config.tie_word_embeddings is False


def test_the_llama_permutation_interleaves_the_rotated_halves_of_each_head() -> None:
    rows = np.arange(16).reshape(16, 1)  # 2 heads of 8: halves (0-3, 4-7) and (8-11, 12-15)
    permuted = llama_permute(rows, n_head=2)
    assert permuted[:, 0].tolist() == [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]
    assert np.array_equal(llama_unpermute(permuted, n_head=2), rows)


def test_a_llama_file_without_the_permutation_does_not_read_back(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkpoint = tiny_checkpoint("llama")
    monkeypatch.setattr(gguf_files, "llama_permute", lambda weight, n_head: weight)
    path = folder / "llama-unpermuted.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    expected, actual = run(checkpoint.model), run(read_with_transformers(path))
    assert relative_error(actual["logits"], expected["logits"]) > 0.5


def test_gpt2_stores_its_conv1d_weights_as_out_by_in(folder: Path) -> None:
    checkpoint = tiny_checkpoint("gpt2")
    path = folder / "gpt2-layout.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    tensors = {tensor.name: tensor for tensor in gguf.GGUFReader(path).tensors}
    c_attn = checkpoint.model.state_dict()["transformer.h.0.attn.c_attn.weight"]  # (in, out)
    assert tensors["blk.0.attn_qkv.weight"].shape.tolist() == [256, 768]  # ggml: ne0 = in
    assert np.array_equal(tensors["blk.0.attn_qkv.weight"].data, c_attn.numpy().T)


# Keys and value types as llama.cpp's converter writes them for each architecture. The llama
# set is the one in SmolLM2-135M-Instruct's Q4_1 GGUF, key for key and type for type, less the
# keys that file takes from its model card and tokenizer_config.json (license, chat template,
# unknown and padding ids, add_space_prefix).
COMMON_KEYS = {
    "general.architecture": "STRING",
    "general.type": "STRING",
    "general.name": "STRING",
    "general.file_type": "UINT32",
    "general.quantization_version": "UINT32",
    "tokenizer.ggml.model": "STRING",
    "tokenizer.ggml.pre": "STRING",
    "tokenizer.ggml.tokens": "ARRAY[STRING]",
    "tokenizer.ggml.token_type": "ARRAY[INT32]",
    "tokenizer.ggml.merges": "ARRAY[STRING]",
    "tokenizer.ggml.bos_token_id": "UINT32",
    "tokenizer.ggml.eos_token_id": "UINT32",
    "tokenizer.ggml.add_bos_token": "BOOL",
}
SHAPE_KEYS = ("block_count", "context_length", "embedding_length", "feed_forward_length")
HEAD_KEYS = ("attention.head_count", "attention.head_count_kv")
DECODER_KEYS = dict.fromkeys((*SHAPE_KEYS, *HEAD_KEYS), "UINT32") | {
    "rope.freq_base": "FLOAT32",
    "attention.layer_norm_rms_epsilon": "FLOAT32",
}
ARCHITECTURE_KEYS = {
    "llama": DECODER_KEYS | {"vocab_size": "UINT32", "rope.dimension_count": "UINT32"},
    "qwen2": DECODER_KEYS,
    "gpt2": dict.fromkeys((*SHAPE_KEYS, "attention.head_count"), "UINT32")
    | {"attention.layer_norm_epsilon": "FLOAT32"},
}


def value_type(field: gguf.ReaderField) -> str:
    names = [gguf.GGUFValueType(t).name for t in field.types]
    return names[0] if len(names) == 1 else f"{names[0]}[{names[1]}]"


@pytest.mark.parametrize("architecture", ["llama", "qwen2", "gpt2"])
def test_the_metadata_has_llama_cpps_keys_and_value_types(folder: Path, architecture: str) -> None:
    checkpoint = tiny_checkpoint(architecture)
    path = folder / f"{architecture}-keys.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    fields = gguf.GGUFReader(path).fields
    keys = {key: value_type(field) for key, field in fields.items() if not key.startswith("GGUF.")}
    arch_keys = ARCHITECTURE_KEYS[architecture].items()
    assert keys == COMMON_KEYS | {f"{architecture}.{key}": kind for key, kind in arch_keys}
    assert fields["general.name"].contents() == "tiny"
    assert fields["tokenizer.ggml.pre"].contents() == checkpoint.pre
    assert fields["tokenizer.ggml.token_type"].contents()[:4] == [3, 3, 3, 1]  # specials: CONTROL


@pytest.mark.parametrize(("architecture", "qtype"), [("llama", "Q4_0"), ("gpt2", "Q6_K")])
def test_only_2d_weights_are_quantised_and_the_rest_stays_f32(
    folder: Path, architecture: str, qtype: str
) -> None:
    checkpoint = tiny_checkpoint(architecture)
    path = folder / f"{architecture}-rule-{qtype}.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, qtype, pre=checkpoint.pre)
    for tensor in gguf.GGUFReader(path).tensors:
        kept = len(tensor.shape) == 1 or tensor.name == "position_embd.weight"
        assert tensor.tensor_type.name == ("F32" if kept else qtype), tensor.name


@pytest.mark.parametrize("architecture", ["llama", "qwen2", "gpt2"])
def test_the_tokenizer_transformers_builds_from_the_file_tokenizes_like_the_source(
    folder: Path, architecture: str
) -> None:
    checkpoint = tiny_checkpoint(architecture)
    path = folder / f"{architecture}-tokenizer.gguf"
    write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    rebuilt = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=path.name)
    for text in (
        "The cat sat on the mat.",
        "In 1999 the library had 2024 books; SHE'S sure they're right.",
        "  two  spaces,\ttabs and\nnew lines\n\n",
        "<|im_start|>user\nWhich token matters?<|im_end|><|endoftext|>",
        "Ünïcödé, naïve café — 東京",
    ):
        assert rebuilt(text)["input_ids"] == checkpoint.tokenizer.encode(text).ids, text


# Every type on llama (its permuted rows are then cut into blocks); the layouts are the same
# whatever the type, so the other two take one legacy block type and one K-quant.
QUANTISED_FILES = [("llama", qtype) for qtype in QTYPES if qtype != "F32"] + [
    (architecture, qtype) for architecture in ("qwen2", "gpt2") for qtype in ("Q8_0", "Q4_K")
]


@pytest.mark.parametrize(("architecture", "qtype"), QUANTISED_FILES)
def test_quantised_files_read_back_to_their_decoded_weights_and_close_logits(
    folder: Path, architecture: str, qtype: str
) -> None:
    checkpoint = tiny_checkpoint(architecture)
    path = folder / f"{architecture}-{qtype}.gguf"
    written = write_gguf(path, checkpoint.model, checkpoint.tokenizer, qtype, pre=checkpoint.pre)
    model = read_with_transformers(path)
    loaded = model.state_dict()
    for name, weight in written.state_dict.items():
        assert torch.equal(loaded[name], weight), name
    actual, expected = run(model)["logits"], run(checkpoint.model)["logits"]
    assert relative_error(actual, expected) < LOGITS_RELATIVE_TOLERANCE[qtype]


@pytest.mark.parametrize("qtype", list(K_QUANT_ENCODERS))
def test_k_quant_blocks_decode_in_gguf_to_the_values_they_were_encoded_from(qtype: str) -> None:
    rows = np.random.default_rng(0).normal(0.0, 0.1, (4, 512)).astype(np.float32)
    rows[0, :256] = 0.0  # a super-block of zeros: scales of 0, not a division by zero
    blocks, values = K_QUANT_ENCODERS[qtype](rows)
    ggml_type = gguf.GGMLQuantizationType[qtype]
    assert blocks.shape == (4, 2 * gguf.GGML_QUANT_SIZES[ggml_type][1])
    assert np.array_equal(gguf.quants.dequantize(blocks, ggml_type), values)
    assert np.all(values[0, :256] == 0.0)
    levels = {"Q4_K": 15, "Q5_K": 31, "Q6_K": 63}[qtype]
    assert np.abs(values - rows).max() < (rows.max() - rows.min()) / levels  # within a step
