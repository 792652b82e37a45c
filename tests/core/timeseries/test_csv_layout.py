"""read_series on the layouts classic public files use: spaces between values, names in
single quotes, a byte-order mark, no header, notes above and below the table, R's row names.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import attention_core as ac
from attention_core.timeseries.csv_layout import is_number

# --- Spaces between values ------------------------------------------------------


def test_values_separated_by_runs_of_spaces_with_single_quoted_names() -> None:
    # spector.csv from statsmodels, as R and Stata write it.
    frame = ac.read_series(b"'OBS' 'GPA' 'TUCE'\n1 2.66 20\n2  2.89   22\n3 3.28 24\n")
    assert list(frame.columns) == ["GPA", "TUCE"]
    assert frame.to_numpy().tolist() == [[2.66, 20.0], [2.89, 22.0], [3.28, 24.0]]
    report = ac.series_report(frame)
    assert (report.delimiter, report.has_header) == (" ", True)


def test_headerless_space_separated_numbers_get_numbered_columns() -> None:
    # E6_jmulti.csv: two columns of numbers, no header.
    frame = ac.read_series(b"-0.00313258 0.083\n0.0188713 0.083\n0.0248036 0.087\n")
    assert list(frame.columns) == ["column 1", "column 2"]
    assert frame["column 1"].tolist() == [-0.00313258, 0.0188713, 0.0248036]
    assert ac.series_report(frame).has_header is False


def test_lines_starting_with_spaces_are_aligned_columns_not_empty_values() -> None:
    frame = ac.read_series(b"  x     y\n  1.5  10.5\n 12.5   2.5\n")
    assert frame.to_numpy().tolist() == [[1.5, 10.5], [12.5, 2.5]]


def test_a_comma_file_with_spaces_inside_its_text_stays_a_comma_file() -> None:
    frame = ac.read_series(b"city,value\nNew York,1.5\nLos Angeles,2.5\nSan Jose,3.5\n")
    assert ac.series_report(frame).delimiter == ","
    assert frame["value"].tolist() == [1.5, 2.5, 3.5]


def test_numbers_with_spaces_in_one_column_are_not_split_into_two() -> None:
    with_spaces = b"value\n1 000.5\n2 000.5\n3 000.5\n"
    try:
        frame = ac.read_series(with_spaces)
    except ac.InputError as error:
        assert "No column of numbers" in str(error)
    else:
        raise AssertionError(f"read as {frame.columns.tolist()}")


# --- Quotes, byte-order mark --------------------------------------------------------


def test_tab_separated_names_in_single_quotes_lose_their_quotes() -> None:
    # anes96.csv's header.
    frame = ac.read_series(b"'popul'\t'TVnews'\n0\t7\n190\t1\n31\t7\n")
    assert list(frame.columns) == ["popul", "TVnews"]


def test_double_quoted_names_and_a_byte_order_mark() -> None:
    frame = ac.read_series('\ufeff"price","volume"\n1.5,2\n3.5,4\n'.encode())
    assert list(frame.columns) == ["price", "volume"]
    assert ac.series_report(frame).encoding == "UTF-8 with BOM"


# --- Notes around the table, R's row names ---------------------------------------------

BLS_DOWNLOAD = (
    "Series Id:           LNS14000000Q\n\nSeasonally Adjusted\n"
    "Series title:        (Seas) Unemployment Rate\n\n"
    "Series id,Year,Period,Value,\n"
    "LNS14000000Q,1959,Q01,5.8\nLNS14000000Q,1959,Q02,5.1\nLNS14000000Q,1959,Q03,5.3\n"
)


def test_notes_above_the_table_are_skipped_and_said() -> None:
    frame = ac.read_series(BLS_DOWNLOAD.encode())
    assert frame["Value"].tolist() == [5.8, 5.1, 5.3]
    report = ac.series_report(frame)
    assert "The first 5 lines are notes above the table and were skipped." in report.notes
    assert report.dropped == (("Series id", "text, not numbers (e.g. 'LNS14000000Q')"),)


def test_notes_below_the_table_are_skipped_and_said() -> None:
    text = 'area,people\n"A",1.5\n"B",2.5\n"C",3.5\n=====\nFootnotes\n"1 - Adjusted for age."\n'
    frame = ac.read_series(text.encode())
    assert frame["people"].tolist() == [1.5, 2.5, 3.5]
    assert "The last 3 lines are notes below the table and were skipped." in (
        ac.series_report(frame).notes
    )


def test_a_short_last_row_with_a_number_is_data_not_a_note() -> None:
    frame = ac.read_series(b"a,b\n1.5,2.5\n3.5,4.5\n5.5\n")
    assert frame["a"].tolist() == [1.5, 3.5, 5.5]
    assert frame["b"].tolist() == [2.5, 4.5, 4.5]  # filled, as before


def test_r_row_names_under_no_header_name_are_a_text_column() -> None:
    # statsmodels' scotland/src/scotvote.csv, written by R's write.table.
    text = '"yes" "tax"\n"Aberdeen" 60.3 712\n"Angus" 53.4 679\n"Fife" 55.2 683\n'
    frame = ac.read_series(text.encode())
    assert list(frame.columns) == ["yes", "tax"]
    assert frame["tax"].tolist() == [712.0, 679.0, 683.0]
    assert ac.series_report(frame).dropped == (
        ("row names", "text, not numbers (e.g. 'Aberdeen')"),
    )


def test_a_ragged_row_is_still_refused() -> None:
    try:
        ac.read_series(b"a,b\n1,2\n3,4,5\n6,7\n")
    except ac.InputError as error:
        assert "same number of values" in str(error)
    else:
        raise AssertionError("a row with three values under two names was read")


# --- Any generated table reads back the same numbers -----------------------------------

NAMES = st.from_regex(r"[A-Za-z][A-Za-z_]{0,7}", fullmatch=True).filter(
    lambda name: not is_number(name) and name.casefold() not in {"na", "nan", "null", "none"}
)
# Never whole, so no column can pass for years, row numbers or a code.
VALUES = st.integers(-(10**6), 10**6).map(lambda k: k + 0.25)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[float]]]:
    n_columns = draw(st.integers(1, 4))
    names = draw(st.lists(NAMES, min_size=n_columns, max_size=n_columns, unique_by=str.casefold))
    rows = draw(st.lists(st.lists(VALUES, min_size=n_columns, max_size=n_columns), min_size=2))
    return names, rows


@given(
    tables(),
    st.sampled_from([",", ";", "\t", " ", "   "]),
    st.sampled_from(["", '"', "'"]),
    st.booleans(),
    st.booleans(),
)
def test_any_delimiter_quote_header_and_bom_read_back_the_same_numbers(
    table: tuple[list[str], list[list[float]]], sep: str, quote: str, header: bool, bom: bool
) -> None:
    names, rows = table
    lines = [sep.join(f"{quote}{name}{quote}" for name in names)] if header else []
    lines += [sep.join(repr(value) for value in row) for row in rows]
    text = ("\ufeff" if bom else "") + "\n".join(lines) + "\n"
    frame = ac.read_series(text.encode())
    expected = names if header else [f"column {i + 1}" for i in range(len(names))]
    assert list(frame.columns) == expected
    np.testing.assert_array_equal(frame.to_numpy(), np.array(rows))
    assert ac.series_report(frame).time_columns == ()
