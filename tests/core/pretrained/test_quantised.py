"""Quantised matrices dequantise to exactly ``gguf.quants.dequantize``'s float32 numbers:
whole, a few rows at a time, and transposed (Hypothesis over random blocks)."""

from __future__ import annotations

import numpy as np
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, quants
from hypothesis import given
from hypothesis import strategies as st

from attention_core.pretrained.quantised import REPACKED, Quantised, Repacked

KINDS = sorted(REPACKED)
OTHERS = [GGMLQuantizationType[name].value for name in ("Q4_K", "Q5_K", "Q6_K", "Q5_0")]


def _blocks(kind: int, rows: int, per_row: int, seed: int) -> np.ndarray:
    """Random blocks ``(rows, per_row * bytes)`` whose float16 scales are finite."""
    _, size = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, (rows, per_row, size), dtype=np.uint8)
    n_scales = REPACKED.get(kind, (0, 1))[1]
    scales = rng.normal(0, 0.05, (rows, per_row, n_scales)).astype(np.float16)
    raw[:, :, : 2 * n_scales] = scales.view(np.uint8).reshape(rows, per_row, -1)
    return raw.reshape(rows, -1)


def _reference(raw: np.ndarray, kind: int) -> np.ndarray:
    return quants.dequantize(raw, GGMLQuantizationType(kind))


@given(
    kind=st.sampled_from(KINDS),
    rows=st.integers(1, 40),
    per_row=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_repacked_matrix_widens_to_the_gguf_packages_numbers(
    kind: int, rows: int, per_row: int, seed: int
) -> None:
    raw = _blocks(kind, rows, per_row, seed)
    expected = _reference(raw, kind)  # (rows, ne0)
    repacked = Repacked.from_blocks(raw, kind)
    assert repacked.shape == expected.shape
    np.testing.assert_array_equal(repacked.widen(), expected)
    np.testing.assert_array_equal(repacked.T.widen(), expected.T)
    assert repacked.T.shape == expected.T.shape
    picked = np.random.default_rng(seed).integers(0, rows, 5)
    np.testing.assert_array_equal(repacked[picked].widen(), expected[picked])
    np.testing.assert_array_equal(repacked[1:3].widen(), expected[1:3])
    assert repacked.nbytes == raw.nbytes  # the same bytes as the file


@given(kind=st.sampled_from(OTHERS), rows=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_other_types_are_read_by_the_gguf_package(kind: int, rows: int, seed: int) -> None:
    raw = _blocks(kind, rows, 1, seed)
    expected = _reference(raw, kind)
    stored = Quantised(kind, raw, expected.shape[1])
    np.testing.assert_array_equal(stored.widen(), expected)
    np.testing.assert_array_equal(stored.T.widen(), expected.T)
    np.testing.assert_array_equal(stored[[rows - 1, 0]].widen(), expected[[rows - 1, 0]])
