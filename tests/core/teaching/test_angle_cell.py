"""RoPE's angle written out (:func:`angle_cell`) equals :func:`rotary_angles`'s entry, and the
formula :math:`\\theta_{p,i} = p \\cdot b^{-2i/d_k}` against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.maths.positional import rotary_angles
from attention_core.teaching.cell_computation import number
from attention_core.teaching.model_cells import angle_cell


@pytest.mark.parametrize(("d_k", "base"), [(8, 5000.0), (64, 10_000.0), (64, 100_000.0)])
def test_every_angle_equals_ropes_own(d_k: int, base: float) -> None:
    angles = rotary_angles(20, d_k, base)  # (T, d_k/2)
    for p in range(20):
        for i in range(d_k // 2):
            cell = angle_cell(p, i, d_k, base)
            assert cell.value == pytest.approx(float(angles[p, i]), rel=1e-12, abs=1e-15)
            assert cell.value == pytest.approx(p * np.power(base, -2.0 * i / d_k), rel=1e-12)
            assert cell.lines[-1].endswith(f" = {number(float(angles[p, i]))}.")


def test_an_angle_writes_its_pairs_turn_per_position() -> None:
    cell = angle_cell(5, 2, 64, 10_000.0)
    assert cell.lines == (
        "RoPE's angle for position p = 5 (token 6) and column pair i = 2 (columns 5 and 6): "
        "θ = p × base^(−2i/d_k), with base 10000 and d_k = 64.",
        "Pair 2 turns by 10000^(−4/64) = 0.5623 radians per position: the first pairs turn "
        "fast, the last ones slowly.",
        "θ = 5 × 0.5623 = 2.812.",
    )
    assert angle_cell(0, 3, 8, 5000.0).value == 0.0  # position 0 is never turned
