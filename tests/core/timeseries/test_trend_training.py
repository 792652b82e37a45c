"""Training on changes: judged on levels against the same naive forecast, and it fixes a trend."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import attention_core as ac
from attention_core.timeseries import model as forecaster
from attention_core.timeseries import training as trainer
from attention_core.timeseries.diagnosis import CHANGE

SEEDS = range(5)
AT_LEAST = 4  # of 5 seeds: training is chaotic, each CPU rounds differently
WINDOW = 12


def rising_season(n_rows: int = 400) -> pd.DataFrame:
    """CO₂ in miniature: a rise of 0.1 a step, a season of 12 steps and noise (seed 0)."""
    t = np.arange(n_rows)
    noise = 0.2 * np.random.default_rng(0).normal(size=n_rows)
    return pd.DataFrame({"y": 0.1 * t + np.sin(2 * np.pi * t / 12) + noise})


def train(differenced: bool, seed: int, steps: int = 150) -> trainer.ForecasterResult:
    dataset = ac.prepare_dataset(rising_season(), ["y"], "y", WINDOW, differenced=differenced)
    return trainer.train_model(
        dataset,
        forecaster.ForecasterConfig(1, WINDOW),
        replace(forecaster.FORECAST_TRAINING, steps=steps, seed=seed),
    )


@pytest.fixture(scope="module")
def runs() -> dict[tuple[bool, int], trainer.ForecasterResult]:
    """150 steps per seed, on levels and on changes (a fraction of a second each, one thread)."""
    return {(changes, seed): train(changes, seed) for changes in (False, True) for seed in SEEDS}


def mae_ratio(run: trainer.ForecasterResult) -> float:
    return run.model_errors.mae / run.naive_errors.mae


def test_on_a_rising_series_the_model_of_levels_loses_and_the_diagnosis_says_forecast_the_change(
    runs,
) -> None:
    lost = [seed for seed in SEEDS if mae_ratio(runs[False, seed]) > 1.0]
    assert len(lost) >= AT_LEAST, [mae_ratio(runs[False, seed]) for seed in SEEDS]
    dataset = ac.prepare_dataset(rising_season(), ["y"], "y", WINDOW)
    diagnosis = ac.diagnose_loss(dataset)
    assert [finding.kind for finding in diagnosis.findings] == ["outside", "trend"]
    assert diagnosis.remedy == CHANGE


def test_forecasting_the_change_beats_the_naive_forecast_on_the_rising_series(runs) -> None:
    won = [seed for seed in SEEDS if mae_ratio(runs[True, seed]) < 0.8]
    assert len(won) >= AT_LEAST, [mae_ratio(runs[True, seed]) for seed in SEEDS]


def test_changes_are_judged_on_the_same_levels_and_naive_forecasts_as_levels(runs) -> None:
    levels, changes = runs[False, 0], runs[True, 0]
    assert changes.val_labels == levels.val_labels
    np.testing.assert_array_equal(changes.actual, levels.actual)
    np.testing.assert_array_equal(changes.naive, levels.naive)
    assert changes.naive_errors == levels.naive_errors
    series = rising_season()["y"].to_numpy()
    np.testing.assert_array_equal(changes.actual, series[-len(changes.actual) :])
    np.testing.assert_array_equal(changes.naive, series[-len(changes.actual) - 1 : -1])


def test_forecast_levels_climb_from_the_last_level_as_the_series_does(runs) -> None:
    """Forecast level - last level is the forecast change; on average it follows the real one."""
    gaps = []
    for seed in SEEDS:
        run = runs[True, seed]
        forecast_climb, actual_climb = run.predicted - run.naive, run.actual - run.naive
        gaps.append(abs(float(np.mean(forecast_climb) - np.mean(actual_climb))))
    assert sum(gap < 0.1 for gap in gaps) >= AT_LEAST, gaps  # 0.1: one step's rise
