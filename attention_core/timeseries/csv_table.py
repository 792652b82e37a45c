r"""Delimited text as a table of strings: the delimiter sniffed, the header detected.

The second step of :func:`~attention_core.timeseries.csv_reader.read_series`. The
work is bounded: the delimiter is sniffed on a small sample, and the row and
column counts are checked before the table is parsed.
"""

from __future__ import annotations

import csv
import io
import warnings

import pandas as pd

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_SERIES_COLUMNS, MAX_SERIES_ROWS

# The delimiter is sniffed on this many characters / lines only.
SNIFF_CHARS = 16_384
SNIFF_LINES = 50
DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _sample_lines(text: str) -> list[str]:
    sample = text[:SNIFF_CHARS]
    lines = sample.split("\n")
    if len(text) > SNIFF_CHARS and len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut short
    return [line for line in lines[:SNIFF_LINES] if line.strip()]


def _count_fields(line: str, delimiter: str) -> int:
    return len(next(csv.reader([line], delimiter=delimiter), []))


def _consistent(lines: list[str], delimiter: str) -> bool:
    counts = {_count_fields(line, delimiter) for line in lines}
    return len(counts) == 1 and counts.pop() > 1


def _sniff_delimiter(lines: list[str]) -> str:
    """csv.Sniffer on the sample, preferring ';' when it splits every line evenly.

    A semicolon file with decimal commas ("1,5;2,5") has an even comma count
    too; a comma file with a semicolon in every line is much rarer.
    """
    try:
        delimiter = csv.Sniffer().sniff("\n".join(lines), delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        delimiter = None
    if delimiter in (None, ",") and _consistent(lines, ";"):
        return ";"
    if delimiter is not None:
        return delimiter
    return next((d for d in DELIMITERS if _consistent(lines, d)), ",")


def _is_number(cell: str) -> bool:
    cell = cell.strip()
    for candidate in (cell, cell.replace(",", ".")):
        try:
            float(candidate)
            return True
        except ValueError:
            continue
    return False


def parse_table(text: str, report: dict) -> pd.DataFrame:
    """Every cell as a string; checks the column and row limits before parsing."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = _sample_lines(text)
    if not lines:
        raise InputError("The file has no rows. Upload a CSV file with a header row and numbers.")
    delimiter = _sniff_delimiter(lines)
    first_line = text.lstrip("\n").split("\n", 1)[0]
    first_row = next(csv.reader([first_line], delimiter=delimiter), [])
    if len(first_row) > MAX_SERIES_COLUMNS:
        raise InputError(
            f"The file has {len(first_row)} columns; the limit is {MAX_SERIES_COLUMNS}. "
            "Keep only the columns you want to look at."
        )
    if text.count("\n") > MAX_SERIES_ROWS + 1:
        raise InputError(
            f"The file has more than {MAX_SERIES_ROWS:,} rows, the limit. Upload a shorter "
            "period, or weekly instead of daily values."
        )
    has_header = not any(_is_number(cell) for cell in first_row)
    report.update(delimiter=delimiter, has_header=has_header)
    try:
        with warnings.catch_warnings():
            # A row longer than the header would silently become the index, or be cut.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                io.StringIO(text),
                sep=delimiter,
                header=0 if has_header else None,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=True,
                engine="c",
                index_col=False,
            )
    except (
        pd.errors.ParserError,
        pd.errors.ParserWarning,
        pd.errors.EmptyDataError,
        csv.Error,
        ValueError,
    ) as error:
        detail = str(error).strip().splitlines()[-1][:200] if str(error).strip() else "unreadable"
        raise InputError(
            f"The file could not be read as a table with {DELIMITER_NAMES[delimiter]} "
            f"separators ({detail}). Check that every row has the same number of values."
        ) from None
