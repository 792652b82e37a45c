"""Tiny GGUF files written the way llama.cpp writes them, from checkpoints transformers built.

``write_gguf`` is ``convert_hf_to_gguf.py`` for three architectures, in miniature: the same
metadata keys, tensor names (``gguf.TensorNameMap``), tensor transforms and F32 rule, written
by the ``gguf`` package's own ``GGUFWriter``. F32, F16, BF16 and Q8_0 files are what the
converter writes for that ``--outtype``; Q4_0, Q4_1, Q4_K, Q5_K and Q6_K files are what
``llama-quantize --pure`` makes of them (every 2-D weight in the one type). The transforms:

    llama: W_Q and W_K rows permuted per head, from HF's rotate-half RoPE order to
           llama.cpp's interleaved pairs (``LlamaModel.permute``; K with the K/V head count)
    qwen2: nothing (its RoPE is run in NEOX order, HF's own)
    gpt2:  Conv1D weights (in, out) transposed to (out, in)

``WrittenGguf.state_dict`` is what a reader should recover: the model's own weights, or for a
quantised file the values its blocks decode to, in transformers' names and layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import gguf
import numpy as np
import torch
import transformers
from tokenizers import Tokenizer

from tests.core.pretrained.gguf_kquants import K_QUANT_ENCODERS
from tests.core.pretrained.gguf_tiny_models import END_OF_TEXT

# ggml type name -> llama.cpp's `general.file_type` for a file of mostly that type
FILE_TYPES = {
    "F32": gguf.LlamaFileType.ALL_F32,
    "F16": gguf.LlamaFileType.MOSTLY_F16,
    "BF16": gguf.LlamaFileType.MOSTLY_BF16,
    "Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
    "Q4_0": gguf.LlamaFileType.MOSTLY_Q4_0,
    "Q4_1": gguf.LlamaFileType.MOSTLY_Q4_1,
    "Q4_K": gguf.LlamaFileType.MOSTLY_Q4_K_S,
    "Q5_K": gguf.LlamaFileType.MOSTLY_Q5_K_S,
    "Q6_K": gguf.LlamaFileType.MOSTLY_Q6_K,
}
QTYPES = tuple(FILE_TYPES)

# GPT-2's Conv1D layers, stored (in, out) by transformers and (out, in) by llama.cpp
GPT2_CONV1D = (".c_attn.weight", ".c_proj.weight", ".c_fc.weight")


@dataclass(frozen=True)
class WrittenGguf:
    """A GGUF file ``write_gguf`` wrote, and what a correct reader gets back from it."""

    path: Path
    tensor_types: dict[str, str]  # GGUF tensor name -> ggml type name, in file order
    state_dict: dict[str, torch.Tensor]  # HF name -> the weight the file decodes to, float32


def llama_permute(weight: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's ``LlamaModel.permute`` of W_Q / W_K rows (n_head = K/V heads for W_K).

    Per head, HF keeps the two rotated halves apart, (x_0..x_{h/2-1}, y_0..y_{h/2-1}); llama.cpp
    wants the pairs side by side, (x_0, y_0, x_1, y_1, ...).
    """
    rows = weight.shape[0]
    split = weight.reshape(n_head, 2, rows // n_head // 2, *weight.shape[1:])
    return split.swapaxes(1, 2).reshape(weight.shape)


def llama_unpermute(weight: np.ndarray, n_head: int) -> np.ndarray:
    """The inverse of ``llama_permute`` (what transformers' GGUF reader applies)."""
    rows = weight.shape[0]
    pairs = weight.reshape(n_head, rows // n_head // 2, 2, *weight.shape[1:])
    return pairs.swapaxes(1, 2).reshape(weight.shape)


def to_gguf_layout(
    config: transformers.PretrainedConfig, hf_name: str, weight: np.ndarray
) -> np.ndarray:
    """The converter's ``modify_tensors``: an HF weight as llama.cpp stores it."""
    if config.model_type == "llama" and hf_name.endswith(("q_proj.weight", "q_proj.bias")):
        return llama_permute(weight, config.num_attention_heads)
    if config.model_type == "llama" and hf_name.endswith(("k_proj.weight", "k_proj.bias")):
        return llama_permute(weight, config.num_key_value_heads)
    if config.model_type == "gpt2" and hf_name.endswith(GPT2_CONV1D):
        return weight.T.copy()
    return weight


def from_gguf_layout(
    config: transformers.PretrainedConfig, hf_name: str, weight: np.ndarray
) -> np.ndarray:
    """The inverse of ``to_gguf_layout``."""
    if config.model_type == "llama" and hf_name.endswith(("q_proj.weight", "q_proj.bias")):
        return llama_unpermute(weight, config.num_attention_heads)
    if config.model_type == "llama" and hf_name.endswith(("k_proj.weight", "k_proj.bias")):
        return llama_unpermute(weight, config.num_key_value_heads)
    if config.model_type == "gpt2" and hf_name.endswith(GPT2_CONV1D):
        return weight.T.copy()
    return weight


def stored_type(gguf_name: str, weight: np.ndarray, qtype: str) -> str:
    """The ggml type llama.cpp stores this tensor in, in a file of ``qtype``.

    1-D tensors, norms, biases and learned positions stay F32 (``prepare_tensors``, and
    ``llama-quantize``'s own exceptions). A row that does not split into whole blocks falls
    back to F16, as the converter does on ``gguf.QuantError`` (``llama-quantize`` would pick
    another block type); every row of the tiny models splits, so no file here falls back.
    """
    if weight.ndim <= 1 or gguf_name.endswith("_norm.weight"):
        return "F32"
    if gguf_name.startswith("position_embd.") or not gguf_name.endswith(".weight"):
        return "F32"
    block, _ = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[qtype]]
    return qtype if weight.shape[-1] % block == 0 else "F16"


def encode(weight: np.ndarray, ggml_type: str) -> tuple[np.ndarray, np.ndarray]:
    """(bytes or floats to store, float32 values they decode to) for one tensor."""
    if ggml_type in K_QUANT_ENCODERS:
        return K_QUANT_ENCODERS[ggml_type](weight)
    type_id = gguf.GGMLQuantizationType[ggml_type]
    stored = gguf.quants.quantize(weight, type_id)
    return stored, gguf.quants.dequantize(stored, type_id).reshape(weight.shape)


def tensor_map(model: transformers.PreTrainedModel) -> gguf.TensorNameMap:
    """The converter's HF -> GGUF tensor names for this model."""
    arch = {value: key for key, value in gguf.MODEL_ARCH_NAMES.items()}[model.config.model_type]
    return gguf.get_tensor_name_map(arch, model.config.num_hidden_layers)


def gguf_name(names: gguf.TensorNameMap, hf_name: str) -> str:
    """The converter's ``map_tensor_name``: ``model.layers.0.self_attn.q_proj.weight`` ->
    ``blk.0.attn_q.weight``.
    """
    name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
    if name is None:
        raise KeyError(f"gguf has no name for {hf_name}")
    return name


def hf_weights(model: transformers.PreTrainedModel) -> dict[str, np.ndarray]:
    """The weights a checkpoint of ``model`` holds, in safetensors' (name) order.

    A tied output is not saved: the converter then writes no ``output.weight``.
    """
    weights = {
        name: tensor.detach().to(torch.float32).numpy()
        for name, tensor in model.state_dict().items()
    }
    if model.config.tie_word_embeddings:
        del weights["lm_head.weight"]
    return dict(sorted(weights.items()))


def add_model_metadata(
    writer: gguf.GGUFWriter, model: transformers.PreTrainedModel, qtype: str, name: str
) -> None:
    """``general.*`` and the ``set_gguf_parameters`` keys of llama.cpp's converter.

    The base converter writes the shared keys; ``LlamaModel`` adds ``vocab_size`` and the
    RoPE dimension count; ``GPT2Model`` writes its own, smaller set (no K/V heads, and a
    feed-forward length of 4 x the width whatever the config says).
    """
    config = model.config
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(name)
    writer.add_block_count(config.num_hidden_layers)
    if config.model_type == "gpt2":
        writer.add_context_length(config.n_positions)
        writer.add_embedding_length(config.n_embd)
        writer.add_feed_forward_length(4 * config.n_embd)
        writer.add_head_count(config.n_head)
        writer.add_layer_norm_eps(config.layer_norm_epsilon)
        writer.add_file_type(FILE_TYPES[qtype])
        return
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_freq_base(config.rope_parameters["rope_theta"])
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_file_type(FILE_TYPES[qtype])
    if config.model_type == "llama":
        writer.add_vocab_size(config.vocab_size)
        writer.add_rope_dimension_count(config.hidden_size // config.num_attention_heads)


def add_tokenizer_metadata(writer: gguf.GGUFWriter, tokenizer: Tokenizer, pre: str) -> None:
    """``_set_vocab_gpt2``: the byte-level vocabulary, its types and merges, and special ids.

    Tokens are written as the vocabulary spells them (``Ġthe``); the added special tokens
    are CONTROL (3), every other token NORMAL (1).
    """
    by_id = {index: token for token, index in tokenizer.get_vocab().items()}
    special = {added.content for added in tokenizer.get_added_tokens_decoder().values()}
    tokens = [by_id[index] for index in range(len(by_id))]
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(
        [gguf.TokenType.CONTROL if token in special else gguf.TokenType.NORMAL for token in tokens]
    )
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    writer.add_bos_token_id(END_OF_TEXT)
    writer.add_eos_token_id(END_OF_TEXT)
    writer.add_add_bos_token(False)  # as in GPT-2's, Qwen2's and SmolLM's files


def prepare_gguf(
    model: transformers.PreTrainedModel,
    tokenizer: Tokenizer,
    qtype: str = "F32",
    pre: str = "gpt-2",
    name: str = "tiny",
) -> tuple[gguf.GGUFWriter, dict[str, str], dict[str, torch.Tensor]]:
    """A ``GGUFWriter`` holding the whole file but not yet writing it (``finish_gguf`` does):
    ``(writer, tensor_types, state_dict)`` as in ``WrittenGguf``.
    """
    config = model.config
    writer = gguf.GGUFWriter(None, config.model_type)
    names = tensor_map(model)
    tensor_types, state_dict = {}, {}
    for hf_name, weight in hf_weights(model).items():
        tensor_name = gguf_name(names, hf_name)
        stored_as = to_gguf_layout(config, hf_name, weight)
        ggml_type = tensor_types[tensor_name] = stored_type(tensor_name, stored_as, qtype)
        data, values = encode(stored_as, ggml_type)
        writer.add_tensor(tensor_name, data, raw_dtype=gguf.GGMLQuantizationType[ggml_type])
        state_dict[hf_name] = torch.from_numpy(from_gguf_layout(config, hf_name, values))
    add_model_metadata(writer, model, qtype, name)
    add_tokenizer_metadata(writer, tokenizer, pre)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)  # last, as in llama.cpp's files
    return writer, tensor_types, state_dict


def finish_gguf(writer: gguf.GGUFWriter, path: Path) -> Path:
    """Write what ``writer`` holds to ``path``: header, metadata, tensor infos, data."""
    writer.write_header_to_file(path)
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def write_gguf(
    path: Path,
    model: transformers.PreTrainedModel,
    tokenizer: Tokenizer,
    qtype: str = "F32",
    pre: str = "gpt-2",
    name: str = "tiny",
) -> WrittenGguf:
    """Write ``model`` and ``tokenizer`` to ``path`` as llama.cpp would, weights in ``qtype``.

    ``qtype`` is one of ``QTYPES``; ``pre`` is ``tokenizer.ggml.pre`` (how text is split).
    """
    writer, tensor_types, state_dict = prepare_gguf(model, tokenizer, qtype, pre, name)
    return WrittenGguf(finish_gguf(writer, path), tensor_types, state_dict)
