"""Why the naive forecast may win, read from constructed series with known causes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attention_core as ac
from attention_core.timeseries.diagnosis import (
    CHANGE,
    LEVEL,
    SHORTER_WINDOW,
    SeriesMeasures,
    autocorrelations,
    chi_square_95,
    findings,
    ljung_box,
    measure_series,
    trend_r2,
)

N_ROWS, WINDOW = 400, 12  # 310 training windows: not "few"


def frame_of(values: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"y": values})


def seasonal(n_rows: int = N_ROWS) -> np.ndarray:
    """A season of 12 steps and a little noise around a fixed level: no trend, no shift."""
    t = np.arange(n_rows)
    return 10 + np.sin(2 * np.pi * t / 12) + 0.1 * np.random.default_rng(1).normal(size=n_rows)


def random_walk(n_rows: int = N_ROWS) -> np.ndarray:
    """Independent steps of ±1 (seed 2): the series whose best forecast is its last value."""
    return np.cumsum(np.random.default_rng(2).choice([-1.0, 1.0], size=n_rows))


def diagnose(values: np.ndarray, differenced: bool = False, window: int = WINDOW):
    dataset = ac.prepare_dataset(frame_of(values), ["y"], "y", window, differenced=differenced)
    return ac.diagnose_loss(dataset)


def kinds(diagnosis: ac.LossDiagnosis) -> list[str]:
    return [finding.kind for finding in diagnosis.findings]


# --- The measures ---------------------------------------------------------------------


def test_a_straight_line_has_r2_one_and_a_constant_r2_zero() -> None:
    assert trend_r2(3.0 + 0.5 * np.arange(20.0)) == pytest.approx(1.0)
    assert trend_r2(np.full(20, 4.0)) == 0.0
    assert trend_r2(np.array([0.0, 1.0, 0.0, 1.0])) == pytest.approx(0.2)  # slope 0.2 of 1.0


def test_alternating_values_correlate_minus_one_with_the_step_before() -> None:
    rho = autocorrelations(np.array([1.0, -1.0] * 5), 2)
    np.testing.assert_allclose(rho, [-0.9, 0.8])  # sum over n - k pairs, over n


def test_ljung_box_sums_the_squared_autocorrelations_of_the_lags() -> None:
    changes = np.array([1.0, -1.0] * 5)
    assert ljung_box(changes, 2) == pytest.approx(10 * 12 * (0.81 / 9 + 0.64 / 8))
    assert ljung_box(np.full(10, 0.5), 2) == np.inf  # a straight line: fully predictable


@pytest.mark.parametrize(("degrees", "quantile"), [(2, 5.991), (10, 18.307), (28, 41.337)])
def test_the_critical_value_is_chi_squares_95_percent_quantile_within_1_percent(
    degrees: int, quantile: float
) -> None:
    assert chi_square_95(degrees) == pytest.approx(quantile, rel=0.01)


def test_measures_read_the_levels_training_and_validation_see() -> None:
    values = np.arange(40.0)
    dataset = ac.prepare_dataset(frame_of(values), ["y"], "y", 5)
    measures = measure_series(dataset)
    assert (measures.lowest, measures.highest) == (0.0, float(dataset.train_ends[-1] + 1))
    assert measures.above == 1.0 and measures.below == 0.0  # every validation value is higher
    assert measures.trend_r2 == pytest.approx(1.0)
    assert measures.train_windows == len(dataset.train_ends) == 28


def test_levels_and_changes_of_one_series_measure_alike() -> None:
    levels, changes = measure_series_both(seasonal())
    assert (changes.trend_r2, changes.shift, changes.noise_q) == pytest.approx(
        (levels.trend_r2, levels.shift, levels.noise_q)
    )
    assert changes.train_windows == levels.train_windows - 1


def measure_series_both(values: np.ndarray) -> tuple[SeriesMeasures, SeriesMeasures]:
    return tuple(
        measure_series(ac.prepare_dataset(frame_of(values), ["y"], "y", WINDOW, differenced=d))
        for d in (False, True)
    )


# --- Findings on levels ---------------------------------------------------------------------


def test_a_rising_series_lies_above_training_and_trends_so_forecast_the_change() -> None:
    t = np.arange(N_ROWS)
    diagnosis = diagnose(0.1 * t + np.sin(2 * np.pi * t / 12))
    assert kinds(diagnosis) == ["outside", "trend"]
    assert diagnosis.remedy == CHANGE
    assert diagnosis.findings[0].words.startswith("94% of the validation values lie above every")


def test_a_falling_series_lies_below_every_training_value() -> None:
    diagnosis = diagnose(-0.1 * np.arange(N_ROWS) + np.sin(np.arange(N_ROWS)))
    assert "lie below every value" in diagnosis.findings[0].words
    assert "the lowest was" in diagnosis.findings[0].words


def test_a_level_shift_inside_the_training_range_is_a_shift_not_out_of_range() -> None:
    values = seasonal()
    values[50:70] += 9  # one early spell high, so the later level is not new
    values[-80:] += 8  # the validation windows' values: all of them shifted
    diagnosis = diagnose(values)
    assert kinds(diagnosis) == ["shift"]
    assert diagnosis.measures.above == 0.0
    assert "standard deviations above the training values' mean" in diagnosis.findings[0].words
    assert diagnosis.remedy == CHANGE


def test_steps_like_noise_say_the_naive_forecast_is_hard_to_beat() -> None:
    diagnosis = diagnose(random_walk())
    assert "noise" in kinds(diagnosis)
    assert diagnosis.measures.noise_q < diagnosis.measures.noise_critical
    noise = diagnosis.findings[kinds(diagnosis).index("noise")]
    assert "no model beats it on average" in noise.words and noise.remedy == CHANGE


def test_a_season_around_a_fixed_level_has_nothing_to_explain_a_loss() -> None:
    diagnosis = diagnose(seasonal())
    assert diagnosis.findings == ()
    assert diagnosis.remedy is None


def test_a_short_series_has_few_windows_and_suggests_a_shorter_window() -> None:
    diagnosis = diagnose(seasonal(88), window=28)  # 60 windows, the last 12 (a season) validate
    assert kinds(diagnosis) == ["few windows"]
    assert diagnosis.findings[0].words.startswith("Only 48 windows to learn from")
    assert diagnosis.remedy == SHORTER_WINDOW


# --- Findings on changes ---------------------------------------------------------------


def test_changes_of_a_level_without_trend_suggest_the_level_again() -> None:
    diagnosis = diagnose(seasonal(), differenced=True)
    assert kinds(diagnosis) == ["no trend"]
    assert diagnosis.remedy == LEVEL


def test_changes_of_a_random_walk_are_noise_and_nothing_is_suggested() -> None:
    diagnosis = diagnose(random_walk(), differenced=True)
    assert kinds(diagnosis) == ["noise"]
    assert diagnosis.remedy is None


def test_changes_of_a_trend_need_no_finding_about_levels() -> None:
    t = np.arange(N_ROWS)
    assert diagnose(0.1 * t + np.sin(2 * np.pi * t / 12), differenced=True).findings == ()


# --- The findings' logic, measure by measure -------------------------------------------


def measures(**changes: object) -> SeriesMeasures:
    """A series with nothing to find; ``changes`` set what the test is about."""
    calm = {
        "above": 0.0,
        "below": 0.0,
        "highest": 5.0,
        "lowest": 1.0,
        "trend_r2": 0.1,
        "shift": 0.2,
        "noise_q": 100.0,
        "noise_critical": 18.3,
        "lags": 10,
        "train_windows": 500,
        "differenced": False,
    }
    return SeriesMeasures(**(calm | changes))


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        ({"above": 0.24}, []),
        ({"above": 0.15, "below": 0.1}, ["outside"]),
        ({"trend_r2": 0.5}, ["trend"]),
        ({"shift": -1.0}, ["shift"]),
        ({"shift": 3.0, "above": 0.5}, ["outside"]),
        ({"noise_q": 18.2}, ["noise"]),
        ({"train_windows": 99}, ["few windows"]),
        (
            {"above": 0.9, "trend_r2": 0.9, "noise_q": 1.0, "train_windows": 50},
            ["outside", "trend", "noise", "few windows"],
        ),
        ({"differenced": True}, ["no trend"]),
        ({"differenced": True, "trend_r2": 0.9}, []),
        ({"differenced": True, "noise_q": 1.0, "train_windows": 50}, ["noise", "few windows"]),
    ],
)
def test_each_measure_past_its_threshold_adds_its_finding(
    changes: dict[str, object], expected: list[str]
) -> None:
    assert [finding.kind for finding in findings(measures(**changes))] == expected
