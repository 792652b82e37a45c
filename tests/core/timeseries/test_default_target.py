"""The column the page offers to forecast: the first series of values, not a code or a key."""

from __future__ import annotations

import pandas as pd

import attention_core as ac


def test_the_first_column_of_values_is_the_default_target() -> None:
    frame = pd.DataFrame({"SUNACTIVITY": [5.0, 11.0, 16.0, 23.0], "other": [1.0, 2.0, 3.0, 4.0]})
    assert ac.default_target(frame) == "SUNACTIVITY"


def test_a_constant_and_a_yes_no_column_are_skipped() -> None:
    # fair_pt.csv: "constant" (all 1.0) and "sex" (0 or 1) come before "age".
    frame = pd.DataFrame(
        {"constant": [1.0] * 4, "sex": [1.0, 0.0, 0.0, 1.0], "age": [37.0, 27.0, 32.0, 57.0]}
    )
    assert ac.default_target(frame) == "age"


def test_a_key_numbering_blocks_of_rows_and_a_cycling_code_are_skipped() -> None:
    # modechoice.csv: "individual" 1, 1, 1, 1, 2, …; "mode" 1, 2, 3, 4, 1, …; "choice" 0/1.
    frame = pd.DataFrame(
        {
            "individual": [1.0, 1, 1, 1, 2, 2, 2, 2],
            "mode": [1.0, 2, 3, 4, 1, 2, 3, 4],
            "choice": [0.0, 0, 0, 1, 0, 1, 0, 0],
            "ttme": [69.0, 34, 35, 0, 64, 44, 53, 0],
        }
    )
    assert ac.default_target(frame) == "ttme"


def test_without_a_column_of_values_the_first_column() -> None:
    assert ac.default_target(pd.DataFrame({"a": [0.0, 1.0], "b": [1.0, 1.0]})) == "a"


def panel() -> dict[str, list[float]]:
    """randhie's layout: people (zper) over their years, each on one plan."""
    return {
        "plan": [3.0, 3, 3, 11, 11, 11, 11, 5, 5],
        "year": [1.0, 2, 3, 1, 2, 4, 5, 1, 2],  # a year missing: still each person's clock
        "zper": [125024.0, 125024, 125024, 125031, 125031, 125031, 125031, 125107, 125107],
        "time": [1.0] * 9,
        "outpdol": [82.7, 5.3, 19.8, 0.0, 0.0, 30.6, 128.0, 19.8, 41.5],
    }


def test_in_a_panel_a_persons_labels_and_clock_are_skipped() -> None:
    assert ac.default_target(pd.DataFrame(panel())) == "outpdol"


def test_without_a_key_numbering_blocks_a_code_like_column_is_a_series() -> None:
    # Without zper nothing says plan labels blocks of rows: it is a column of values.
    frame = pd.DataFrame({k: v for k, v in panel().items() if k not in {"zper", "year"}})
    assert ac.default_target(frame) == "plan"


def test_one_value_in_nearly_every_row_is_skipped_but_a_mostly_zero_count_is_not() -> None:
    # ccard.csv's MDR (derogatory reports) is 0 in 82 of 100 rows: still a count to forecast.
    mdr = [0.0] * 82 + [1.0] * 10 + [2.0, 3.0, 7.0] * 2 + [4.0, 3.0]
    nearly = [1.0] * 99 + [0.5]
    frame = pd.DataFrame({"time": nearly, "MDR": mdr, "Age": list(range(100))})
    assert ac.default_target(frame) == "MDR"
