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
