"""The real SmolLM2 GGUF file read by our header reader equals ``gguf.GGUFReader``'s reading,
and every tensor, as the core keeps it, widens to exactly ``gguf.quants.dequantize``'s numbers.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from attention_core.pretrained.gguf_checkpoint import stored
from attention_core.pretrained.gguf_file import GGUFFile, read_gguf
from attention_core.pretrained.quantised import Repacked
from attention_core.pretrained.tensors import widen
from tests.real.model_file import real_decoder_file


@pytest.fixture(scope="module")
def files() -> tuple[GGUFFile, gguf.GGUFReader]:
    path: Path = real_decoder_file()
    return read_gguf(path), gguf.GGUFReader(path)


def test_the_metadata_equals_the_gguf_packages_reading(
    files: tuple[GGUFFile, gguf.GGUFReader],
) -> None:
    ours, reference = files
    expected = {k: f.contents() for k, f in reference.fields.items() if not k.startswith("GGUF.")}
    assert ours.metadata.keys() == expected.keys()
    for key, value in expected.items():
        got = ours.metadata[key]
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, value)
        elif isinstance(value, float):
            assert got == pytest.approx(value, rel=1e-7), key
        else:
            assert got == value, key
    assert ours.version == reference.fields["GGUF.version"].contents()


def test_the_tensors_lie_where_the_gguf_package_finds_them(
    files: tuple[GGUFFile, gguf.GGUFReader],
) -> None:
    ours, reference = files
    assert list(ours.tensors) == [tensor.name for tensor in reference.tensors]
    for tensor in reference.tensors:
        info = ours.tensors[tensor.name]
        assert info.kind == tensor.tensor_type.value
        assert info.dims == tuple(int(n) for n in tensor.shape)
        assert (info.start, info.size) == (tensor.data_offset, tensor.n_bytes)


def test_every_tensor_widens_to_the_gguf_packages_numbers(
    files: tuple[GGUFFile, gguf.GGUFReader],
) -> None:
    ours, reference = files
    kinds = set()
    for tensor in reference.tensors:
        expected = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        kept = stored(ours, ours.tensors[tensor.name])
        kinds.add(type(kept).__name__)
        np.testing.assert_array_equal(widen(kept), expected.reshape(kept.shape), tensor.name)
    assert kinds == {"Repacked", "memmap"}  # Q4_1 and Q8_0 repacked, F32 norms mapped


def test_the_token_table_gives_a_sentences_rows_without_widening_the_rest(
    files: tuple[GGUFFile, gguf.GGUFReader],
) -> None:
    ours, reference = files
    table = stored(ours, ours.tensors["token_embd.weight"])
    assert isinstance(table, Repacked)
    ids = np.array([1, 9, 49151, 9])
    expected = gguf.quants.dequantize(reference.tensors[0].data, reference.tensors[0].tensor_type)
    np.testing.assert_array_equal(widen(table[ids]), expected[ids])
