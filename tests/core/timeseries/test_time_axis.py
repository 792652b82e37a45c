"""The time axis read_series finds: dates in their common forms, years, quarters and
months, row numbers; in that order of preference, and never a column of values.
"""

from __future__ import annotations

import datetime

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import attention_core as ac


def read(text: str) -> tuple[pd.DataFrame, ac.SeriesReport]:
    frame = ac.read_series(text.encode())
    return frame, ac.series_report(frame)


# --- Each kind of time axis -------------------------------------------------------------


def test_yyyymmdd_whole_numbers_are_dates() -> None:
    # co2.csv from statsmodels.
    frame, report = read("date,co2\n19580329,316.1\n19580405,317.3\n19580412,317.6\n")
    assert list(frame.columns) == ["co2"]
    assert frame.index.tolist() == [
        pd.Timestamp(f"1958-{day}") for day in ("03-29", "04-05", "04-12")
    ]
    assert (report.time_columns, report.time_kind) == (("date",), "dates")


def test_whole_number_years_are_the_time_axis_not_the_target() -> None:
    # sunspots.csv: the page forecast the calendar (1700, 1701, …) before.
    frame, report = read('"YEAR","SUNACTIVITY"\n1700,5\n1701,11\n1702,16\n1703,23\n')
    assert list(frame.columns) == ["SUNACTIVITY"]
    assert isinstance(frame.index, pd.DatetimeIndex)
    assert frame.index.year.tolist() == [1700, 1701, 1702, 1703]
    assert (report.time_columns, report.time_kind) == (("YEAR",), "years")


def test_years_in_steady_steps_of_five() -> None:
    frame, _ = read("year,population\n1950,2.5\n1955,2.8\n1960,3.0\n")
    assert frame.index.year.tolist() == [1950, 1955, 1960]


@pytest.mark.parametrize(
    "cell",
    ["{y}Q{q}", "{y}-Q{q}", "{y} Q{q}", "Q{q} {y}", "q{q}-{y}"],
)
def test_a_year_and_quarter_in_one_column_start_each_quarter(cell: str) -> None:
    rows = "".join(f"{cell.format(y=1974, q=q)},{q * 1.5}\n" for q in (1, 2, 3, 4))
    frame, report = read("\ufeffperiod,lrm\n" + rows)  # danish_data/data.csv starts with a BOM
    assert frame.index.strftime("%Y-%m-%d").tolist() == [
        "1974-01-01",
        "1974-04-01",
        "1974-07-01",
        "1974-10-01",
    ]
    assert (report.time_columns, report.time_kind) == (("period",), "quarters")


@pytest.mark.parametrize("cell", ["{y}-{m:02d}", "{y}M{m:02d}", "{y}/{m:02d}", "{m:02d}/{y}"])
def test_a_year_and_month_in_one_column_start_each_month(cell: str) -> None:
    rows = "".join(f"{cell.format(y=1959, m=m)},{m}.5\n" for m in (3, 4, 5))
    frame, report = read("month,sales\n" + rows)
    assert frame.index.strftime("%Y-%m-%d").tolist() == ["1959-03-01", "1959-04-01", "1959-05-01"]
    assert report.time_kind == "months"


def test_year_and_quarter_columns_are_one_time_axis() -> None:
    # E6.csv from statsmodels starts in the second quarter.
    text = '"year","quarter","Dp","R"\n1972,2,-0.003,0.083\n1972,3,0.019,0.083\n'
    frame, report = read(text + "1972,4,0.025,0.087\n1973,1,0.016,0.087\n")
    assert list(frame.columns) == ["Dp", "R"]
    assert frame.index.strftime("%Y-%m").tolist() == ["1972-04", "1972-07", "1972-10", "1973-01"]
    assert (report.time_columns, report.time_kind) == (("year", "quarter"), "quarters")


def test_year_and_period_codes_as_the_us_labor_statistics_write_them() -> None:
    frame, report = read("Year,Period,Value\n1959,M11,5.8\n1959,M12,5.1\n1960,M01,5.3\n")
    assert frame.index.strftime("%Y-%m").tolist() == ["1959-11", "1959-12", "1960-01"]
    assert (report.time_columns, report.time_kind) == (("Year", "Period"), "months")


def test_a_month_column_is_months_even_in_the_first_quarter_and_quarters_stop_at_four() -> None:
    frame, report = read("year,month,sales\n2020,1,1.5\n2020,2,2.5\n2020,3,3.5\n")
    assert report.time_kind == "months"
    assert frame.index.strftime("%Y-%m").tolist() == ["2020-01", "2020-02", "2020-03"]
    frame, report = read("year,quarter,sales\n2020,11,1.5\n2020,12,2.5\n2021,1,3.5\n")
    assert report.time_columns == () and list(frame.columns) == ["quarter", "sales"]


def test_row_numbers_from_one_stay_integers() -> None:
    frame, report = read("OBS,GPA\n1,2.66\n2,2.89\n3,3.28\n")
    assert list(frame.columns) == ["GPA"]
    assert frame.index.tolist() == [1, 2, 3] and frame.index.name == "OBS"
    assert (report.time_columns, report.time_kind) == (("OBS",), "row numbers")


def test_pandas_unnamed_index_from_zero_is_row_numbers() -> None:
    frame, report = read(",price\n0,1.5\n1,2.5\n2,3.5\n")
    assert list(frame.columns) == ["price"] and frame.index.tolist() == [0, 1, 2]
    assert report.time_kind == "row numbers"


def test_without_a_time_axis_the_rows_are_numbered_as_before() -> None:
    frame, report = read("income,foodexp\n420.2,255.8\n541.4,311.0\n901.2,485.7\n")
    assert frame.index.equals(pd.RangeIndex(3, name="row"))
    assert (report.time_columns, report.time_kind) == ((), "")


# --- Never a value, and the preferred one wins ------------------------------------------


def test_years_beat_row_numbers_and_the_row_numbers_are_left_out() -> None:
    # longley.csv: "Obs" 1..16 and "YEAR" 1947..1962.
    frame, report = read('"Obs","TOTEMP","YEAR"\n1,60323,1947\n2,61122,1948\n3,60171,1949\n')
    assert list(frame.columns) == ["TOTEMP"]
    assert report.time_columns == ("YEAR",)
    assert report.dropped == (("Obs", "row numbers (1, 2, 3, …), not values"),)


def test_a_column_of_values_rising_by_one_stays_a_value() -> None:
    frame, report = read("date,volume\n2024-01-01,1001\n2024-01-02,1002\n2024-01-03,1003\n")
    assert list(frame.columns) == ["volume"] and report.time_columns == ("date",)


def test_the_only_column_of_numbers_is_never_taken_for_the_time_axis() -> None:
    frame, report = read("year\n1990\n1991\n1992\n")
    assert list(frame.columns) == ["year"] and report.time_columns == ()


def test_years_that_go_back_are_a_calendar_left_out_with_the_reason() -> None:
    # grunfeld.csv: twenty years of one firm, then the next firm's.
    rows = [f"{100 + year}.5,GM,{year}" for year in (1935, 1936, 1937)]
    rows += [f"{50 + year}.5,GE,{year}" for year in (1935, 1936)]
    frame, report = read("invest,firm,year\n" + "\n".join(rows) + "\n")
    assert list(frame.columns) == ["invest"] and report.time_columns == ()
    assert report.dropped[-1] == (
        "year",
        "years: a calendar, not values; they go back from 1937 to 1935 in data row 4: the rows "
        "may hold several series one after another",
    )


def test_an_identifier_column_is_left_out() -> None:
    frame, report = read("identifier,age,rate\n4,37.0,4.5\n5,27.0,4.5\n11,32.0,3.5\n")
    assert list(frame.columns) == ["age", "rate"]
    assert report.dropped == (
        ("identifier", "an identifier (a different whole number in each row), not values"),
    )


# --- Round trips ------------------------------------------------------------------------


@given(st.lists(st.dates(datetime.date(1700, 1, 1), datetime.date(2199, 12, 31)), min_size=2))
def test_any_yyyymmdd_dates_read_back_as_those_dates_oldest_first(
    dates: list[datetime.date],
) -> None:
    rows = "".join(f"{day:%Y%m%d},{n}.5\n" for n, day in enumerate(dates))
    frame, report = read("date,value\n" + rows)
    assert report.time_kind == "dates"
    assert frame.index.tolist() == sorted(pd.Timestamp(day) for day in dates)


@given(st.integers(1000, 2150), st.integers(1, 4), st.integers(2, 40))
def test_year_and_quarter_columns_read_back_as_each_quarters_first_day(
    year: int, quarter: int, n_quarters: int
) -> None:
    ordinals = range(year * 4 + quarter - 1, year * 4 + quarter - 1 + n_quarters)
    rows = "".join(f"{q // 4},{q % 4 + 1},{q}.5\n" for q in ordinals)
    frame, report = read("year,quarter,gdp\n" + rows)
    assert report.time_columns == ("year", "quarter")
    expected = [pd.Timestamp(q // 4, 3 * (q % 4) + 1, 1) for q in ordinals]
    assert frame.index.tolist() == expected
    assert frame["gdp"].tolist() == [q + 0.5 for q in ordinals]


@pytest.mark.parametrize(
    ("dates", "labels"),
    [
        (["1700-01-01", "1701-01-01", "1702-01-01"], ["1700", "1701", "1702"]),
        (
            ["1974-01-01", "1974-04-01", "1974-07-01", "1974-10-01"],
            ["1974Q1", "1974Q2", "1974Q3", "1974Q4"],
        ),
        (["1950-01-01", "1950-02-01", "1950-03-01"], ["1950-01", "1950-02", "1950-03"]),
        (["1958-03-29", "1958-04-05"], ["1958-03-29", "1958-04-05"]),
        (["2024-01-01 09:30", "2024-01-01 09:31"], ["2024-01-01 09:30", "2024-01-01 09:31"]),
        (["2024-01-01", "2024-01-01"], ["2024", "2024 #2"]),
    ],
)
def test_window_labels_show_dates_as_finely_as_they_vary(
    dates: list[str], labels: list[str]
) -> None:
    assert ac.row_labels(pd.DatetimeIndex(dates)) == labels
