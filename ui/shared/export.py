"""Numbers on demand: matrices as rounded tables, CSV files and one ``.npz``, built on click."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st


def matrix_frame(
    matrix: np.ndarray,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
) -> pd.DataFrame:
    """A ``(R, C)`` matrix as a DataFrame with its row and column labels.

    Labels are shown as text (never HTML) by Streamlit's dataframe view.
    """
    matrix = np.atleast_2d(np.asarray(matrix))
    rows = list(row_labels) if row_labels is not None else list(range(matrix.shape[0]))
    cols = list(col_labels) if col_labels is not None else list(range(matrix.shape[1]))
    return pd.DataFrame(matrix, index=pd.Index(rows), columns=pd.Index(cols))


#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` at full precision (rounding is for the screen only).

    Cells that a spreadsheet would run as a formula (a label starting with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, as OWASP lists them)
    are prefixed with a quote mark. Numbers are written as they are.
    """
    safe = frame.copy()
    safe.index = [_spreadsheet_safe(label) for label in safe.index]
    safe.columns = [_spreadsheet_safe(label) for label in safe.columns]
    # RFC 4180 line ends: a label holding a line break of either kind is then quoted.
    return safe.to_csv(lineterminator="\r\n").encode("utf-8")


def _spreadsheet_safe(label: object) -> object:
    if isinstance(label, str) and label[:1] in FORMULA_STARTS:
        return "'" + label
    return label


def npz_bytes(matrices: Mapping[str, np.ndarray]) -> bytes:
    """All ``matrices`` in one compressed NumPy ``.npz`` archive, keyed by name."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{name: np.asarray(m) for name, m in matrices.items()})
    return buffer.getvalue()


def download_button(
    label: str,
    make_bytes: Callable[[], bytes],
    file_name: str,
    key: str,
    mime: str = "text/csv",
) -> None:
    """A download button whose file is built only when it is clicked."""
    st.download_button(
        label,
        data=make_bytes,
        file_name=file_name,
        mime=mime,
        key=key,
        on_click="ignore",
        icon=":material/download:",
    )
