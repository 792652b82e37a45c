"""A wide table (a year per row, a column per month or quarter) read as one series."""

from __future__ import annotations

import pandas as pd

import attention_core as ac
from attention_core.timeseries.wide_table import season_columns

MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def elnino_like(years: dict[int, list[str]], extra: str = "") -> bytes:
    header = '"YEAR",' + ",".join(f'"{month}"' for month in MONTHS) + extra
    rows = [f"{year}," + ",".join(cells) for year, cells in years.items()]
    return ("\n".join([header, *rows]) + "\n").encode()


def test_a_year_per_row_and_a_column_per_month_is_one_monthly_series() -> None:
    data = elnino_like(
        {1950: [f"{20 + m}.5" for m in range(12)], 1951: [f"{30 + m}.5" for m in range(12)]}
    )
    frame = ac.read_series(data)
    assert list(frame.columns) == ["value"]
    assert frame["value"].tolist() == [20.5 + m for m in range(12)] + [30.5 + m for m in range(12)]
    assert frame.index[0] == pd.Timestamp("1950-01-01")
    assert frame.index[-1] == pd.Timestamp("1951-12-01")
    report = ac.series_report(frame)
    assert (report.time_columns, report.time_kind) == (("YEAR",), "months")
    assert report.layout == (
        "a year per row and a column per month (JAN … DEC), read as one monthly series, 'value'"
    )


def test_months_of_a_year_not_over_yet_are_left_out_and_said() -> None:
    data = elnino_like({2023: [f"{m}.5" for m in range(12)], 2024: ["1.5", "2.5"] + [""] * 10})
    frame = ac.read_series(data)
    assert len(frame) == 14 and frame.index[-1] == pd.Timestamp("2024-02-01")
    assert "The last 10 months of the last year have no value yet and were left out." in (
        ac.series_report(frame).notes
    )


def test_a_yearly_summary_beside_the_months_is_left_out_with_the_reason() -> None:
    # GISS temperature tables end with "J-D", the January–December mean.
    cells = [f"{m}.5" for m in range(12)]
    data = elnino_like({2000: [*cells, "6.0"], 2001: [*cells, "6.0"]}, extra=',"J-D"')
    report = ac.series_report(ac.read_series(data))
    assert report.dropped == (("J-D", "not a month: left out of the monthly series"),)


def test_a_year_missing_keeps_the_twelve_columns() -> None:
    cells = [f"{m}.5" for m in range(12)]
    frame = ac.read_series(elnino_like({1950: cells, 1952: cells, 1954: cells}))
    assert list(frame.columns) == list(MONTHS)
    assert ac.series_report(frame).layout == ""


def test_quarters_as_columns() -> None:
    frame = ac.read_series(b"year,Q1,Q2,Q3,Q4\n2000,1.5,2.5,3.5,4.5\n2001,5.5,6.5,7.5,8.5\n")
    assert frame["value"].tolist() == [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]
    assert frame.index[5] == pd.Timestamp("2001-04-01")
    assert ac.series_report(frame).time_kind == "quarters"


def test_month_names_are_read_in_any_common_spelling_but_only_all_twelve_in_order() -> None:
    full = ["January", "February", "March", "April", "May", "June", "July", "August",
            "Sept", "Oct.", "nov", "DECEMBER"]  # fmt: skip
    assert season_columns(["Year", *full]) == ("months", full)
    assert season_columns(["Year", *full[:11]]) is None
    assert season_columns(["Year", *reversed(full)]) is None
