"""Every CSV file statsmodels ships reads as a new user would want: the time axis found where
there is one, a series of values offered as the target, the whitespace files in columns.

The files come from statsmodels' pinned wheel (``make series``, see
:mod:`harness.series_files`); nothing of it is committed.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import attention_core as ac
from harness.series_files import real_series_dir

# file → (time-axis columns, their kind, the default target, (rows, columns) read).
# No time axis: cross sections (survey answers, states, firms), where rows are numbered.
EXPECTED = {
    "anes96/anes96.csv": ((), "", "popul", (944, 10)),
    "anes96/src/anes96.csv": ((), "", "popul", (944, 11)),
    "cancer/cancer.csv": ((), "", "cancer", (301, 2)),
    "ccard/ccard.csv": ((), "", "AVGEXP", (72, 5)),
    "ccard/src/ccard.csv": ((), "", "MDR", (100, 7)),
    "china_smoking/china_smoking.csv": ((), "", "smoking_yes_cancer_yes", (8, 4)),
    "co2/co2.csv": (("date",), "dates", "co2", (2284, 1)),
    "committee/committee.csv": ((), "", "BILLS104", (20, 6)),
    "copper/copper.csv": (("YEAR",), "years", "WORLDCONSUMPTION", (25, 5)),
    "cpunish/cpunish.csv": ((), "", "EXECUTIONS", (17, 7)),
    "danish_data/data.csv": (("period",), "quarters", "lrm", (55, 5)),
    "elec_equip/elec_equip.csv": (("DATE",), "dates", "STS.M.I7.W.TOVT.NS0016.4.000", (257, 1)),
    "elnino/elnino.csv": (("YEAR",), "months", "value", (732, 1)),  # 61 years of 12 months
    "engel/engel.csv": ((), "", "income", (235, 2)),
    "fair/fair.csv": ((), "", "rate_marriage", (6366, 9)),
    "fair/fair_pt.csv": ((), "", "age", (601, 10)),  # not "constant" (all 1) nor "sex" (0/1)
    # World Bank layout: a country per row, a column per year (1960-2013; 2012 and 2013 empty).
    "fertility/fertility.csv": ((), "years", "Aruba", (52, 50)),
    "grunfeld/grunfeld.csv": ((), "", "invest", (220, 3)),  # eleven firms' years, one after another
    "grunfeld/src/grunfeld.csv": ((), "", "invest", (220, 3)),
    "heart/heart.csv": ((), "", "survival", (69, 3)),
    "interest_inflation/E6.csv": (("year", "quarter"), "quarters", "Dp", (107, 2)),
    "interest_inflation/E6_jmulti.csv": ((), "", "column 1", (107, 2)),
    "longley/longley.csv": (("YEAR",), "years", "TOTEMP", (16, 6)),
    "macrodata/macrodata.csv": (("year", "quarter"), "quarters", "realgdp", (203, 12)),
    "macrodata/src/unemp.csv": (("Year", "Period"), "quarters", "Value", (203, 1)),
    "modechoice/modechoice.csv": ((), "", "ttme", (840, 9)),  # not the traveller, mode or choice
    "modechoice/src/TableF18-2.csv": ((), "", "TTME", (840, 7)),  # not MODE (0/1)
    "nile/nile.csv": (("year",), "years", "volume", (100, 1)),
    "randhie/randhie.csv": ((), "", "mdvis", (20190, 10)),
    "randhie/src/randhie.csv": (
        (),
        "",
        "plan",
        (15728, 45),
    ),  # rows before every column has a value: dropped
    "scotland/scotvote.csv": ((), "", "YES", (32, 8)),
    "scotland/src/scotland_population.csv": ((), "", "Area (sq km)", (34, 12)),  # notes around it
    "scotland/src/scotvote.csv": ((), "", "PrivateHousingStarts", (32, 42)),  # R's row names
    "spector/spector.csv": (("OBS",), "row numbers", "GPA", (32, 4)),
    "stackloss/stackloss.csv": ((), "", "STACKLOSS", (21, 4)),
    "star98/star98.csv": ((), "", "MATHTOT", (303, 22)),
    "statecrime/statecrime.csv": ((), "", "violent", (51, 7)),
    "strikes/strikes.csv": ((), "", "duration", (62, 2)),
    "sunspots/sunspots.csv": (("YEAR",), "years", "SUNACTIVITY", (309, 1)),
}
# The first time step of each file with a time axis.
FIRST_STEP = {
    "co2/co2.csv": pd.Timestamp("1958-03-29"),
    "copper/copper.csv": pd.Timestamp("1951-01-01"),
    "danish_data/data.csv": pd.Timestamp("1974-01-01"),
    "elec_equip/elec_equip.csv": pd.Timestamp("1995-01-01"),
    "elnino/elnino.csv": pd.Timestamp("1950-01-01"),
    "fertility/fertility.csv": pd.Timestamp("1960-01-01"),
    "interest_inflation/E6.csv": pd.Timestamp("1972-04-01"),
    "longley/longley.csv": pd.Timestamp("1947-01-01"),
    "macrodata/macrodata.csv": pd.Timestamp("1959-01-01"),
    "macrodata/src/unemp.csv": pd.Timestamp("1959-01-01"),
    "nile/nile.csv": pd.Timestamp("1871-01-01"),
    "spector/spector.csv": 1,
    "sunspots/sunspots.csv": pd.Timestamp("1700-01-01"),
}
# Files that are no series the page can take, and the InputError that says why (none left).
REFUSED: dict[str, str] = {}
# Separated by runs of spaces (or tabs), names quoted with ' or not: every column by name.
SPACED = {
    "anes96/anes96.csv": "popul TVnews selfLR ClinLR DoleLR PID age educ income vote",
    "anes96/src/anes96.csv": "popul TVnews selfLR ClinLR DoleLR PID age educ income vote reldist",
    "interest_inflation/E6_jmulti.csv": "column 1|column 2",
    "spector/spector.csv": "GPA TUCE PSI GRADE",
}


@pytest.fixture(scope="module")
def folder() -> Path:
    return real_series_dir()


def test_the_table_names_every_csv_file_of_the_wheel(folder: Path) -> None:
    found = {path.relative_to(folder).as_posix() for path in folder.rglob("*.csv")}
    assert found == set(EXPECTED) | set(REFUSED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_file_reads_with_its_time_axis_and_a_series_of_values_as_target(
    folder: Path, name: str
) -> None:
    frame = ac.read_series(folder / name)
    report = ac.series_report(frame)
    time_columns, kind, target, shape = EXPECTED[name]
    assert (report.time_columns, report.time_kind) == (time_columns, kind)
    assert ac.default_target(frame) == target
    assert frame.shape == shape
    assert not set(time_columns) & set(frame.columns)  # the calendar is no feature
    if kind in ("dates", "years", "quarters", "months"):
        assert isinstance(frame.index, pd.DatetimeIndex) and frame.index.is_monotonic_increasing
    else:
        assert isinstance(frame.index, pd.RangeIndex)
    if name in FIRST_STEP:
        assert frame.index[0] == FIRST_STEP[name]


def test_a_country_per_row_becomes_a_column_per_country_along_the_years(folder: Path) -> None:
    frame = ac.read_series(folder / "fertility/fertility.csv")
    assert list(frame.columns[:3]) == ["Aruba", "Afghanistan", "Angola"]  # Andorra: none in 1960
    assert frame["Aruba"].iloc[:3].tolist() == [4.82, 4.655, 4.471]
    assert frame.index[-1] == pd.Timestamp("2011-01-01")  # 2012 and 2013 have no value yet
    layout = ac.series_report(frame).layout
    assert "a row per series and a column per year (1960 … 2011)" in layout
    assert "named by 'Country Name'" in layout and "50 of its 219 rows are kept" in layout


@pytest.mark.parametrize("name", sorted(SPACED))
def test_the_whitespace_and_quoted_files_read_their_columns(folder: Path, name: str) -> None:
    columns = SPACED[name].split("|" if "|" in SPACED[name] else " ")
    frame = ac.read_series(folder / name)
    assert list(frame.columns) == columns
    assert ac.series_report(frame).delimiter == ("\t" if name == "anes96/anes96.csv" else " ")


def test_the_sunspot_numbers_are_the_files_own(folder: Path) -> None:
    frame = ac.read_series(folder / "sunspots/sunspots.csv")
    assert frame["SUNACTIVITY"].iloc[:4].tolist() == [5.0, 11.0, 16.0, 23.0]
    assert frame.index[-1] == pd.Timestamp("2008-01-01")
