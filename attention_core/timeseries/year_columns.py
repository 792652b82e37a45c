r"""A table that runs through time across its columns: a row per series, a column per year.

The World Bank, the OECD and many course files print indicators this way:
``Country Name, Country Code, …, 1960, 1961, …, 2017`` (statsmodels' fertility
rates). Its time axis is the header; each row is one series. Read column after
column it is a frame of one row per year and one column per row of the file,
named by the row's first text cell ("Aruba"). A file with more rows than the page
takes columns keeps its first :data:`~attention_core.boundary.limits.MAX_SERIES_COLUMNS`
rows, and the report says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_SERIES_COLUMNS
from attention_core.timeseries.csv_columns import MAX_NAME_CHARS, MISSING_TOKENS

MIN_YEARS = 5  #: fewer year columns are a few values that happen to be named like years
FIRST_YEAR, LAST_YEAR = 1000, 2200  #: a column name outside these is not a year


def _year(name: str) -> int | None:
    text = name.strip().strip("'\"")
    if len(text) == 4 and text.isdigit() and FIRST_YEAR <= int(text) <= LAST_YEAR:
        return int(text)
    return None


def year_columns(names: list[str]) -> list[int] | None:
    """The positions of the columns named by consecutive years (1960, 1961, … one after
    another, at least :data:`MIN_YEARS`), when the table runs through time across its
    columns; else None."""
    years = [(position, _year(name)) for position, name in enumerate(names)]
    found = [(position, year) for position, year in years if year is not None]
    if len(found) < MIN_YEARS:
        return None
    positions, values = zip(*found, strict=True)
    consecutive = np.diff(positions) == 1
    if not (consecutive.all() and (np.diff(values) == 1).all()):
        return None
    return list(positions)


def _label(row: pd.Series, text_columns: list[int], number: int) -> str:
    for position in text_columns:
        cell = str(row.iloc[position]).strip()
        if cell and cell.lower() not in MISSING_TOKENS:
            return cell[:MAX_NAME_CHARS]
    return f"row {number}"


def _labels(raw: pd.DataFrame, text_columns: list[int]) -> list[str]:
    """Each row's name: its first text cell, made unique."""
    labels: list[str] = []
    for number, (_, row) in enumerate(raw.iterrows(), start=1):
        name = label = _label(row, text_columns, number)
        again = 1
        while label in labels:
            again += 1
            label = f"{name} ({again})"
        labels.append(label)
    return labels


def across_years(raw: pd.DataFrame, names: list[str], years: list[int]) -> tuple[pd.DataFrame, str]:
    """``raw (series, columns)`` of strings as numbers ``(years, series)`` indexed by the first
    day of each year, and the sentence the report gives about the layout.

    Years before the first and after the last value of any series are dropped (a year
    not published yet); a series kept has a value in the first year (a series that starts
    later, or has no value at all, would cut every other series short, since a window needs
    every column), and at most :data:`MAX_SERIES_COLUMNS` are kept, in the file's order.
    """
    text_columns = [p for p in range(len(names)) if p not in set(years)]
    cells = raw.iloc[:, years].apply(lambda column: column.str.strip())
    values = cells.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float).T  # (years, rows)
    published = np.flatnonzero(~np.isnan(values).all(axis=1))
    if not len(published):
        raise InputError(
            "The table has a column per year but no number in any of them. The series needs "
            "numbers."
        )
    first, last = published[0], published[-1] + 1
    values = values[first:last]
    starting = np.flatnonzero(~np.isnan(values[0]))  # series with a value in the first year
    kept = starting[:MAX_SERIES_COLUMNS]
    calendar = [_year(names[position]) for position in years[first:last]]
    index = pd.DatetimeIndex([pd.Timestamp(year=y, month=1, day=1) for y in calendar], name="year")
    labels = _labels(raw.iloc[kept], text_columns)
    named_by = names[text_columns[0]] if text_columns else "its position"
    layout = (
        f"a row per series and a column per year ({calendar[0]} … {calendar[-1]}), read as "
        f"one column per row, each named by {named_by!r}"
    )
    if len(kept) < len(raw):
        layout += (
            f"; {len(kept)} of its {len(raw)} rows are kept (the first "
            f"{MAX_SERIES_COLUMNS} with a value in {calendar[0]}; the page takes at most "
            f"{MAX_SERIES_COLUMNS} columns)"
        )
    return pd.DataFrame(values[:, kept], index=index, columns=labels), layout
