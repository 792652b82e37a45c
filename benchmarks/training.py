"""The time-series model's default training run on the seasonal sample.

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

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "The time-series model's default run on the seasonal sample (window 28, d_model 16, 2 "
    "heads, learned positions, causal mask, one attention block, 300 Adam steps, seed 0), on "
    "one thread after torch is imported: its wall time (target at most 15 s), and its "
    'validation MAE over that of the naive forecast "tomorrow equals today" on the same '
    "windows (below 1 the model wins)."
)

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
