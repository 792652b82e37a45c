r"""How a delimited file is laid out, sniffed on a small sample of its lines.

The delimiter (comma, semicolon, tab, vertical bar, or runs of spaces), the quote
character (``"`` or ``'``) and where the table starts (lines of notes above it,
as statistics offices put them, are skipped). Only the first ``SNIFF_LINES``
lines of at most ``SNIFF_CHARS`` characters are looked at.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass

# The layout is sniffed on this many characters / lines only.
SNIFF_CHARS = 16_384
SNIFF_LINES = 50
DELIMITERS = (",", ";", "\t", "|")
WHITESPACE = " "  #: one or more spaces (or tabs) between values, as R and Stata write
DELIMITER_NAMES = {
    ",": "comma",
    ";": "semicolon",
    "\t": "tab",
    "|": "vertical bar",
    WHITESPACE: "space",
}


@dataclass(frozen=True)
class Layout:
    """``start``: the sample line the table (its header, if any) starts on; ``width``:
    values per data row, None when no delimiter splits the sample into an even table."""

    delimiter: str
    quote: str
    start: int = 0
    width: int | None = None


def sample_lines(text: str) -> list[tuple[int, str]]:
    """The first non-blank lines of ``text`` with their line numbers (0-based)."""
    sample = text[:SNIFF_CHARS]
    lines = sample.split("\n")
    if len(text) > SNIFF_CHARS and len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut short
    return [(number, line) for number, line in enumerate(lines) if line.strip()][:SNIFF_LINES]


def row_fields(line: str, delimiter: str, quote: str) -> list[str]:
    """The values of one line (quotes removed)."""
    if delimiter == WHITESPACE:
        # Runs of spaces are one separator; spaces at either end separate nothing.
        line = line.replace("\t", " ").strip()
        return next(csv.reader([line], delimiter=" ", quotechar=quote, skipinitialspace=True), [])
    return next(csv.reader([line], delimiter=delimiter, quotechar=quote), [])


def is_number(cell: str) -> bool:
    cell = cell.strip()
    for candidate in (cell, cell.replace(",", ".")):
        try:
            float(candidate)
            return True
        except ValueError:
            continue
    return False


def _consistent(lines: list[str], delimiter: str) -> bool:
    counts = {len(row_fields(line, delimiter, '"')) for line in lines}
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


def _table_start(lines: list[str], delimiter: str, quote: str) -> tuple[int, int] | None:
    """The line a table split by ``delimiter`` starts on, and its width; None if there is none.

    The table is the run of lines at the end of the sample (notes below it aside)
    with the same number of values (two or more). Its header may have one name fewer (R writes row
    names under no name) or one empty field more (a delimiter ending the line).
    Lines above it are notes only if each has fewer values than the table and
    the table has a header; whitespace-separated tables may have no notes.
    """
    rows = [row_fields(line, delimiter, quote) for line in lines]
    with_numbers = [n for n, row in enumerate(rows) if any(is_number(cell) for cell in row)]
    if with_numbers:
        del rows[with_numbers[-1] + 1 :]  # notes below the table ("Footnotes")
    width = len(rows[-1])
    start = len(rows) - 1
    while start > 0 and len(rows[start - 1]) == width:
        start -= 1
    if width < 2:
        return None
    if start > 0:
        header = rows[start - 1]
        row_names = len(header) == width - 1 > 1 and not is_number(rows[start][0])
        end_delimiter = len(header) == width + 1 and not header[-1].strip()
        if row_names or end_delimiter:
            start -= 1
    if start == 0:
        return 0, width
    has_header = not any(is_number(cell) for cell in rows[start])
    notes_only = all(len(row) < width for row in rows[:start])
    return (start, width) if has_header and notes_only and delimiter != WHITESPACE else None


def _quote(first_line: str) -> str:
    """``'`` when the header is written in single quotes ('OBS' 'GPA'), else ``"``."""
    return "'" if first_line.lstrip().startswith("'") and '"' not in first_line else '"'


def find_layout(lines: list[str]) -> Layout:
    """The delimiter, quote and table start of the sample ``lines`` (non-blank, at least one).

    The sniffed delimiter wins when it splits the whole sample into an even
    table; else the delimiter whose table starts earliest (the fewest lines of
    notes above it); else the sniffed one, and the parser says what is wrong.
    """
    quote = _quote(lines[0])
    sniffed = _sniff_delimiter(lines)
    best: Layout | None = None
    for delimiter in (sniffed, *(d for d in DELIMITERS if d != sniffed), WHITESPACE):
        table = _table_start(lines, delimiter, quote)
        if table is not None and (best is None or table[0] < best.start):
            best = Layout(delimiter, quote, *table)
            if best.start == 0:
                break
    return best or Layout(sniffed, quote)
