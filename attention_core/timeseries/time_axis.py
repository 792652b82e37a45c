r"""Which column(s) of a file say when each row was: the time axis, never a value to forecast.

In order of preference (ties: the leftmost column):

1. dates in any common form, yyyymmdd whole numbers included (19580329);
2. whole-number years rising steadily (1700, 1701, …);
3. a year with its quarter or month, in one column ("1974Q1", "1959-03", "1959M03")
   or in two ("year" and "quarter", "Year" and "Period" = "Q01");
4. row numbers 1..n (or 0..n-1 in an unnamed column, as pandas writes its index).

Numbers count as years, yyyymmdd dates or row numbers only in the first column or in
a column named so (``column_kinds.NAME_WORDS``): a column of values that happens to
rise by one stays a value. Years are kept as the first of January of their year and
quarters and months as the first day they start on, in a ``DatetimeIndex``; row
numbers stay integers (a ``RangeIndex``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from attention_core.timeseries import column_kinds as kinds
from attention_core.timeseries.csv_columns import DATE_SHARE, Columns

RANKS = {"dates": 0, "years": 1, "quarters": 2, "months": 2, "row numbers": 3}
PER_YEAR = {4: "quarters", 12: "months"}
# Why a column that could have been the time axis, but is not, is left out.
NOT_VALUES = {
    "dates": "dates: a calendar, not values",
    "years": "years: a calendar, not values",
    "quarters": "part of a calendar (quarters), not values",
    "months": "part of a calendar (months), not values",
    "row numbers": "row numbers (1, 2, 3, …), not values",
}


@dataclass(frozen=True)
class TimeAxis:
    """The time axis: the columns it is read from, what they count, and one label a row."""

    columns: tuple[str, ...]
    kind: str  #: "dates", "years", "quarters", "months" or "row numbers"
    index: pd.Index  #: ``(rows,)``: a DatetimeIndex (NaT where unreadable) or a RangeIndex


def _first_of(year: np.ndarray, month: np.ndarray, name: str) -> pd.DatetimeIndex:
    days = pd.DataFrame({"year": year, "month": month, "day": 1})
    return pd.DatetimeIndex(pd.to_datetime(days), name=name)


def _from_numbers(name: str, values: pd.Series, first: bool, unnamed: bool) -> TimeAxis | None:
    """The axis one column of numbers can be: yyyymmdd dates, years or row numbers."""
    if (first or kinds.named(name, "date")) and kinds.is_yyyymmdd(values):
        text = values.astype("int64").astype(str)
        dates = pd.to_datetime(text, format="%Y%m%d", errors="coerce")
        if dates.notna().mean() >= DATE_SHARE:
            return TimeAxis((name,), "dates", pd.DatetimeIndex(dates, name=name))
    if (first or kinds.named(name, "year")) and kinds.is_year_run(values):
        years = values.to_numpy(dtype=np.int64)
        return TimeAxis((name,), "years", _first_of(years, np.ones_like(years), name))
    start = kinds.counter_start(values)
    counter_named = unnamed or kinds.named(name, "counter")
    if (start == 1 and (first or counter_named)) or (start == 0 and counter_named):
        return TimeAxis(
            (name,), "row numbers", pd.RangeIndex(start, start + len(values), name=name)
        )
    return None


def _year_columns(columns: Columns) -> list[str]:
    """Columns named like a year whose whole numbers are years, in any order."""
    found = []
    for name, values in columns.numbers.items():
        numbers = kinds.whole_numbers(values) if kinds.named(name, "year") else None
        if numbers is not None and kinds.in_year_range(numbers):
            found.append(name)
    return found


def _periods(columns: Columns) -> list[tuple[str, pd.Series, int]]:
    """Columns that number a period of the year: name, number (1..k) and k (4 or 12)."""
    found = [(name, *pair) for name, pair in columns.periods_of_year.items()]
    for name, values in columns.numbers.items():
        numbers = kinds.whole_numbers(values) if kinds.named(name, "period") else None
        if numbers is None or numbers.min() < 1:
            continue
        if kinds.named(name, "month") or kinds.named(name, "quarter"):
            per_year = 12 if kinds.named(name, "month") else 4
        else:  # "period": its largest number says
            per_year = 4 if numbers.max() <= 4 else 12
        if numbers.max() <= per_year:
            found.append((name, values, per_year))
    return found


def _from_pairs(columns: Columns) -> list[TimeAxis]:
    """Year columns with a quarter or month column, when together they only move forward."""
    found = []
    for year_name in _year_columns(columns):
        years = columns.numbers[year_name].to_numpy(dtype=np.int64)
        for period_name, numbers, per_year in _periods(columns):
            period = numbers.to_numpy(dtype=np.int64)
            if (np.diff(years * per_year + period) > 0).all():
                months = (period - 1) * (12 // per_year) + 1
                name = f"{year_name} + {period_name}"
                found.append(
                    TimeAxis(
                        (year_name, period_name), PER_YEAR[per_year], _first_of(years, months, name)
                    )
                )
    return found


def candidates(columns: Columns) -> list[TimeAxis]:
    """Every time axis the columns could give, the preferred first."""
    found = [
        TimeAxis((name,), timeline.kind, pd.DatetimeIndex(timeline.times, name=name))
        for name, timeline in columns.timelines.items()
    ]
    for position, name in enumerate(columns.names):
        if name in columns.numbers:
            axis = _from_numbers(
                name, columns.numbers[name], position == 0, name in columns.unnamed
            )
            found += [axis] if axis is not None else []
    pairs = _from_pairs(columns)
    # A year column with its quarters is that, not years (one row a year can look both ways).
    paired = {pair.columns[0] for pair in pairs}
    found = [axis for axis in found if axis.kind != "years" or axis.columns[0] not in paired]
    found += pairs
    return sorted(found, key=lambda axis: (RANKS[axis.kind], columns.names.index(axis.columns[0])))


def _went_back(values: pd.Series) -> str:
    numbers = values.to_numpy(dtype=np.int64)
    back = np.flatnonzero(np.diff(numbers) < 0)
    if not len(back):
        return ""
    row = int(back[0])
    return (
        f"; they go back from {numbers[row]} to {numbers[row + 1]} in data row {row + 2}: "
        "the rows may hold several series one after another"
    )


def not_values(columns: Columns, axis: TimeAxis | None) -> list[tuple[str, str]]:
    """Columns that are a calendar, a counter or an identifier besides ``axis``, and why."""
    used = set(axis.columns) if axis else set()
    reasons: dict[str, str] = {}
    for other in candidates(columns):
        for name in set(other.columns) - used:
            reasons.setdefault(name, NOT_VALUES[other.kind])
    for name in set(columns.periods_of_year) - used:
        reasons.setdefault(name, "periods of the year (such as Q01) without a year beside them")
    for name in _year_columns(columns):
        if name not in used:
            reasons[name] = NOT_VALUES["years"] + _went_back(columns.numbers[name])
    for name, values in columns.numbers.items():
        if name not in used and kinds.is_identifier(name, values):
            reasons[name] = "an identifier (a different whole number in each row), not values"
    return [(name, reasons[name]) for name in columns.names if name in reasons]


def find_time_axis(columns: Columns) -> TimeAxis | None:
    """The preferred time axis that leaves at least one column of numbers, or None."""
    for axis in candidates(columns):
        if set(columns.numbers) - set(axis.columns):
            return axis
    return None
