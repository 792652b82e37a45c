"""Benchmark 6: the time-series model's default training run on the seasonal sample.

Figures: wall time of one default run on one thread (after torch is imported,
which a server pays once), and the model's validation MAE divided by the naive
"tomorrow equals today" baseline's (below 1 = the model wins). Targets: under
15 s and a ratio below 1.
"""

from __future__ import annotations

import time

import attention_core as ac
from attention_core.timeseries import model as forecaster
from attention_core.timeseries import training as trainer
from benchmarks.common import Result, emit

WALL_TARGET_S = 15.0


def main() -> None:
    frame = ac.seasonal_series()
    column = frame.columns[0]
    config = forecaster.ForecasterConfig(n_features=1, window=28)
    dataset = ac.prepare_dataset(frame, [column], column, config.window)
    start = time.perf_counter()
    result = trainer.train_model(dataset, config, forecaster.FORECAST_TRAINING)
    wall = time.perf_counter() - start
    emit(
        [
            Result(
                name="training: default run, one thread",
                figure=round(wall, 2),
                target=WALL_TARGET_S,
                unit="s",
                details={"steps_run": int(result.eval_steps[-1]), "stop": result.stop_reason},
            ),
            Result(
                name="training: model MAE / naive MAE (validation)",
                figure=round(result.model_errors.mae / result.naive_errors.mae, 3),
                target=1.0,
                unit="x",
                details={
                    "model_mae": round(result.model_errors.mae, 3),
                    "naive_mae": round(result.naive_errors.mae, 3),
                    "model_rmse": round(result.model_errors.rmse, 3),
                    "naive_rmse": round(result.naive_errors.rmse, 3),
                },
            ),
        ]
    )


if __name__ == "__main__":
    main()
