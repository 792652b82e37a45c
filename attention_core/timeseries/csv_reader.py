r"""Reading a time series from a user's file, safely.

:func:`read_series` turns a delimited text file (path, bytes or file-like) into a
``pandas.DataFrame`` of float columns indexed by its time axis. What it did is
kept in ``frame.attrs["report"]``, a :class:`SeriesReport` (see
:func:`series_report`): the time axis and where it came from, the columns it
left out and why, and notes such as "3 missing values filled with the previous
value".

Every problem a file can have is an :class:`~attention_core.InputError` whose
message says what to do. The work is bounded and runs in steps, each in its own
module: the size is checked before anything is read
(:mod:`~attention_core.timeseries.csv_text`); the layout is sniffed on a small
sample and the row and column counts are checked before the table is parsed
(:mod:`~attention_core.timeseries.csv_layout`,
:mod:`~attention_core.timeseries.csv_table`); the cells become typed columns
(:mod:`~attention_core.timeseries.csv_columns`); the time axis is found
(:mod:`~attention_core.timeseries.time_axis`) and a wide table of months becomes
one series (:mod:`~attention_core.timeseries.wide_table`). This module joins them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import (
    MAX_SERIES_ABS_VALUE,
    MAX_SERIES_COLUMNS,
    MAX_SERIES_ROWS,
)
from attention_core.timeseries.csv_columns import Columns, clean_names, read_columns
from attention_core.timeseries.csv_table import parse_table
from attention_core.timeseries.csv_text import decode_text, read_bytes
from attention_core.timeseries.time_axis import TimeAxis, find_time_axis, not_values
from attention_core.timeseries.wide_table import STACKED, season_columns, stack
from attention_core.timeseries.year_columns import across_years, year_columns

REPORT_KEY = "report"
MIN_SERIES_ROWS = 2
EVERY = {"months": "monthly", "quarters": "quarterly"}


@dataclass(frozen=True)
class SeriesReport:
    """What :func:`read_series` did to a file, for the page to show.

    ``time_columns`` are the columns the time axis was read from (none when the
    rows are numbered), ``time_kind`` what it counts ("dates", "years",
    "quarters", "months", "row numbers"; "" for none); ``layout`` says how a
    wide table was read ("" for one row per time step); ``dropped`` pairs a
    column name with the reason it was left out; ``notes`` are sentences about
    lines skipped and rows filled, dropped or re-ordered.
    """

    encoding: str = "UTF-8"
    delimiter: str = ","
    has_header: bool = True
    time_columns: tuple[str, ...] = ()
    time_kind: str = ""
    layout: str = ""
    dropped: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()


def series_report(frame: pd.DataFrame) -> SeriesReport:
    """The :class:`SeriesReport` attached by :func:`read_series` (empty if none)."""
    return frame.attrs.get(REPORT_KEY, SeriesReport())


def _value_columns(columns: Columns, axis: TimeAxis | None, dropped: list) -> pd.DataFrame:
    """The numeric columns that are neither the time axis nor a calendar, counter or id."""
    axis_columns = set(axis.columns) if axis else set()
    values = {name: v for name, v in columns.numbers.items() if name not in axis_columns}
    left_out = not_values(columns, axis)
    if set(values) - {name for name, _ in left_out}:
        values = {name: v for name, v in values.items() if name not in dict(left_out)}
        dropped += left_out
    dropped.sort(key=lambda pair: columns.names.index(pair[0]))
    if not values:
        reasons = "; ".join(f"{name}: {reason}" for name, reason in dropped[:5])
        raise InputError(
            f"No column of numbers was found ({reasons or 'no columns'}). The series needs at "
            "least one column whose cells are numbers."
        )
    return pd.DataFrame(values)


def _on_time_axis(frame: pd.DataFrame, axis: TimeAxis | None, notes: list) -> pd.DataFrame:
    """``frame`` indexed by ``axis`` (rows without a readable date dropped, dates sorted)."""
    if axis is None:
        frame.index = pd.RangeIndex(len(frame), name="row")
        return frame
    index = axis.index
    if isinstance(index, pd.DatetimeIndex) and index.hasnans:
        keep = index.notna()
        name = " + ".join(axis.columns)
        notes.append(f"{int((~keep).sum())} rows without a readable date in {name!r} were dropped.")
        frame, index = frame.loc[keep], index[keep]
    frame.index = index
    if not frame.index.is_monotonic_increasing:
        frame = frame.sort_index(kind="stable")
        notes.append(f"Rows were sorted by {index.name!r}, oldest first.")
    return frame


def _stacked(frame: pd.DataFrame, axis: TimeAxis | None, report: dict) -> pd.DataFrame:
    """A wide table (a year per row, a column per month or quarter) as one series.

    Its rows stay within the row limit: a year per row from 1000 to 2200 is at
    most 14,400 months.
    """
    seasons = season_columns(list(frame.columns))
    if axis is None or axis.kind != "years" or seasons is None:
        return frame
    if not (np.diff(frame.index.year) == 1).all():
        return frame  # a year missing: stacked months would hide the gap
    kind, names = seasons
    for name in frame.columns:
        if name not in names:
            report["dropped"].append(
                (name, f"not a {kind[:-1]}: left out of the {EVERY[kind]} series")
            )
    stacked = stack(frame, kind, names)
    report["time_kind"] = kind
    report["layout"] = (
        f"a year per row and a column per {kind[:-1]} ({names[0]} … {names[-1]}), read as one "
        f"{EVERY[kind]} series, {STACKED!r}"
    )
    unfinished = len(frame) * len(names) - len(stacked)
    if unfinished:
        report["notes"].append(
            f"The last {unfinished} {kind} of the last year have no value yet and were left out."
        )
    return stacked


def _across_years(raw: pd.DataFrame, raw_names: list[str], report: dict) -> pd.DataFrame | None:
    """A table with a column per year, turned (:mod:`year_columns`); None for any other."""
    names, _ = clean_names(raw_names)
    years = year_columns(names)
    if years is None:
        return None
    frame, report["layout"] = across_years(raw, names, years)
    report.update(dropped=[], time_columns=(), time_kind="years")
    return frame


def _down_the_rows(raw: pd.DataFrame, raw_names: list[str], report: dict) -> pd.DataFrame:
    """A table with a row per time step: typed columns, the time axis found, wide months
    stacked."""
    if raw.shape[1] > MAX_SERIES_COLUMNS:
        raise InputError(f"The file has {raw.shape[1]} columns; the limit is {MAX_SERIES_COLUMNS}.")
    columns = read_columns(raw, raw_names, report["delimiter"] != ",")
    report["notes"] += columns.notes
    report["dropped"] = list(columns.dropped)
    axis = find_time_axis(columns)
    frame = _value_columns(columns, axis, report["dropped"])
    frame = _on_time_axis(frame, axis, report["notes"])
    report.update(time_columns=axis.columns if axis else (), time_kind=axis.kind if axis else "")
    return _stacked(frame, axis, report)


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


def read_series(source: object) -> pd.DataFrame:
    """Read a delimited text file into a DataFrame of numeric columns ``(rows, columns)``.

    ``source``: a path (``str``/``Path``), the file's ``bytes``, or a binary file
    object (e.g. Streamlit's ``UploadedFile``). Handles comma, semicolon, tab,
    ``|`` and space separators, names quoted with ``"`` or ``'``, a header row
    or none, lines of notes above the table, UTF-8 (with or without BOM),
    UTF-16/32 with BOM, Windows-1252/Latin-1, and decimal commas in semicolon
    files. The time axis (:mod:`~attention_core.timeseries.time_axis`) becomes
    the index, sorted, and is no column; a wide table of months becomes one
    monthly series; text columns are dropped; missing values are forward-filled
    and leading gaps dropped. ``frame.attrs["report"]`` holds the
    :class:`SeriesReport`.

    Raises :class:`InputError` (and nothing else) for anything unusable: empty
    or binary files, no numeric column, fewer than two rows, more than the
    limits (5 MB, 100 000 rows, 50 columns), infinite or huge values.
    """
    text, encoding = decode_text(read_bytes(source))
    report: dict = {"encoding": encoding, "notes": []}
    raw, raw_names = parse_table(text, report)
    if len(raw) > MAX_SERIES_ROWS:
        raise InputError(f"The file has {len(raw):,} rows; the limit is {MAX_SERIES_ROWS:,}.")
    if raw.empty:
        raise InputError("The file has a header row but no usable rows of data below it.")
    frame = _across_years(raw, raw_names, report) if report["has_header"] else None
    if frame is None:
        frame = _down_the_rows(raw, raw_names, report)
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
