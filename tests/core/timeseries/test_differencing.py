"""Forecasting the change: difference and integrate, and a dataset of changes judged on levels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as ac

values = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def series(draw):
    """``(N, p)`` with N in 2..40 rows and p in 1..3 columns of finite numbers."""
    rows, columns = draw(st.integers(2, 40)), draw(st.integers(1, 3))
    return draw(arrays(np.float64, (rows, columns), elements=values))


# --- difference and integrate ------------------------------------------------------


def test_difference_is_each_row_minus_the_row_before() -> None:
    levels = np.array([[1.0, 10.0], [4.0, 10.0], [2.0, 13.0]])
    np.testing.assert_array_equal(ac.difference(levels), [[3.0, 0.0], [-2.0, 3.0]])


def test_integrate_adds_the_changes_to_the_start_one_after_another() -> None:
    np.testing.assert_array_equal(ac.integrate(5.0, np.array([1.0, -2.0, 0.5])), [6.0, 4.0, 4.5])


def test_a_one_step_level_forecast_is_the_last_level_plus_the_forecast_change() -> None:
    last_levels, changes = np.array([100.0, 7.0]), np.array([2.5, -1.0])
    np.testing.assert_array_equal(ac.integrate(last_levels, changes[None])[0], [102.5, 6.0])


@given(series())
def test_integrating_the_differences_from_the_first_row_gives_the_series_back(
    levels: np.ndarray,
) -> None:
    changes = ac.difference(levels)
    assert changes.shape == (len(levels) - 1, levels.shape[1])
    rebuilt = ac.integrate(levels[0], changes)
    np.testing.assert_allclose(rebuilt, levels[1:], rtol=1e-9, atol=1e-6 * len(levels))


@given(series(), arrays(np.float64, 3, elements=values))
def test_differencing_integrated_changes_gives_the_changes_back(
    changes: np.ndarray, start: np.ndarray
) -> None:
    start = start[: changes.shape[1]]
    levels = np.vstack([start, ac.integrate(start, changes)])
    np.testing.assert_allclose(ac.difference(levels), changes, rtol=1e-9, atol=1e-3)


# --- A dataset of changes ------------------------------------------------------------


def rising(n_rows: int = 60) -> pd.DataFrame:
    """A steady rise with a wobble: level 10 + 2t + (t mod 3), and a second column 100 - t."""
    t = np.arange(n_rows, dtype=float)
    return pd.DataFrame({"y": 10 + 2 * t + t % 3, "x": 100 - t})


def test_a_differenced_dataset_holds_each_rows_change_and_row_0_holds_none() -> None:
    dataset = ac.prepare_dataset(rising(), ["y", "x"], "y", 5, "none", differenced=True)
    assert dataset.differenced
    assert np.isnan(dataset.features[0]).all() and np.isnan(dataset.target[0])
    np.testing.assert_array_equal(dataset.features[1:4], [[3, -1], [3, -1], [0, -1]])
    np.testing.assert_array_equal(dataset.target[1:], ac.difference(rising()["y"].to_numpy()))
    np.testing.assert_array_equal(dataset.levels, rising()["y"].to_numpy())
    assert dataset.train_ends[0] == 5  # the first window is rows 1..5: row 0 has no change


def test_changes_and_levels_are_validated_on_the_same_windows() -> None:
    for n_rows in (26, 27, 60, 101):
        level = ac.prepare_dataset(rising(n_rows), ["y"], "y", 5)
        change = ac.prepare_dataset(rising(n_rows), ["y"], "y", 5, differenced=True)
        np.testing.assert_array_equal(change.val_ends, level.val_ends)
        np.testing.assert_array_equal(change.train_ends, level.train_ends[1:])


def test_the_scalers_of_changes_see_only_the_training_windows_changes() -> None:
    frame = rising()
    dataset = ac.prepare_dataset(frame, ["y"], "y", 5, "zscore", differenced=True)
    rows = slice(1, int(dataset.train_ends[-1]) + 2)  # changes read or forecast in training
    changes = ac.difference(frame[["y"]].to_numpy())[rows.start - 1 : rows.stop - 1]
    assert dataset.target_scaler.offset[0] == pytest.approx(changes.mean())
    assert dataset.target_scaler.scale[0] == pytest.approx(changes.std())


def test_forecast_changes_are_read_back_as_levels_one_step_on() -> None:
    dataset = ac.prepare_dataset(rising(), ["y"], "y", 5, "zscore", differenced=True)
    ends = dataset.val_ends
    scaled = dataset.target_scaler.transform(np.full((len(ends), 1), 2.0))[:, 0]  # +2 each
    np.testing.assert_allclose(dataset.level_forecasts(ends, scaled), dataset.levels[ends] + 2)


def test_level_forecasts_of_a_level_dataset_are_only_unscaled() -> None:
    dataset = ac.prepare_dataset(rising(), ["y"], "y", 5, "minmax")
    ends = dataset.val_ends
    np.testing.assert_allclose(
        dataset.level_forecasts(ends, dataset.target[ends + 1]), dataset.levels[ends + 1], 1e-6
    )


def test_true_changes_read_back_as_the_actual_levels() -> None:
    dataset = ac.prepare_dataset(rising(), ["y"], "y", 5, "zscore", differenced=True)
    ends = dataset.val_ends
    levels = dataset.level_forecasts(ends, dataset.target[ends + 1])
    np.testing.assert_allclose(levels, dataset.levels[ends + 1], rtol=1e-6)


def test_training_on_changes_needs_one_row_more_and_says_so() -> None:
    assert ac.check_window(40, 30, training=True) == 30
    with pytest.raises(ac.InputError, match="on the changes needs at least 41"):
        ac.check_window(40, 30, training=True, differenced=True)
