"""Each hostile GGUF file is broken as its docstring says, and the ones that cannot be read
are refused by ``gguf.GGUFReader`` and by transformers.
"""

from __future__ import annotations

import struct
from pathlib import Path

import gguf
import numpy as np
import pytest
import torch
import transformers
from huggingface_hub.errors import StrictDataclassClassValidationError

from tests.core.pretrained import gguf_hostile
from tests.core.pretrained.gguf_hostile import HOSTILE_FILES, HUGE, tensor_info_offsets
from tests.core.pretrained.gguf_tiny_models import tiny_tokenizer

# hostile file -> what `gguf.GGUFReader` raises on it
REFUSED_BY_THE_READER = {
    "truncated_in_tensor_data": ValueError,  # a tensor's data is short: it cannot be shaped
    "truncated_in_header": ValueError,
    "tensor_offset_past_end": ValueError,
    "tensor_size_past_end": ValueError,
    "huge_tensor_count": IndexError,  # it reads on until there are no bytes left
    "huge_key_value_count": IndexError,
    "huge_array_length": IndexError,
    "wrong_magic": ValueError,
    "unknown_tensor_type": ValueError,
}
# hostile file -> what transformers raises when asked for the model in it
REFUSED_BY_TRANSFORMERS = {
    "truncated_in_tensor_data": ValueError,
    "truncated_in_header": struct.error,
    "tensor_offset_past_end": ValueError,
    "tensor_size_past_end": ValueError,
    "huge_tensor_count": OSError,
    "huge_key_value_count": OSError,
    "huge_array_length": struct.error,
    "wrong_magic": ValueError,
    "unknown_tensor_type": ValueError,
    "head_count_not_dividing_width": StrictDataclassClassValidationError,
    "wrong_tensor_shape": RuntimeError,  # a size mismatch with the model the metadata builds
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module")
def valid(folder: Path) -> bytes:
    """The bytes of the valid file every byte-level hostile file is cut or patched from."""
    return gguf_hostile.valid_llama(folder / "valid.gguf").path.read_bytes()


def read_with_transformers(path: Path) -> transformers.PreTrainedModel:
    return transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=torch.float32
    ).eval()


def changed_bytes(valid: bytes, hostile: bytes) -> np.ndarray:
    """Offsets where two files of one size differ."""
    assert len(valid) == len(hostile)
    return np.flatnonzero(np.frombuffer(valid, np.uint8) != np.frombuffer(hostile, np.uint8))


@pytest.mark.parametrize("name", list(REFUSED_BY_THE_READER))
def test_gguf_reader_refuses_each_structurally_broken_file(folder: Path, name: str) -> None:
    path = HOSTILE_FILES[name](folder / f"{name}-for-the-reader.gguf")
    with pytest.raises(REFUSED_BY_THE_READER[name]):
        gguf.GGUFReader(path)


@pytest.mark.parametrize("name", list(REFUSED_BY_TRANSFORMERS))
def test_transformers_refuses_each_broken_file(folder: Path, name: str) -> None:
    path = HOSTILE_FILES[name](folder / f"{name}-for-transformers.gguf")
    with pytest.raises(REFUSED_BY_TRANSFORMERS[name]):
        read_with_transformers(path)


@pytest.mark.parametrize("name", ["truncated_in_tensor_data", "truncated_in_header"])
def test_a_truncated_file_is_the_valid_file_cut_short(folder: Path, valid: bytes, name: str):
    hostile = HOSTILE_FILES[name](folder / f"{name}.gguf").read_bytes()
    assert len(hostile) < len(valid) and valid.startswith(hostile)
    data_start = gguf.GGUFReader(folder / "valid.gguf").data_offset
    assert (len(hostile) > data_start) == (name == "truncated_in_tensor_data")


@pytest.mark.parametrize(
    ("name", "offset", "value"),
    [("huge_tensor_count", 8, HUGE), ("huge_key_value_count", 16, HUGE)],
)
def test_a_huge_count_is_the_one_field_patched(
    folder: Path, valid: bytes, name: str, offset: int, value: int
) -> None:
    hostile = HOSTILE_FILES[name](folder / f"{name}.gguf").read_bytes()
    assert struct.unpack_from("<Q", hostile, offset) == (value,)
    assert set(changed_bytes(valid, hostile)) <= set(range(offset, offset + 8))


def test_the_huge_array_is_the_vocabulary(folder: Path, valid: bytes) -> None:
    hostile = gguf_hostile.huge_array_length(folder / "huge_array_length.gguf").read_bytes()
    tokens = gguf.GGUFReader(folder / "valid.gguf").fields["tokenizer.ggml.tokens"]
    length_at = tokens.offset + 8 + len("tokenizer.ggml.tokens") + 4 + 4
    assert struct.unpack_from("<Q", valid, length_at) == (384,)
    assert struct.unpack_from("<Q", hostile, length_at) == (HUGE,)
    assert set(changed_bytes(valid, hostile)) <= set(range(length_at, length_at + 8))


def test_a_lying_tensor_info_points_past_the_end_of_the_file(folder: Path, valid: bytes):
    layout = gguf.GGUFReader(folder / "valid.gguf")
    dims_at, _, offset_at = tensor_info_offsets(layout.tensors[-1])
    offset = gguf_hostile.tensor_offset_past_end(folder / "offset.gguf").read_bytes()
    (data_offset,) = struct.unpack_from("<Q", offset, offset_at)
    assert layout.data_offset + data_offset == len(valid) + 64
    size = gguf_hostile.tensor_size_past_end(folder / "size.gguf").read_bytes()
    assert struct.unpack_from("<Q", size, dims_at) == (512,)  # output_norm: 256 floats, really
    assert layout.tensors[-1].data_offset + 512 * 4 > len(valid)


def test_the_magic_and_the_tensor_type_are_the_only_bytes_changed(folder: Path, valid: bytes):
    magic = gguf_hostile.wrong_magic(folder / "magic.gguf").read_bytes()
    assert magic[:4] == b"GGML" and magic[4:] == valid[4:]
    query = next(t for t in gguf.GGUFReader(folder / "valid.gguf").tensors if "attn_q." in t.name)
    _, type_at, _ = tensor_info_offsets(query)
    unknown = gguf_hostile.unknown_tensor_type(folder / "type.gguf").read_bytes()
    assert struct.unpack_from("<I", unknown, type_at) == (255,)
    assert set(changed_bytes(valid, unknown)) <= set(range(type_at, type_at + 4))


def test_the_iq2_xxs_tensor_is_read_by_transformers_to_finite_weights(folder: Path) -> None:
    path = gguf_hostile.iq2_xxs_tensor(folder / "iq2_xxs.gguf")
    up = next(t for t in gguf.GGUFReader(path).tensors if t.name == "blk.0.ffn_up.weight")
    assert up.tensor_type == gguf.GGMLQuantizationType.IQ2_XXS
    assert up.shape.tolist() == [256, 512]
    weight = read_with_transformers(path).model.layers[0].mlp.up_proj.weight
    assert weight.shape == (512, 256) and torch.isfinite(weight).all()


def test_the_contradicting_metadata_and_shapes_are_as_described(folder: Path) -> None:
    heads = gguf.GGUFReader(gguf_hostile.head_count_not_dividing_width(folder / "heads.gguf"))
    assert heads.fields["llama.attention.head_count"].contents() == 3
    assert heads.fields["llama.embedding_length"].contents() == 256
    shape = gguf.GGUFReader(gguf_hostile.wrong_tensor_shape(folder / "shape.gguf"))
    query = next(t for t in shape.tensors if t.name == "blk.0.attn_q.weight")
    assert query.shape.tolist() == [256, 128]  # ggml order: 256 columns, 128 rows


def test_without_a_tokenizer_the_model_loads_and_the_tokenizer_does_not(folder: Path) -> None:
    path = gguf_hostile.missing_tokenizer(folder / "no_tokenizer.gguf")
    assert not [key for key in gguf.GGUFReader(path).fields if key.startswith("tokenizer.")]
    assert read_with_transformers(path).config.vocab_size == 384  # from llama.vocab_size
    with pytest.raises(ValueError, match="tokenizer None"):
        transformers.AutoTokenizer.from_pretrained(folder, gguf_file=path.name)


def test_the_mamba_file_is_a_real_mamba_model(folder: Path) -> None:
    path = gguf_hostile.mamba_architecture(folder / "mamba.gguf")
    assert gguf.GGUFReader(path).fields["general.architecture"].contents() == "mamba"
    ids = torch.tensor([tiny_tokenizer().encode("The cat sat on the mat.").ids])
    with torch.no_grad():
        expected = gguf_hostile.tiny_mamba()(ids).logits
        actual = read_with_transformers(path)(ids).logits
    torch.testing.assert_close(actual, expected, rtol=0, atol=1e-5)


def test_every_hostile_file_says_what_is_wrong_and_returns_its_path(folder: Path) -> None:
    for name, write in HOSTILE_FILES.items():
        assert write.__doc__, name
        assert write(folder / f"{name}-returned.gguf") == folder / f"{name}-returned.gguf"
