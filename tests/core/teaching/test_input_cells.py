"""How a layer's input and its norm were computed: each cell's number equals NumPy's LayerNorm,
RMSNorm and sums (computed here in float64, apart from the core), and the words hold the
row's mean, variance or mean square a student needs to redo it by hand."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.teaching.cell_computation import number
from attention_core.teaching.input_cells import (
    embedding_cell,
    layer_norm_cell,
    post_norm_lines,
    residual_cell,
    rms_norm_cell,
)

RNG = np.random.default_rng(7)
X = (RNG.standard_normal((6, 16)) * 3 + 1).astype(np.float32)  # (T, d)
GAIN = (1 + 0.5 * RNG.standard_normal(16)).astype(np.float32)
BIAS = (0.2 * RNG.standard_normal(16)).astype(np.float32)
EPS = 1e-5


def numpy_layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    wide = x.astype(np.float64)
    mean = wide.mean(axis=1, keepdims=True)
    return (wide - mean) / np.sqrt(wide.var(axis=1, keepdims=True) + eps) * gain + bias


def numpy_rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    wide = x.astype(np.float64)
    return wide / np.sqrt((wide**2).mean(axis=1, keepdims=True) + eps) * gain


def test_every_layernorm_cell_equals_numpys_layernorm() -> None:
    expected = numpy_layer_norm(X, GAIN, BIAS, EPS)
    for i in range(X.shape[0]):
        for d in range(X.shape[1]):
            cell = layer_norm_cell(X, GAIN, BIAS, EPS, i, d)
            assert cell.value == pytest.approx(expected[i, d], rel=1e-5, abs=1e-6)
            assert (cell.stage, cell.row, cell.column) == ("normed", i, d)


def test_a_layernorm_cell_shows_its_rows_mean_variance_and_its_own_gamma_and_beta() -> None:
    cell = layer_norm_cell(X, GAIN, BIAS, EPS, 2, 9)
    row = X[2].astype(np.float64)
    mean, variance = row.mean(), row.var()
    root = np.sqrt(variance + EPS)
    assert cell.lines[0].startswith("LayerNorm of token 3's row of X (16 numbers)")
    assert cell.lines[1] == (
        f"Row 3's mean μ = {number(mean)}; its variance σ², the mean of (x − μ)², = "
        f"{number(variance)}; √(σ² + ε) = {number(root)} (ε = 1e-05)."
    )
    standard = (row[9] - mean) / root
    assert cell.lines[2].endswith(f"= {number(standard)}.")
    assert cell.lines[3] == (
        f"N[3, 10] = {number(standard)} × γ[10] + β[10] = {number(standard)} × "
        f"{number(GAIN[9])} + {number(BIAS[9])} = {number(cell.value)}."
    )


def test_every_rmsnorm_cell_equals_numpys_rmsnorm() -> None:
    expected = numpy_rms_norm(X, GAIN, 1e-6)
    for i in range(X.shape[0]):
        for d in range(X.shape[1]):
            cell = rms_norm_cell(X, GAIN, 1e-6, i, d)
            assert cell.value == pytest.approx(expected[i, d], rel=1e-5, abs=1e-6)


def test_an_rmsnorm_cell_shows_its_rows_mean_square_and_subtracts_no_mean() -> None:
    cell = rms_norm_cell(X, GAIN, 1e-6, 4, 0)
    mean_square = float((X[4].astype(np.float64) ** 2).mean())
    assert "no mean is subtracted" in cell.lines[0]
    assert cell.lines[1].startswith(f"The mean of the row's 16 squares x² = {number(mean_square)}")
    assert cell.lines[2] == (
        f"N[5, 1] = x[1] / √(mean + ε) × w[1] = {number(X[4, 0])} / "
        f"{number(np.sqrt(mean_square + 1e-6))} × {number(GAIN[0])} = {number(cell.value)}."
    )


def test_layer_1s_input_is_the_sum_of_its_tables_rows_in_order() -> None:
    token, position = X, X[::-1] * 0.5
    parts = [
        ("token embedding", "token table", [f"id {i}" for i in range(6)], token),
        ("position embedding", "position table", [f"position {p}" for p in range(6)], position),
    ]
    cell = embedding_cell(parts, 1, 3)
    assert cell.value == float(token[1, 3] + position[1, 3])  # float32, as the pass adds them
    assert cell.lines == (
        "Layer 1's input, token 2, dimension 4: the sum of its token embedding and its "
        "position embedding.",
        f"Its token embedding, the token table's row for id 1, dimension 4: {number(token[1, 3])}.",
        "Its position embedding, the position table's row for position 1, dimension 4: "
        f"{number(position[1, 3])}.",
        f"Sum: {number(token[1, 3])} + {number(position[1, 3])} = {number(cell.value)}.",
    )


def test_one_table_is_its_row_with_the_familys_note() -> None:
    parts = [("token embedding", "token table", [f"id {i}" for i in range(6)], X)]
    cell = embedding_cell(parts, 0, 0, note="No position is added.")
    assert cell.value == float(X[0, 0])
    assert cell.lines[0].endswith("just its token embedding. No position is added.")
    assert cell.lines[-1].endswith(f": {number(X[0, 0])}.")


def test_a_decoders_residual_stream_adds_the_attention_and_the_mlp_output() -> None:
    attention, mlp = X * 0.1, X[::-1].copy()
    cell = residual_cell(X, attention, mlp, 4, 5, 2)
    assert cell.value == float((X[5, 2] + attention[5, 2]) + mlp[5, 2])
    assert cell.lines[0].startswith("Layer 5's input is layer 4's input plus what layer 4's")
    assert cell.lines[-1] == (
        f"Sum: {number(X[5, 2])} + {number(attention[5, 2])} + {number(mlp[5, 2])} = "
        f"{number(cell.value)}."
    )


def test_berts_later_input_names_y_and_the_sum_its_layernorm_normalises() -> None:
    attention, ffn = X * 0.1, X * 0.3
    after = numpy_layer_norm(X + attention, GAIN, BIAS, EPS).astype(np.float32)
    summed = after + ffn
    lines = post_norm_lines(X, attention, after, ffn, summed, 2, 1, 6)
    assert lines[0].startswith("Layer 3's input is layer 2's output. BERT normalises after")
    assert lines[1].endswith(f"normalised over the row: Y = {number(after[1, 6])}.")
    assert (
        lines[2]
        == f"Y plus the feed-forward output {number(ffn[1, 6])}: Z = {number(summed[1, 6])}."
    )
    normed = layer_norm_cell(summed, GAIN, BIAS, EPS, 1, 6, of="Z", stage="x", name="X")
    assert normed.lines[0].startswith("LayerNorm of token 2's row of Z")
    assert normed.value == pytest.approx(numpy_layer_norm(summed, GAIN, BIAS, EPS)[1, 6], rel=1e-5)
