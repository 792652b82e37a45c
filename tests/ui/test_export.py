"""Exports: CSV labels a spreadsheet could run as formulas are neutralised; numbers are kept."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from ui.shared.export import csv_bytes, matrix_frame, npz_bytes


@pytest.mark.parametrize(
    "label", ["=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tleading tab", "\rreturn"]
)
def test_a_label_a_spreadsheet_would_run_is_quoted(label: str) -> None:
    frame = matrix_frame(np.eye(2), [label, "plain"], ["a", label])
    rows = list(csv.reader(io.StringIO(csv_bytes(frame).decode("utf-8"), newline="")))
    assert rows[0] == ["", "a", "'" + label]
    assert [row[0] for row in rows[1:]] == ["'" + label, "plain"]


def test_numbers_are_written_at_full_precision_and_never_quoted() -> None:
    matrix = np.array([[-0.123456789012345, 1e-12], [-3.0, 2.5]])
    text = csv_bytes(matrix_frame(matrix, ["x", "y"], ["p", "q"])).decode("utf-8")
    parsed = pd.read_csv(io.StringIO(text), index_col=0)
    np.testing.assert_array_equal(parsed.to_numpy(), matrix)
    assert "'" not in text


def test_npz_holds_every_matrix_by_name() -> None:
    matrices = {"A": np.arange(6.0).reshape(2, 3), "mask": np.tri(3, dtype=bool)}
    loaded = np.load(io.BytesIO(npz_bytes(matrices)))
    assert sorted(loaded.files) == ["A", "mask"]
    np.testing.assert_array_equal(loaded["mask"], matrices["mask"])
