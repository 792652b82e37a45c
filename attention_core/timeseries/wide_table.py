r"""A wide table, one row per year and a column per month (or quarter), as one series.

Statistics offices and course files often print a monthly series as a year per
row: ``YEAR,JAN,FEB,…,DEC`` (statsmodels' El Niño temperatures). Twelve columns of
one quantity are no twelve features: read row after row, month after month, they
are one monthly series, ``value``, whose seasonal period (12) attention can find.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STACKED = "value"  #: the name of the one series a wide table becomes
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
QUARTERS = ("q1", "q2", "q3", "q4")
# What each kind of wide table's columns are called, and its time axis.
SEASONS = {"months": MONTHS, "quarters": QUARTERS}


def _season(name: str, seasons: tuple[str, ...]) -> int | None:
    """1-based position of ``name`` among ``seasons`` ("Mar", "MARCH", "Sept" are months)."""
    label = name.strip().casefold().rstrip(".")
    for position, season in enumerate(seasons, start=1):
        if label == season or (len(label) >= 3 and season.startswith(label)):
            return position
    return None


def season_columns(names: list[str]) -> tuple[str, list[str]] | None:
    """("months" or "quarters", the columns in calendar order) when ``names`` holds a column
    for each month (or each quarter) of the year, in order; else None."""
    for kind, seasons in SEASONS.items():
        found = [(name, _season(name, seasons)) for name in names]
        columns = [name for name, position in found if position is not None]
        if [position for _, position in found if position is not None] == list(
            range(1, len(seasons) + 1)
        ):
            return kind, columns
    return None


def stack(frame: pd.DataFrame, kind: str, columns: list[str]) -> pd.DataFrame:
    """``frame (years, seasons)``, indexed by the first day of each year, as one column
    ``(years * seasons, 1)`` indexed by the first day of each month (or quarter).

    Months after the last value (a year not over yet) are dropped; other gaps stay
    missing, for the reader to fill.
    """
    seasons = len(SEASONS[kind])
    values = frame[columns].to_numpy(dtype=float).reshape(-1)  # row after row
    years = np.repeat(frame.index.year.to_numpy(), seasons)
    months = np.tile(np.arange(seasons) * (12 // seasons) + 1, len(frame))
    days = pd.DataFrame({"year": years, "month": months, "day": 1})
    index = pd.DatetimeIndex(pd.to_datetime(days), name=kind[:-1])
    stacked = pd.DataFrame({STACKED: values}, index=index)
    present = np.flatnonzero(~np.isnan(values))
    return stacked.iloc[: present[-1] + 1] if len(present) else stacked
