"""The classic real series a course uses, and the page's default model trained on one.

statsmodels' sunspots, Nile and CO₂ (fetched by `make series`: harness/series_files.py),
each read by the app's reader; :func:`train` gives the default model's MAE against the
naive forecast's. benchmarks.classic_series measures the ratios and
tests/real/test_classic_series.py checks the page's fix wins.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

import attention_core as ac
from attention_core.timeseries import model as forecaster
from attention_core.timeseries import training as trainer
from harness.series_files import DATASETS, series_dir

#: Each series: its file under statsmodels' ``datasets`` folder (which `make bench` and
#: `make test` fetch: harness/series_files.py) and the column to forecast.
CLASSIC = {
    "sunspots": ("sunspots/sunspots.csv", "SUNACTIVITY"),
    "Nile": ("nile/nile.csv", "volume"),
    "CO₂": ("co2/co2.csv", "co2"),
}
SEEDS = range(5)
AT_LEAST = 4  # of 5 seeds: training is chaotic
WINDOW = 28  # the page's default (ui/time_series/state.py)


def classic_series(name: str) -> tuple[pd.DataFrame, str]:
    """The series ``name`` of :data:`CLASSIC`, its target column only, and the target's name.

    Read by the app's reader (which fills CO₂'s missing weeks with the week before);
    any calendar column it keeps as values today is left out.
    """
    file, target = CLASSIC[name]
    folder = series_dir() / DATASETS
    return ac.read_series((folder / file).read_bytes())[[target]], target


def train(frame: pd.DataFrame, target: str, seed: int, differenced: bool) -> float:
    """Model MAE / naive MAE of the page's default model on ``frame``'s target."""
    dataset = ac.prepare_dataset(frame, [target], target, WINDOW, differenced=differenced)
    result = trainer.train_model(
        dataset,
        forecaster.ForecasterConfig(1, WINDOW),
        replace(forecaster.FORECAST_TRAINING, seed=seed),
    )
    return result.model_errors.mae / result.naive_errors.mae
