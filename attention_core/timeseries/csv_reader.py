r"""Reading a time series from a user's file, safely.

:func:`read_series` turns a CSV/TSV/semicolon file (path, bytes or file-like)
into a ``pandas.DataFrame`` of float columns, indexed by its date column when
it has one. What it changed is kept in ``frame.attrs["report"]``, a
:class:`SeriesReport` (see :func:`series_report`): the columns it dropped and
why, and notes such as "3 missing values filled with the previous value".

Every problem a file can have is an :class:`~attention_core.InputError` whose
message says what to do. The work is bounded: the size is checked before
anything is read (:mod:`~attention_core.timeseries.csv_text`), the delimiter is
sniffed on a small sample, and the row and column counts are checked before the
table is parsed (:mod:`~attention_core.timeseries.csv_table`); this module turns
the cells into numbered columns.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.tseries.api import guess_datetime_format

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import (
    MAX_SERIES_ABS_VALUE,
    MAX_SERIES_COLUMNS,
    MAX_SERIES_ROWS,
)
from attention_core.timeseries.csv_table import parse_table
from attention_core.timeseries.csv_text import decode_text, read_bytes

REPORT_KEY = "report"
MIN_SERIES_ROWS = 2
# A column is numeric when at least this share of its non-empty cells are numbers.
NUMERIC_SHARE = 0.8
# ... and a date column when this share of its cells parse as dates.
DATE_SHARE = 0.9
MISSING_TOKENS = frozenset(
    {"", "na", "n/a", "nan", "null", "none", "-", "--", "?", "#n/a", "missing", "nil"}
)
MAX_NAME_CHARS = 60


@dataclass(frozen=True)
class SeriesReport:
    """What :func:`read_series` did to a file, for the page to show.

    ``dropped`` pairs a column name with the reason it was left out;
    ``notes`` are sentences about rows filled, dropped or re-ordered.
    """

    encoding: str = "UTF-8"
    delimiter: str = ","
    has_header: bool = True
    index_column: str | None = None
    dropped: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()


def series_report(frame: pd.DataFrame) -> SeriesReport:
    """The :class:`SeriesReport` attached by :func:`read_series` (empty if none)."""
    return frame.attrs.get(REPORT_KEY, SeriesReport())


def _clean_names(raw: pd.DataFrame, has_header: bool) -> list[str]:
    names: list[str] = []
    for position, name in enumerate(raw.columns):
        label = str(name).strip()[:MAX_NAME_CHARS]
        if not has_header or not label or label.startswith("Unnamed:"):
            label = f"column {position + 1}"
        while label in names:
            label += " (2)"
        names.append(label)
    return names


def _as_numbers(cells: pd.Series, decimal_comma: bool) -> pd.Series:
    numbers = pd.to_numeric(cells, errors="coerce")
    if decimal_comma and numbers.notna().mean() < NUMERIC_SHARE:
        numbers = pd.to_numeric(cells.str.replace(",", ".", regex=False), errors="coerce")
    return numbers.astype("float64")


def _as_dates(cells: pd.Series) -> pd.Series | None:
    """Dates if (nearly) every cell parses with one format, else None. Never per-cell parsing."""
    first = cells.iloc[0]
    for dayfirst in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas warns about ambiguous day/month order
            date_format = guess_datetime_format(first, dayfirst=dayfirst)
            if date_format is None:
                continue
            try:
                dates = pd.to_datetime(cells, format=date_format, errors="coerce")
            except (ValueError, TypeError, OverflowError):
                continue
        if dates.notna().mean() >= DATE_SHARE:
            return dates
    return None


def _example(cells: pd.Series) -> str:
    return str(cells.iloc[0])[:30]


def _split_columns(raw: pd.DataFrame, names: list[str], decimal_comma: bool, report: dict):
    """Numeric columns (float), the date column if any, and dropped columns with reasons."""
    numeric: dict[str, pd.Series] = {}
    dates = None
    for position, name in enumerate(names):
        cells = raw.iloc[:, position].astype(str).str.strip()
        present = ~cells.str.lower().isin(MISSING_TOKENS)
        if not present.any():
            report["dropped"].append((name, "empty: no values"))
            continue
        numbers = _as_numbers(cells.where(present), decimal_comma)
        share = numbers.notna().sum() / present.sum()
        if share >= NUMERIC_SHARE:
            not_numbers = present & numbers.isna()
            if not_numbers.any():
                report["notes"].append(
                    f"{int(not_numbers.sum())} cells of column {name!r} are not numbers "
                    f"(e.g. {_example(cells[not_numbers])!r}) and count as missing."
                )
            numeric[name] = numbers
            continue
        parsed = _as_dates(cells[present]) if dates is None and share == 0 else None
        if parsed is not None:
            dates = parsed.reindex(cells.index)
            report["index_column"] = name
        else:
            reason = f"text, not numbers (e.g. {_example(cells[present])!r})"
            report["dropped"].append((name, reason))
    return numeric, dates


def _check_values(frame: pd.DataFrame) -> None:
    values = frame.to_numpy()
    for problem, bad in (
        ("infinite or too large to store (such as 1e400)", np.isinf(values)),
        (f"larger than {MAX_SERIES_ABS_VALUE:.0e} in size", np.abs(values) > MAX_SERIES_ABS_VALUE),
    ):
        if bad.any():
            row, column = np.argwhere(bad)[0]
            raise InputError(
                f"Column {frame.columns[column]!r} has values that are {problem}, e.g. in data "
                f"row {row + 1}. Remove those rows or rescale the column (e.g. to thousands)."
            )


def _fill_missing(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Forward-fill gaps, then drop leading rows that still have a gap."""
    n_missing = int(frame.isna().sum().sum())
    if not n_missing:
        return frame
    filled = frame.ffill()
    complete = filled.notna().all(axis=1).to_numpy()
    leading = int(complete.argmax()) if complete.any() else len(filled)
    notes.append(f"{n_missing} missing values were filled with the value before them.")
    if leading:
        notes.append(f"The first {leading} rows had nothing earlier to fill from and were dropped.")
    return filled.iloc[leading:]


def _index_by_dates(frame: pd.DataFrame, dates: pd.Series, name: str, notes: list[str]):
    keep = dates.notna().to_numpy()
    if not keep.all():
        notes.append(f"{int((~keep).sum())} rows without a readable date in {name!r} were dropped.")
    frame = frame.loc[keep]
    frame.index = pd.DatetimeIndex(dates[keep], name=name)
    if not frame.index.is_monotonic_increasing:
        frame = frame.sort_index(kind="stable")
        notes.append(f"Rows were sorted by {name!r}, oldest first.")
    return frame


def read_series(source: object) -> pd.DataFrame:
    """Read a delimited text file into a DataFrame of numeric columns ``(rows, columns)``.

    ``source``: a path (``str``/``Path``), the file's ``bytes``, or a binary file
    object (e.g. Streamlit's ``UploadedFile``). Handles comma, semicolon, tab
    and ``|`` separators, a header row or none, UTF-8 (with or without BOM),
    UTF-16/32 with BOM, Windows-1252/Latin-1, and decimal commas in semicolon
    files. A date/time column becomes the index (sorted); other text columns
    are dropped; missing values are forward-filled and leading gaps dropped.
    ``frame.attrs["report"]`` holds the :class:`SeriesReport`.

    Raises :class:`InputError` (and nothing else) for anything unusable: empty
    or binary files, no numeric column, fewer than two rows, more than the
    limits (5 MB, 100 000 rows, 50 columns), infinite or huge values.
    """
    text, encoding = decode_text(read_bytes(source))
    report: dict = {"encoding": encoding, "dropped": [], "notes": [], "index_column": None}
    raw = parse_table(text, report)
    if raw.shape[1] > MAX_SERIES_COLUMNS:
        raise InputError(f"The file has {raw.shape[1]} columns; the limit is {MAX_SERIES_COLUMNS}.")
    if len(raw) > MAX_SERIES_ROWS:
        raise InputError(f"The file has {len(raw):,} rows; the limit is {MAX_SERIES_ROWS:,}.")
    if raw.empty:
        raise InputError("The file has a header row but no usable rows of data below it.")
    names = _clean_names(raw, report["has_header"])
    numeric, dates = _split_columns(raw, names, report["delimiter"] != ",", report)
    if not numeric:
        dropped = "; ".join(f"{name}: {reason}" for name, reason in report["dropped"][:5])
        raise InputError(
            f"No column of numbers was found ({dropped or 'no columns'}). The series needs at "
            "least one column whose cells are numbers."
        )
    frame = pd.DataFrame(numeric)
    if dates is not None:
        frame = _index_by_dates(frame, dates, report["index_column"], report["notes"])
    else:
        frame.index = pd.RangeIndex(len(frame), name="row")
    _check_values(frame)
    frame = _fill_missing(frame, report["notes"])
    if len(frame) < MIN_SERIES_ROWS:
        raise InputError(
            f"The file has {len(frame)} usable row(s); a series needs at least "
            f"{MIN_SERIES_ROWS}, and more than the window length to be useful."
        )
    report["dropped"] = tuple(report["dropped"])
    report["notes"] = tuple(report["notes"])
    frame.attrs[REPORT_KEY] = SeriesReport(**report)
    return frame
