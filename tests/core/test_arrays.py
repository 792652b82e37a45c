"""One way to freeze arrays (attention_core.boundary.arrays): every write then raises."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from attention_core.boundary.arrays import read_only, read_only_fields


def test_read_only_copies_and_the_copy_refuses_writes() -> None:
    original = np.array([1.0, 2.0, 3.0])
    frozen = read_only(original, np.float32)
    assert frozen.dtype == np.float32 and not np.shares_memory(frozen, original)
    with pytest.raises(ValueError, match="read-only"):
        frozen[0] = 5.0
    original[0] = 5.0  # the caller's own array stays writable
    assert frozen[0] == 1.0


def test_read_only_without_copy_freezes_the_array_itself_and_keeps_views() -> None:
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    transposed = read_only(weight.T, np.float32, copy=False)
    assert np.shares_memory(transposed, weight)  # a view: no extra bytes
    with pytest.raises(ValueError, match="read-only"):
        transposed[0, 0] = 1.0


def test_read_only_without_copy_keeps_a_memory_map_mapped(tmp_path: Path) -> None:
    path = tmp_path / "rows.f32"
    np.arange(4, dtype="<f4").tofile(path)
    mapped = read_only(np.memmap(path, "<f4", mode="r"), np.float32, copy=False)
    assert isinstance(mapped, np.memmap)
    np.testing.assert_array_equal(mapped, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="read-only"):
        mapped[0] = 1.0


@dataclass(frozen=True)
class Inner:
    values: np.ndarray


@dataclass(frozen=True)
class Outer:
    matrix: np.ndarray
    inner: Inner
    label: str


def test_read_only_fields_freezes_every_array_of_nested_dataclasses_in_place() -> None:
    matrix, values = np.zeros((2, 2)), np.ones(3)
    outer = read_only_fields(Outer(matrix, Inner(values), "kept"))
    assert outer.matrix is matrix and outer.inner.values is values  # nothing copied
    for array in (outer.matrix, outer.inner.values):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 7.0


def test_read_only_fields_freezes_the_arrays_in_dicts_tuples_and_lists_too() -> None:
    arrays = [np.zeros(2) for _ in range(4)]
    held = read_only_fields({"hand": {"W_Q": arrays[0]}, "steps": (arrays[1], [arrays[2]])})
    read_only_fields(Outer(arrays[3], Inner(np.ones(1)), "kept"))
    assert held["hand"]["W_Q"] is arrays[0]
    for array in arrays:
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 7.0
