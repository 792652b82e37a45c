"""Hostile and unsupported GGUF files get a clear message and nothing else: no traceback, no
huge allocation, no long loop. Each message names what is wrong; unsupported ones name what
the app reads instead.
"""

from __future__ import annotations

import struct
from pathlib import Path

import gguf
import pytest
from gguf.gguf_writer import GGUFValue

from attention_core import InputError
from attention_core.pretrained import load_checkpoint
from tests.core.pretrained import gguf_hostile
from tests.core.pretrained.gguf_hostile import HOSTILE_FILES

#: hostile file -> what the message must say
REFUSALS = {
    "truncated_in_tensor_data": r"not a readable GGUF file \(the bytes of .* lie outside the file",
    "truncated_in_header": r"not a readable GGUF file \(.*runs past the end of the file",
    "tensor_offset_past_end": r"the bytes of .* lie outside the file",
    "tensor_size_past_end": r"the bytes of .* lie outside the file",
    "huge_tensor_count": r"the tensor count runs past the end of the file",
    "huge_key_value_count": r"the key/value count runs past the end of the file",
    "huge_array_length": r"the array .* runs past the end of the file",
    "wrong_magic": r"does not start with the letters GGUF",
    "unknown_tensor_type": r"has the unknown tensor type 255",
    "head_count_not_dividing_width": r"uses 3 heads that do not divide the width 256",
    "wrong_tensor_shape": r"has shape .* implies",
    "missing_tokenizer": r"has no tokenizer\.ggml\.tokens in its metadata",
    "mamba_architecture": r"architecture 'mamba'\. The app runs GGUF files of the "
    r"architectures llama, qwen2, gpt2",
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_a_hostile_file_is_refused_with_a_message(name: str, tmp_path: Path) -> None:
    path = HOSTILE_FILES[name](tmp_path / f"{name}.gguf")
    with pytest.raises(InputError, match=REFUSALS[name]):
        load_checkpoint(path)


def test_every_hostile_file_is_covered() -> None:
    assert set(HOSTILE_FILES) == set(REFUSALS) | {"iq2_xxs_tensor"}


def test_a_real_type_the_gguf_package_dequantises_is_read(tmp_path: Path) -> None:
    """IQ2_XXS is no attack: gguf.quants dequantises it, so the model loads and runs."""
    path = gguf_hostile.iq2_xxs_tensor(tmp_path / "iq2.gguf")
    checkpoint = load_checkpoint(path)
    trace = checkpoint.forward(checkpoint.tokenize("hello world").ids)
    assert trace.logits is not None


def _tiny(tmp_path: Path) -> Path:
    return gguf_hostile.valid_llama(tmp_path / "valid.gguf").path


@pytest.mark.parametrize("version", [1, 4, 0xFFFFFFFF])
def test_another_version_is_refused(tmp_path: Path, version: int) -> None:
    path = _tiny(tmp_path)
    data = bytearray(path.read_bytes())
    data[4:8] = struct.pack("<I", version)
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=f"version {version}; versions 2 and 3"):
        load_checkpoint(path)


@pytest.mark.parametrize("size", [0, 3, 23])
def test_a_file_too_short_for_a_header_is_refused(tmp_path: Path, size: int) -> None:
    path = tmp_path / "short.gguf"
    path.write_bytes(b"GGUF\x03\x00\x00\x00"[:size] + bytes(max(0, size - 8)))
    with pytest.raises(InputError, match="not a readable GGUF file"):
        load_checkpoint(path)


def test_an_unsupported_tokenizer_kind_is_refused(tmp_path: Path) -> None:
    path = _tiny(tmp_path)
    named = struct.pack("<Q", 4)  # a string: its length, then its bytes
    data = path.read_bytes().replace(named + b"gpt2", named + b"bert", 1)
    assert data != path.read_bytes()
    path.write_bytes(data)
    with pytest.raises(InputError, match="byte-level BPE tokenizers"):
        load_checkpoint(path)


def test_a_layer_count_larger_than_the_file_is_refused_at_once(tmp_path: Path) -> None:
    """No loop over 2**40 layers: the count is checked against the tensors the file holds."""
    writer = gguf_hostile._llama_writer()
    writer.kv_data[0]["llama.block_count"] = GGUFValue(2**40, gguf.GGUFValueType.UINT64)
    path = gguf_hostile.finish_gguf(writer, tmp_path / "layers.gguf")
    with pytest.raises(InputError, match=r"declares 1099511627776 layers but holds \d+ tensors"):
        load_checkpoint(path)
