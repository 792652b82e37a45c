r"""A table of strings as typed columns: numbers, points in time, periods of the year, text.

The third step of :func:`~attention_core.timeseries.csv_reader.read_series`. Each
column is read once, vectorised: a column of numbers (missing cells as NaN), a
text column of dates ("2024-01-31", "Jan-1-1995"), months ("1959-03", "1959M03")
or quarters ("1974Q1"), a column of periods of the year ("Q01", "M03", as the US
Bureau of Labor Statistics writes them beside a year), or text, which is dropped.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd
from pandas.tseries.api import guess_datetime_format

# A column is numeric when at least this share of its non-empty cells are numbers.
NUMERIC_SHARE = 0.8
# ... and a column of dates (months, quarters) when this share of its cells parse as such.
DATE_SHARE = 0.9
MISSING_TOKENS = frozenset(
    {"", "na", "n/a", "nan", "null", "none", "-", "--", "?", "#n/a", "missing", "nil"}
)
MAX_NAME_CHARS = 60
# Months pandas does not guess ("1959/03", "03/1959", "Mar 1959"), tried on the first cell.
MONTH_FORMATS = ("%Y/%m", "%m/%Y", "%m-%Y", "%b %Y", "%b-%Y", "%B %Y", "%Y-%b", "%b %y", "%b-%y")
# A year and a quarter or month in one cell: (pattern, what the number counts).
PERIOD_PATTERNS = (
    (re.compile(r"^(?P<year>\d{4})\s*[-/ ]?\s*[Qq](?P<n>[1-4])$"), "quarters"),
    (re.compile(r"^[Qq](?P<n>[1-4])\s*[-/ ]?\s*(?P<year>\d{4})$"), "quarters"),
    (re.compile(r"^(?P<year>\d{4})\s*[Mm](?P<n>\d{1,2})$"), "months"),
)
MONTHS_IN = {"quarters": 3, "months": 1}
# A period of the year without its year ("Q01", "M03"): its letter and how many in a year.
PERIOD_OF_YEAR = re.compile(r"^(?P<letter>[QqMm])0*(?P<n>\d{1,2})$")
PER_YEAR = {"q": 4, "m": 12}


@dataclass(frozen=True)
class Timeline:
    """Points in time read from a text column, ``(rows,)``, NaT where a cell is unreadable."""

    times: pd.Series
    kind: str  #: "dates", "months" or "quarters"


@dataclass
class Columns:
    """Every column of a file, typed; ``names`` in file order (made-up ones in ``unnamed``)."""

    names: list[str]
    unnamed: frozenset[str]
    numbers: dict[str, pd.Series] = field(default_factory=dict)  #: float, NaN where missing
    timelines: dict[str, Timeline] = field(default_factory=dict)
    periods_of_year: dict[str, tuple[pd.Series, int]] = field(default_factory=dict)  #: n, per year
    dropped: list[tuple[str, str]] = field(default_factory=list)  #: name and why
    notes: list[str] = field(default_factory=list)


def clean_names(raw_names: list[str]) -> tuple[list[str], frozenset[str]]:
    """Unique, trimmed names; "column N" where the file gives none (those are returned too)."""
    names: list[str] = []
    unnamed = set()
    for position, name in enumerate(raw_names):
        label = str(name).strip()
        if len(label) > 1 and label[0] == label[-1] and label[0] in "'\"":
            label = label[1:-1].strip()  # a name quoted in a way the parser did not undo
        label = label[:MAX_NAME_CHARS]
        if not label:
            label = f"column {position + 1}"
            unnamed.add(label)
        while label in names:
            label += " (2)"
        names.append(label)
    return names, frozenset(unnamed)


def _as_numbers(cells: pd.Series, decimal_comma: bool) -> pd.Series:
    numbers = pd.to_numeric(cells, errors="coerce")
    if decimal_comma and numbers.notna().mean() < NUMERIC_SHARE:
        numbers = pd.to_numeric(cells.str.replace(",", ".", regex=False), errors="coerce")
    return numbers.astype("float64")


def _date_formats(first: str) -> list[str]:
    """Formats the first cell fits: pandas' guess (month first, then day first), then months."""
    formats = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns about ambiguous day/month order
        for dayfirst in (False, True):
            guess = guess_datetime_format(first, dayfirst=dayfirst)
            if guess is not None and guess not in formats:
                formats.append(guess)
    for month_format in MONTH_FORMATS:
        try:
            datetime.strptime(first, month_format)
        except ValueError:
            continue
        formats.append(month_format)
    return formats


def _as_dates(cells: pd.Series) -> Timeline | None:
    """Dates if (nearly) every cell parses with one format, else None. Never per-cell parsing."""
    for date_format in _date_formats(cells.iloc[0]):
        try:
            dates = pd.to_datetime(cells, format=date_format, errors="coerce")
        except (ValueError, TypeError, OverflowError):
            continue
        if dates.notna().mean() >= DATE_SHARE:
            kind = "dates" if "%d" in date_format or "%H" in date_format else "months"
            return Timeline(dates, kind)
    return None


def _as_periods(cells: pd.Series) -> Timeline | None:
    """Quarters ("1974Q1", "Q1 1974") or months ("1959M03"), as the dates they start on."""
    for pattern, kind in PERIOD_PATTERNS:
        if not pattern.match(cells.iloc[0]):
            continue  # the first cell decides which pattern to try on the whole column
        parts = cells.str.extract(pattern)
        if parts["year"].notna().mean() < DATE_SHARE:
            continue
        month = (pd.to_numeric(parts["n"]) - 1) * MONTHS_IN[kind] + 1
        when = {"year": pd.to_numeric(parts["year"]), "month": month, "day": 1}
        return Timeline(pd.to_datetime(pd.DataFrame(when), errors="coerce"), kind)
    return None


def _as_period_of_year(cells: pd.Series) -> tuple[pd.Series, int] | None:
    """The number of each "Q01"/"M03" cell and how many periods a year has; None if not so."""
    if not PERIOD_OF_YEAR.match(cells.iloc[0]):
        return None
    parts = cells.str.extract(PERIOD_OF_YEAR)
    letters = parts["letter"].str.lower().unique()
    if parts["n"].isna().any() or len(letters) != 1:
        return None
    numbers, per_year = pd.to_numeric(parts["n"]), PER_YEAR[letters[0]]
    return (numbers, per_year) if numbers.between(1, per_year).all() else None


def _example(cells: pd.Series) -> str:
    return str(cells.iloc[0])[:30]


def read_columns(raw: pd.DataFrame, raw_names: list[str], decimal_comma: bool) -> Columns:
    """Each column of ``raw`` (strings, ``(rows, columns)``) as numbers, times or dropped text."""
    names, unnamed = clean_names(raw_names)
    columns = Columns(names, unnamed)
    for position, name in enumerate(names):
        cells = raw.iloc[:, position].astype(str).str.strip()
        present = ~cells.str.lower().isin(MISSING_TOKENS)
        if not present.any():
            if name not in unnamed or position < len(names) - 1:
                columns.dropped.append((name, "empty: no values"))
            continue  # else the column after a delimiter that ends every line: nothing to say
        numbers = _as_numbers(cells.where(present), decimal_comma)
        share = numbers.notna().sum() / present.sum()
        if share >= NUMERIC_SHARE:
            not_numbers = present & numbers.isna()
            if not_numbers.any():
                columns.notes.append(
                    f"{int(not_numbers.sum())} cells of column {name!r} are not numbers "
                    f"(e.g. {_example(cells[not_numbers])!r}) and count as missing."
                )
            columns.numbers[name] = numbers
            continue
        text = cells[present]
        timeline = (_as_dates(text) or _as_periods(text)) if share == 0 else None
        period_of_year = _as_period_of_year(cells) if timeline is None and present.all() else None
        if timeline is not None:
            columns.timelines[name] = Timeline(timeline.times.reindex(cells.index), timeline.kind)
        elif period_of_year is not None:
            columns.periods_of_year[name] = period_of_year
        else:
            columns.dropped.append((name, f"text, not numbers (e.g. {_example(text)!r})"))
    return columns
