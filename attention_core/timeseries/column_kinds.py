r"""What a column of numbers is: a calendar, a counter, an identifier, a code, or values.

Pure tests on one column ``(rows,)`` of floats (NaN where missing) and its name.
:mod:`~attention_core.timeseries.time_axis` uses them to find the time axis;
:func:`default_target` uses them to offer a column of values, not a calendar, an
identifier or a code, as the column to forecast.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

# Whole numbers in this range can be years (the sunspot series starts in 1700).
YEARS = (1000, 2200)
# yyyymmdd dates (19580329) of those years.
YYYYMMDD = (YEARS[0] * 10_000 + 101, YEARS[1] * 10_000 + 1231)
# Words in a column's name that say what it holds (the name is split at non-letters).
NAME_WORDS = {
    "year": frozenset({"year", "years", "yr", "jahr", "annee", "année", "año", "anno"}),
    "date": frozenset({"date", "day", "time", "timestamp", "datum", "fecha", "period", "ds"}),
    "counter": frozenset(
        {"obs", "observation", "index", "idx", "row", "no", "nr", "n", "#", "t", "time", "case"}
    ),
    "quarter": frozenset({"quarter", "qtr", "q"}),
    "month": frozenset({"month", "mon", "mo", "m"}),
    "period": frozenset({"period", "quarter", "qtr", "q", "month", "mon", "mo", "m"}),
    "id": frozenset({"id", "identifier", "ident"}),
}
# A column holding one value in this share of its rows is nearly constant, nothing to forecast
# (the share of a year a person was in a study: 1 in all but a few dozen of 15,728 rows).
NEARLY_CONSTANT = 0.99
# A code cycles through 1..k with k at most this (quarters, months, weekdays, modes).
MAX_CYCLE = 12


def named(name: str, kind: str) -> bool:
    """Whether a word of ``name`` is one of ``NAME_WORDS[kind]`` ("fiscal_year" is a year)."""
    return bool(NAME_WORDS[kind].intersection(re.split(r"[^\w#]+|_", name.casefold())))


def whole_numbers(values: pd.Series) -> np.ndarray | None:
    """The values ``(rows,)`` as int64 if none is missing and each is whole, else None."""
    array = values.to_numpy(dtype=float)
    if len(array) == 0 or not np.isfinite(array).all() or (array != np.round(array)).any():
        return None
    if np.abs(array).max() > 2**53:
        return None
    return array.astype(np.int64)


def counter_start(values: pd.Series) -> int | None:
    """``s`` when the column is exactly s, s+1, …, s+n-1 with s 0 or 1 (row numbers), else None."""
    numbers = whole_numbers(values)
    if numbers is None or numbers[0] not in (0, 1):
        return None
    return int(numbers[0]) if (numbers == np.arange(len(numbers)) + numbers[0]).all() else None


def in_year_range(numbers: np.ndarray) -> bool:
    return bool(((numbers >= YEARS[0]) & (numbers <= YEARS[1])).all())


def is_year_run(values: pd.Series) -> bool:
    """Whole numbers in the years' range rising by a steady step (1700, 1701, … or 1950, 1955)."""
    numbers = whole_numbers(values)
    if numbers is None or not in_year_range(numbers):
        return False
    steps = np.diff(numbers)
    return bool(len(steps) == 0 or (steps[0] > 0 and (steps == steps[0]).all()))


def is_yyyymmdd(values: pd.Series) -> bool:
    """Whole numbers of eight digits in the years' range (19580329); validity is checked later."""
    numbers = whole_numbers(values)
    return numbers is not None and bool(((numbers >= YYYYMMDD[0]) & (numbers <= YYYYMMDD[1])).all())


def cycle_length(values: pd.Series) -> int | None:
    """``k`` when the column runs through 1..k and starts again (quarters 2, 3, 4, 1, …), else None.

    Each value is the one before it plus one, or 1 after the largest, ``k``.
    """
    numbers = whole_numbers(values)
    if numbers is None or len(numbers) < 2 or numbers.min() < 1:
        return None
    k = int(numbers.max())
    if not 2 <= k <= MAX_CYCLE or not (numbers == 1).any():
        return None
    return k if (numbers[1:] == numbers[:-1] % k + 1).all() else None


def is_group_key(values: pd.Series) -> bool:
    """Whole numbers that number blocks of rows: 1, 1, 1, 2, 2, … (never down, steps of 0 or
    1), or never down and the same as the row before at least half the time (a person's
    number in a panel: 125024 five times, then 125031 …)."""
    numbers = whole_numbers(values)
    if numbers is None or len(numbers) < 2:
        return False
    steps = np.diff(numbers)
    if ((steps == 0) | (steps == 1)).all() and (steps == 0).any():
        return True
    return bool((steps >= 0).all() and (steps == 0).mean() >= 0.5)


def labels_blocks(values: pd.Series, keys: list[np.ndarray]) -> bool:
    """Whether ``values`` labels the rows of each block one of ``keys`` numbers, in a panel
    of people's years: the same in every row of a block (the plan a person is on), or rising
    through every block, its own clock (a person's year 1, 2, 3, then 1, 2, 4 …); not a
    series that moves."""
    for key in keys:
        blocks = values.groupby(key)
        if blocks.nunique(dropna=False).max() <= 1 or (blocks.diff().dropna() > 0).all():
            return True
    return False


def is_identifier(name: str, values: pd.Series) -> bool:
    """A column named like an id whose whole numbers all differ (a person's or a firm's number)."""
    numbers = whole_numbers(values)
    return named(name, "id") and numbers is not None and len(np.unique(numbers)) == len(numbers)


def is_values(values: pd.Series) -> bool:
    """Whether the column reads as a series of values to forecast: not constant, not a yes/no
    indicator, not a code cycling 1..k, not a key numbering blocks of rows (1, 1, 2, 2, …),
    not one value in nearly every row."""
    present = values.dropna()
    return (
        present.nunique() > 2
        and present.value_counts(normalize=True).iloc[0] < NEARLY_CONSTANT
        and cycle_length(present) is None
        and not is_group_key(present)
    )


def default_target(frame: pd.DataFrame) -> str:
    """The first column of ``frame`` that is a series of values (see :func:`is_values`) and,
    when a column numbers blocks of rows (:func:`is_group_key`), moves within them
    (:func:`labels_blocks`); else the first column."""
    keys = [frame[name].to_numpy() for name in frame.columns if is_group_key(frame[name])]
    return next(
        (
            name
            for name in frame.columns
            if is_values(frame[name]) and not labels_blocks(frame[name], keys)
        ),
        frame.columns[0],
    )
