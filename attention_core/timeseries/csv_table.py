r"""Delimited text as a table of strings: the layout sniffed, the header detected.

The second step of :func:`~attention_core.timeseries.csv_reader.read_series`. The
layout (:mod:`~attention_core.timeseries.csv_layout`) is sniffed on a small sample,
and the row and column counts are checked before the table is parsed.
"""

from __future__ import annotations

import csv
import io
import re
import warnings

import pandas as pd

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_SERIES_COLUMNS, MAX_SERIES_ROWS, MAX_TABLE_COLUMNS
from attention_core.timeseries.csv_layout import (
    DELIMITER_NAMES,
    SNIFF_LINES,
    WHITESPACE,
    Layout,
    find_layout,
    is_number,
    row_fields,
    sample_lines,
)
from attention_core.timeseries.year_columns import year_columns

ROW_NAMES = "row names"  #: the name of a first column R wrote without a header


def _line_at(text: str, line_number: int) -> tuple[int, str]:
    """The offset in ``text`` where line ``line_number`` (0-based) starts, and that whole line."""
    offset = 0
    for _ in range(line_number):
        offset = text.index("\n", offset) + 1
    end = text.find("\n", offset)
    return offset, text[offset:] if end < 0 else text[offset:end]


def _names(header: list[str], width: int | None, has_header: bool) -> list[str]:
    """One name per column ("" where the file gives none), for ``width`` columns."""
    if not has_header:
        return [""] * max(width or 0, len(header))
    if width == len(header) - 1 and not header[-1].strip():
        return header[:-1]  # a delimiter at the end of the header line only
    if width == len(header) + 1:
        return [ROW_NAMES, *header]  # R's write.table: row names under no name
    return header


def _without_notes_below(body: str, layout: Layout) -> tuple[str, int]:
    """``body`` without the lines of notes below the table, and how many there were.

    A note has fewer values than the table's rows and no number ("Footnotes",
    "1 - Adjusted for age."); at most ``SNIFF_LINES`` of them are looked for.
    """
    if layout.width is None:
        return body, 0
    lines = body.rstrip("\n").split("\n")
    end, notes = len(lines), 0
    while end > 0 and notes <= SNIFF_LINES:
        fields = row_fields(lines[end - 1], layout.delimiter, layout.quote)
        if lines[end - 1].strip() and (
            len(fields) >= layout.width or any(is_number(cell) for cell in fields)
        ):
            break
        notes += bool(lines[end - 1].strip())
        end -= 1
    if not notes or notes > SNIFF_LINES:
        return body, 0
    return "\n".join(lines[:end]) + "\n", notes


def _read(text: str, delimiter: str, quote: str, n_columns: int) -> pd.DataFrame:
    with warnings.catch_warnings():
        # A row longer than the header would silently become the index, or be cut.
        warnings.simplefilter("error", pd.errors.ParserWarning)
        return pd.read_csv(
            io.StringIO(text),
            sep=r"\s+" if delimiter == WHITESPACE else delimiter,
            quotechar=quote,
            header=None,
            names=list(range(n_columns)),
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skip_blank_lines=True,
            engine="c",
            index_col=False,
        )


def parse_table(text: str, report: dict) -> tuple[pd.DataFrame, list[str]]:
    """Every cell as a string, and one name per column ("" where none is given).

    ``report`` gains ``delimiter`` and ``has_header`` (and a note when lines of
    notes above the table were skipped). Checks the column and row limits
    before parsing.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = sample_lines(text)
    if not lines:
        raise InputError("The file has no rows. Upload a CSV file with a header row and numbers.")
    layout = find_layout([line for _, line in lines])
    header_line = lines[layout.start][0]
    offset, first_line = _line_at(text, header_line)
    first_row = row_fields(first_line, layout.delimiter, layout.quote)
    n_columns = max(len(first_row), layout.width or 0)
    # A column per year holds one series per row: the page's column limit applies after it is
    # turned (attention_core.timeseries.year_columns); the cells stay bounded by the file size.
    limit = MAX_TABLE_COLUMNS if year_columns(first_row) else MAX_SERIES_COLUMNS
    if n_columns > limit:
        raise InputError(
            f"The file has {n_columns} columns; the limit is {limit}. "
            "Keep only the columns you want to look at."
        )
    if text.count("\n", offset) > MAX_SERIES_ROWS + 1:
        raise InputError(
            f"The file has more than {MAX_SERIES_ROWS:,} rows, the limit. Upload a shorter "
            "period, or weekly instead of daily values."
        )
    # Years across the columns are names, not numbers (year_columns).
    has_header = year_columns(first_row) is not None or not any(is_number(c) for c in first_row)
    report.update(delimiter=layout.delimiter, has_header=has_header)
    if layout.start:
        report["notes"].append(
            f"The first {header_line} lines are notes above the table and were skipped."
        )
    names = _names(first_row, layout.width, has_header)
    body = text[offset + len(first_line) + 1 :] if has_header else text[offset:]
    body, notes_below = _without_notes_below(body, layout)
    if notes_below:
        report["notes"].append(
            f"The last {notes_below} lines are notes below the table and were skipped."
        )
    try:
        raw = _read(body, layout.delimiter, layout.quote, len(names))
    except (
        pd.errors.ParserError,
        pd.errors.ParserWarning,
        pd.errors.EmptyDataError,
        csv.Error,
        ValueError,
    ) as error:
        detail = str(error).strip().splitlines()[-1][:200] if str(error).strip() else "unreadable"
        # pandas counts the lines of the table's body; the user counts the file's.
        skipped = header_line + has_header
        detail = re.sub(r"line (\d+)", lambda m: f"line {int(m[1]) + skipped}", detail)
        raise InputError(
            f"The file could not be read as a table with {DELIMITER_NAMES[layout.delimiter]} "
            f"separators ({detail}). Check that every row has the same number of values."
        ) from None
    return raw, names
