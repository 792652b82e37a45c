"""A measured figure quoted in the README or docs/ is the one in BENCHMARKS.md's table.

The documents link to BENCHMARKS.md instead of copying figures. Where a figure must
appear in prose, it is marked with the name of its row in benchmarks/results.json:

    **601.1 MB**<!-- bench: memory: server peak, 30 students over every page, ... -->

and this test compares the two, so the prose cannot drift from the table.
"""

from __future__ import annotations

import re

from benchmarks import report

DOCUMENTS = [report.ROOT / "README.md", *sorted((report.ROOT / "docs").glob("*.md"))]
MARKED = re.compile(
    r"(?P<figure>-?[0-9][0-9.]*) (?P<unit>[^\s*<]+)\**\s*<!-- bench: (?P<name>.+?) -->"
)
MARKER = re.compile(r"<!-- bench: (.+?) -->")


def _rows() -> dict[str, dict]:
    run = report.read_results()
    return {row["name"]: row for rows in run["benchmarks"].values() for row in rows}


def test_marks_are_read_from_prose() -> None:
    text = "peaks at **601.1 MB**<!-- bench: memory: server peak, x -->"
    found = MARKED.search(text)
    assert found is not None
    assert found.group("figure", "unit", "name") == ("601.1", "MB", "memory: server peak, x")


def test_every_marked_figure_matches_its_row_in_the_results() -> None:
    rows = _rows()
    checked, wrong = 0, []
    for document in DOCUMENTS:
        text = document.read_text()
        assert len(MARKED.findall(text)) == len(MARKER.findall(text)), (
            f"{document.name}: a bench mark not right after a figure and its unit"
        )
        for found in MARKED.finditer(text):
            row = rows.get(found["name"])
            if row is None or (float(found["figure"]), found["unit"]) != (
                row["figure"],
                row["unit"],
            ):
                wrong.append((document.name, found.group(0)))
            checked += 1
    assert wrong == []
    assert checked > 0
