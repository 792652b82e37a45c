"""Hostile GGUF files: each is the tiny llama file of ``gguf_files`` with one thing wrong.

Every function writes its file to ``path`` and returns ``path``; its docstring says what is
wrong. ``HOSTILE_FILES`` lists them all. A file made by cutting or patching bytes starts as the
valid F32 file, so nothing else about it is wrong; the byte offsets come from reading that file
with ``gguf.GGUFReader``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import cache
from pathlib import Path

import gguf
import numpy as np
import torch
import transformers
from gguf.gguf_writer import GGUFValue, TensorInfo

from tests.core.pretrained.gguf_files import (
    WrittenGguf,
    add_tokenizer_metadata,
    finish_gguf,
    gguf_name,
    prepare_gguf,
    tensor_map,
    write_gguf,
)
from tests.core.pretrained.gguf_tiny_models import WIDTH, tiny_checkpoint, tiny_tokenizer

HUGE = 2**60  # a count no file can hold: reading that many of anything must fail, not allocate
UNKNOWN_GGML_TYPE = 255  # no ggml type has this id (they end in the 40s)


def valid_llama(path: Path) -> WrittenGguf:
    """The untied tiny llama as F32: the file every hostile file here is a variation of."""
    checkpoint = tiny_checkpoint("llama")
    return write_gguf(path, checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)


def _llama_writer() -> gguf.GGUFWriter:
    checkpoint = tiny_checkpoint("llama")
    writer, _, _ = prepare_gguf(checkpoint.model, checkpoint.tokenizer, pre=checkpoint.pre)
    return writer


def _replace(path: Path, data: bytes) -> Path:
    """Put ``data`` at ``path`` as a new file: a reader still mapping the old one keeps it."""
    staged = path.with_name(path.name + ".partial")
    staged.write_bytes(data)
    return staged.replace(path)


def _patch(path: Path, offset: int, fmt: str, value: int) -> Path:
    """Overwrite the little-endian ``fmt`` value at ``offset`` of ``path``."""
    data = bytearray(path.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    return _replace(path, bytes(data))


def _cut(path: Path, size: int) -> Path:
    return _replace(path, path.read_bytes()[:size])


def tensor_info_offsets(tensor: gguf.ReaderTensor) -> tuple[int, int, int]:
    """(offset of its first dimension, of its ggml type, of its data offset) in the header."""
    name_length = len(tensor.name.encode())
    dims = tensor.field.offset + 8 + name_length + 4
    ggml_type = dims + 8 * len(tensor.shape)
    return dims, ggml_type, ggml_type + 4


def truncated_in_tensor_data(path: Path) -> Path:
    """The file ends halfway through its last tensor's data."""
    valid_llama(path)
    last = gguf.GGUFReader(path).tensors[-1]
    return _cut(path, last.data_offset + last.n_bytes // 2)


def truncated_in_header(path: Path) -> Path:
    """The file ends halfway through the metadata: inside the vocabulary array."""
    valid_llama(path)
    tokens = gguf.GGUFReader(path).fields["tokenizer.ggml.tokens"]
    size = sum(part.nbytes for part in tokens.parts)
    return _cut(path, tokens.offset + size // 2)


def tensor_offset_past_end(path: Path) -> Path:
    """The last tensor's info gives a data offset 64 bytes past the end of the file."""
    valid_llama(path)
    layout = gguf.GGUFReader(path)
    _, _, offset_at = tensor_info_offsets(layout.tensors[-1])
    past_end = path.stat().st_size - layout.data_offset + 64
    return _patch(path, offset_at, "<Q", past_end)


def tensor_size_past_end(path: Path) -> Path:
    """The last tensor's info doubles its slowest dimension (``output_norm.weight``: 512, not
    256 floats), so its data runs past the end of the file.
    """
    valid_llama(path)
    last = gguf.GGUFReader(path).tensors[-1]
    dims_at, _, _ = tensor_info_offsets(last)
    last_dim_at = dims_at + 8 * (len(last.shape) - 1)  # ggml's slowest dimension: the rows
    return _patch(path, last_dim_at, "<Q", 2 * int(last.shape[-1]))


def huge_tensor_count(path: Path) -> Path:
    """The header declares 2**60 tensors."""
    valid_llama(path)
    return _patch(path, 8, "<Q", HUGE)


def huge_key_value_count(path: Path) -> Path:
    """The header declares 2**60 metadata keys."""
    valid_llama(path)
    return _patch(path, 16, "<Q", HUGE)


def huge_array_length(path: Path) -> Path:
    """``tokenizer.ggml.tokens`` declares 2**60 strings."""
    valid_llama(path)
    tokens = gguf.GGUFReader(path).fields["tokenizer.ggml.tokens"]
    # key length (8), key, value type (4), element type (4), then the length
    length_at = tokens.offset + 8 + len(tokens.name.encode()) + 4 + 4
    return _patch(path, length_at, "<Q", HUGE)


def wrong_magic(path: Path) -> Path:
    """The first four bytes are ``GGML``, not ``GGUF``."""
    valid_llama(path)
    return _replace(path, b"GGML" + path.read_bytes()[4:])


def unknown_tensor_type(path: Path) -> Path:
    """``blk.0.attn_q.weight`` claims ggml type 255, which does not exist."""
    valid_llama(path)
    query = next(t for t in gguf.GGUFReader(path).tensors if t.name == "blk.0.attn_q.weight")
    _, type_at, _ = tensor_info_offsets(query)
    return _patch(path, type_at, "<I", UNKNOWN_GGML_TYPE)


def _replace_tensor(writer: gguf.GGUFWriter, name: str, data: np.ndarray, ggml_type: str):
    """Swap one tensor of a prepared writer for ``data`` stored as ``ggml_type``."""
    shape = gguf.quant_shape_from_byte_shape(data.shape, gguf.GGMLQuantizationType[ggml_type])
    if data.dtype != np.uint8:
        shape = data.shape
    writer.tensors[0][name] = TensorInfo(
        shape, gguf.GGMLQuantizationType[ggml_type], data.nbytes, data
    )


def iq2_xxs_tensor(path: Path) -> Path:
    """``blk.0.ffn_up.weight`` is IQ2_XXS (a real ggml type a small reader may not support).

    Its blocks are random codes under a small float16 scale, so they decode to finite values.
    """
    writer = _llama_writer()
    rows, columns = 2 * WIDTH, WIDTH
    block_elements, block_bytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.IQ2_XXS]
    rng = np.random.default_rng(0)
    blocks = rng.integers(0, 256, (rows * columns // block_elements, block_bytes), dtype=np.uint8)
    blocks[:, :2] = np.full(len(blocks), 0.01, np.float16).view(np.uint8).reshape(-1, 2)
    _replace_tensor(writer, "blk.0.ffn_up.weight", blocks.reshape(rows, -1), "IQ2_XXS")
    return finish_gguf(writer, path)


def head_count_not_dividing_width(path: Path) -> Path:
    """``llama.attention.head_count`` is 3, which does not divide the width of 256."""
    writer = _llama_writer()
    writer.kv_data[0]["llama.attention.head_count"] = GGUFValue(3, gguf.GGUFValueType.UINT32)
    return finish_gguf(writer, path)


def wrong_tensor_shape(path: Path) -> Path:
    """``blk.0.attn_q.weight`` has 128 rows; the metadata (4 heads of 64) says 256."""
    writer = _llama_writer()
    rng = np.random.default_rng(0)
    half_query = rng.normal(0.0, 0.1, (WIDTH // 2, WIDTH)).astype(np.float32)
    _replace_tensor(writer, "blk.0.attn_q.weight", half_query, "F32")
    return finish_gguf(writer, path)


def missing_tokenizer(path: Path) -> Path:
    """No ``tokenizer.*`` key at all: the file holds a model but no vocabulary."""
    writer = _llama_writer()
    for key in [key for key in writer.kv_data[0] if key.startswith("tokenizer.")]:
        del writer.kv_data[0][key]
    return finish_gguf(writer, path)


@cache
def tiny_mamba() -> transformers.PreTrainedModel:
    """A tiny random Mamba (seeded), float32, eval mode, with the tokenizer's vocabulary."""
    config = transformers.MambaConfig(
        vocab_size=tiny_tokenizer().get_vocab_size(),
        hidden_size=WIDTH,
        state_size=16,
        num_hidden_layers=2,
        expand=2,
        conv_kernel=4,
    )
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()


def mamba_architecture(path: Path) -> Path:
    """A well-formed Mamba file, as llama.cpp's ``MambaModel`` converter writes it: a
    state-space model, not a transformer, so the only thing wrong is the architecture.

    Its transforms: ``A_log`` is stored as ``-exp(A_log)``, the conv kernel squeezed to 2-D.
    """
    model, config = tiny_mamba(), tiny_mamba().config
    writer = gguf.GGUFWriter(None, "mamba")
    names = tensor_map(model)
    for hf_name, tensor in sorted(model.state_dict().items()):
        if hf_name == "lm_head.weight":  # tied
            continue
        if hf_name.endswith(".A_log"):
            tensor = -torch.exp(tensor)
        if hf_name.endswith("conv1d.weight"):
            tensor = tensor.squeeze(1)
        writer.add_tensor(gguf_name(names, hf_name), tensor.detach().numpy().astype(np.float32))
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name("tiny mamba")
    writer.add_context_length(2**20)  # the converter's placeholder: Mamba has no window
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(0)
    writer.add_head_count(0)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_ssm_conv_kernel(config.conv_kernel)
    writer.add_ssm_inner_size(config.intermediate_size)
    writer.add_ssm_state_size(config.state_size)
    writer.add_ssm_time_step_rank(config.time_step_rank)
    writer.add_layer_norm_rms_eps(config.layer_norm_epsilon)
    writer.add_ssm_dt_b_c_rms(False)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    add_tokenizer_metadata(writer, tiny_tokenizer(), "gpt-2")
    return finish_gguf(writer, path)


# name -> writer, for tests that take every hostile file in turn
HOSTILE_FILES: dict[str, Callable[[Path], Path]] = {
    function.__name__: function
    for function in (
        truncated_in_tensor_data,
        truncated_in_header,
        tensor_offset_past_end,
        tensor_size_past_end,
        huge_tensor_count,
        huge_key_value_count,
        huge_array_length,
        wrong_magic,
        unknown_tensor_type,
        iq2_xxs_tensor,
        head_count_not_dividing_width,
        wrong_tensor_shape,
        missing_tokenizer,
        mamba_architecture,
    )
}
