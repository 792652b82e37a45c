"""A table with a row per series and a column per year, read as one column per series."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import attention_core as ac
from attention_core.boundary.limits import MAX_SERIES_COLUMNS, MAX_TABLE_COLUMNS
from attention_core.timeseries.year_columns import MIN_YEARS, year_columns


def world_bank(rows: list[tuple[str, list[str]]], first_year: int = 1990) -> bytes:
    width = len(rows[0][1])
    header = "Country Name,Country Code," + ",".join(str(first_year + i) for i in range(width))
    lines = [f"{name},{name[:3].upper()}," + ",".join(cells) for name, cells in rows]
    return ("\n".join([header, *lines]) + "\n").encode()


def test_consecutive_years_in_the_header_are_found_and_others_are_not() -> None:
    assert year_columns(["Country", "Code", "1960", "1961", "1962", "1963", "1964"]) == [
        2,
        3,
        4,
        5,
        6,
    ]
    assert year_columns(['"2000"', '"2001"', '"2002"', '"2003"', '"2004"']) == [0, 1, 2, 3, 4]
    assert year_columns(["1960", "1961", "1962", "1963"]) is None  # fewer than MIN_YEARS
    assert year_columns(["1960", "1961", "1963", "1964", "1965"]) is None  # a year missing
    assert year_columns(["1960", "1961", "x", "1962", "1963", "1964"]) is None  # not side by side
    assert year_columns(["0001", "0002", "0003", "0004", "0005"]) is None  # not calendar years
    assert MIN_YEARS == 5


def test_each_row_becomes_a_column_along_the_years() -> None:
    frame = ac.read_series(
        world_bank(
            [
                ("Aruba", ["1.5", "2.5", "3.5", "4.5", "5.5"]),
                ("Chad", ["6.5", "7.5", "8.5", "9.5", "10.5"]),
            ]
        )
    )
    assert list(frame.columns) == ["Aruba", "Chad"]
    assert frame["Chad"].tolist() == [6.5, 7.5, 8.5, 9.5, 10.5]
    assert list(frame.index) == [pd.Timestamp(year=y, month=1, day=1) for y in range(1990, 1995)]
    report = ac.series_report(frame)
    assert report.time_kind == "years"
    assert report.layout == (
        "a row per series and a column per year (1990 … 1994), read as one column per row, "
        "each named by 'Country Name'"
    )


def test_years_with_no_value_yet_at_either_end_are_left_out() -> None:
    frame = ac.read_series(
        world_bank(
            [
                ("Aruba", ["", "2.5", "3.5", "4.5", "5.5", "6.5", ""]),
                ("Chad", ["", "7.5", "8.5", "9.5", "10.5", "11.5", ".."]),
            ]
        )
    )
    assert frame.index[0] == pd.Timestamp("1991-01-01")
    assert frame.index[-1] == pd.Timestamp("1995-01-01")
    assert frame["Aruba"].tolist() == [2.5, 3.5, 4.5, 5.5, 6.5]


def test_a_series_starting_later_is_left_out_and_names_stay_unique() -> None:
    cells = ["1.5", "2.5", "3.5", "4.5", "5.5"]
    frame = ac.read_series(
        world_bank(
            [
                ("Aruba", cells),
                ("Andorra", ["", "", "3.5", "4.5", "5.5"]),
                ("Aruba", cells),
                ("Aruba", cells),
            ]
        )
    )
    assert list(frame.columns) == ["Aruba", "Aruba (2)", "Aruba (3)"]
    assert len(frame) == 5


def test_more_rows_than_the_page_takes_keeps_the_first_and_says_so() -> None:
    rows = [(f"Land {i}", [f"{i}.{j}5" for j in range(6)]) for i in range(MAX_SERIES_COLUMNS + 9)]
    frame = ac.read_series(world_bank(rows))
    assert frame.shape == (6, MAX_SERIES_COLUMNS)
    assert frame.columns[-1] == f"Land {MAX_SERIES_COLUMNS - 1}"
    assert f"{MAX_SERIES_COLUMNS} of its {MAX_SERIES_COLUMNS + 9} rows are kept" in (
        ac.series_report(frame).layout
    )


def test_a_wide_table_of_years_up_to_the_table_limit_reads() -> None:
    years = MAX_TABLE_COLUMNS - 2
    values = np.arange(years) / 4
    frame = ac.read_series(world_bank([("Aruba", [f"{v}" for v in values])], first_year=1600))
    assert frame.shape == (years, 1)
    np.testing.assert_array_equal(frame["Aruba"].to_numpy(), values)


def test_a_year_table_past_the_table_limit_is_refused_with_its_limit() -> None:
    with pytest.raises(ac.InputError, match=f"the limit is {MAX_TABLE_COLUMNS}"):
        ac.read_series(world_bank([("Aruba", ["1.5"] * (MAX_TABLE_COLUMNS - 1))], 1500))


def test_a_wide_table_that_is_not_years_keeps_the_page_limit() -> None:
    header = ",".join(f"c{i}" for i in range(60))
    data = f"{header}\n{','.join(['1.5'] * 60)}\n{','.join(['2.5'] * 60)}\n".encode()
    with pytest.raises(
        ac.InputError,
        match=re.escape("The file has 60 columns; the limit is 50. Keep only the columns you want"),
    ):
        ac.read_series(data)


def test_year_columns_with_no_number_say_so() -> None:
    with pytest.raises(ac.InputError, match="a column per year but no number in any of them"):
        ac.read_series(world_bank([("Aruba", ["", "..", "", "", ""]), ("Chad", [""] * 5)]))
