"""An entry of a positional encoding written out (attention_core.teaching.encoding_cells) equals
the matrix's own entry: the positional-encoding page's matrix of every kind, and the P and
X + P a run adds; the sinusoidal formula also against the paper's, written independently."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attention_core as ac
from attention_core.maths.positional import rotary_angles
from attention_core.teaching import word_order
from attention_core.teaching.cell_computation import number
from attention_core.teaching.encoding_cells import (
    added_cell,
    angle_cell,
    encoding_cell,
    rotary_cell,
    sinusoidal_cell,
    sum_cell,
)

KINDS = ("sinusoidal", "learned", "rotary", "none")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("length", "width", "base"), [(9, 16, 10_000.0), (12, 7, 50.0)])
def test_every_entry_of_every_encoding_equals_the_pages_matrix(
    kind: str, length: int, width: int, base: float
) -> None:
    matrix = word_order.position_matrix(kind, length, width, base)
    for p in range(length):
        for j in range(width):
            cell = encoding_cell(kind, p, j, width, base)
            assert cell.value == pytest.approx(matrix[p, j], rel=1e-12, abs=1e-15), (p, j)
            assert cell.lines[-1].endswith(f"{number(cell.value)}.")


def paper_encoding(length: int, width: int, base: float) -> np.ndarray:
    """Vaswani et al.'s encoding as the PyTorch tutorial writes it (even ``width``)."""
    position = np.arange(length)[:, None]
    div_term = np.exp(np.arange(0, width, 2) * (-math.log(base) / width))
    encoding = np.zeros((length, width))
    encoding[:, 0::2] = np.sin(position * div_term)
    encoding[:, 1::2] = np.cos(position * div_term)
    return encoding


def test_the_sinusoidal_entry_is_the_papers_formula() -> None:
    reference = paper_encoding(64, 32, 10_000.0)
    for p in range(64):
        for j in range(32):
            assert sinusoidal_cell(p, j, 32).value == pytest.approx(reference[p, j], abs=1e-12)


def test_the_sinusoidal_words_give_the_pair_the_divisor_the_angle_and_the_wave() -> None:
    cell = sinusoidal_cell(7, 5, 16)  # pair 2, the cosine: 7 / 10000^(4/16) = 7 / 10
    assert cell.lines[0] == "Position 7, dimension 5: the cosine of pair 2 (dimensions 4 and 5)."
    assert "10 000^(4/16) = 10, so 7 / 10 = 0.700 radians" in cell.lines[1]
    assert "repeats every 2π × 10 = 62.83 positions" in cell.lines[1]
    assert cell.lines[-1] == f"cos(0.700) = {number(math.cos(0.7))}."
    assert "lone sine" in sinusoidal_cell(3, 6, 7).text  # odd d: the last column has no cosine


def test_the_rotary_words_turn_the_point_by_the_angle() -> None:
    cell = rotary_cell(7, 4, 16)  # pair 2's x: cos(7 × 10000^(−4/16))
    assert "θ in radians: p × b^(−2i/d) = 7 × 10 000^(−4/16) = 7 / 10 = 0.700." in cell.text
    assert cell.lines[-1].endswith(f"cos(0.700) = {number(math.cos(0.7))}.")
    assert rotary_cell(3, 6, 7).value == 1.0  # odd d: the last column is not turned


@pytest.mark.parametrize(("width", "base"), [(64, 10_000.0), (8, 5000.0)])
def test_every_rope_angle_equals_the_maths_angles(width: int, base: float) -> None:
    angles = rotary_angles(20, width, base)  # (T, width/2)
    for p in range(20):
        for pair in range(width // 2):
            cell = angle_cell(p, pair, width, base)
            assert cell.value == pytest.approx(angles[p, pair], rel=1e-12, abs=1e-15)
            assert cell.lines[-1].endswith(f"= {number(cell.value)}.")


@pytest.mark.parametrize("kind", KINDS)
def test_the_p_a_run_adds_and_its_x_plus_p_are_recomputed(kind: str) -> None:
    config = ac.AttentionConfig(d_model=12, n_heads=2, positional=kind, seed=4)
    run = ac.run_text_attention(("the", "cat", "sat", "on", "the", "mat"), config)
    for p in range(6):
        for j in range(12):
            position = added_cell(kind, p, j, 12, seed=4)
            assert position.value == pytest.approx(run.p[p, j], rel=1e-12, abs=1e-15)
            total = sum_cell(float(run.x[p, j]), position)
            assert total.value == pytest.approx(run.x[p, j] + run.p[p, j], rel=1e-12, abs=1e-15)
    if kind == "rotary":  # adds nothing: it turns q and k instead
        assert "RoPE turns the queries and keys" in added_cell(kind, 2, 3, 12).text
