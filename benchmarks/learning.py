"""Benchmark 7: the learning page's tiny transformer, and a second session while it trains.

Figures:
- for each task, the time (one thread, after torch is imported, which a server
  pays once) until held-out token accuracy first reaches 99 %, for seeds 0-4
  with the page's defaults: the slowest seed against the 10 s target, every
  seed in the details;
- the rerun of another session's text page while a training runs in a thread
  of the same process (as the Streamlit server runs sessions), against the
  same rerun with nothing training: the median ratio, target at most 2x.
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import replace

import numpy as np
from streamlit.testing.v1 import AppTest

from attention_core.learning import training
from attention_core.learning.config import DEFAULTS, TrainConfig
from benchmarks.common import Result, emit
from benchmarks.pages import text_page

TIME_TARGET_S = 10.0
RERUN_TARGET = 2.0
SEEDS = range(5)
RERUNS = 12


def time_to_99(task: str, seed: int) -> tuple[float | None, int | None, float]:
    """Seconds and steps until held-out accuracy first reaches 99 %, and the best final score.

    The score: the task's first head score (anti-diagonal, sorted symbol, induction),
    of its best head at the end of the run.
    """
    model, train = DEFAULTS[task]
    reached: list[tuple[float, int]] = []

    def watch(update) -> None:
        if not reached and update.accuracy >= 0.99:
            reached.append((update.seconds, update.step))

    result = training.train_model(model, replace(train, seed=seed), watch)
    seconds, step = reached[0] if reached else (None, None)
    first_score = next(iter(result.scores.values()))[-1]  # (L, H)
    return seconds, step, float(np.nanmax(first_score))


def task_result(task: str) -> Result:
    runs = {seed: time_to_99(task, seed) for seed in SEEDS}
    times = [seconds for seconds, _, _ in runs.values()]
    worst = float("inf") if None in times else max(times)
    return Result(
        name=f"learning: {task}, seconds to 99 % held-out accuracy, slowest of seeds 0-4",
        figure=round(worst, 2),
        target=TIME_TARGET_S,
        unit="s",
        spread=None if None in times else (round(min(times), 2), round(worst, 2)),
        details={
            f"seed {seed}": ("not reached" if s is None else f"{s:.2f} s / step {step}")
            + f" / best head score {score:.2f}"
            for seed, (s, step, score) in runs.items()
        },
    )


def _timed_reruns(page: AppTest, first_seed: int) -> list[float]:
    times = []
    for seed in range(first_seed, first_seed + RERUNS):
        start = time.perf_counter()
        page.number_input(key="seed").set_value(seed).run()
        times.append(time.perf_counter() - start)
    return times


def rerun_during_training() -> Result:
    page = text_page()
    idle = _timed_reruns(page, 1)
    model, _ = DEFAULTS["induction"]
    long_run = TrainConfig(steps=3000, learning_rate=0.003, target_accuracy=1.0, max_seconds=30)
    trainer = threading.Thread(target=training.train_model, args=(model, long_run))
    trainer.start()
    time.sleep(1.0)  # training under way
    busy = _timed_reruns(page, 100)
    still_training = trainer.is_alive()
    trainer.join()
    return Result(
        name="learning: a second session's text-page rerun while a model trains / idle",
        figure=round(statistics.median(busy) / statistics.median(idle), 2),
        target=RERUN_TARGET,
        unit="x",
        spread=(
            round(min(busy) / statistics.median(idle), 2),
            round(max(busy) / statistics.median(idle), 2),
        ),
        details={
            "idle_ms": round(statistics.median(idle) * 1e3, 1),
            "during_training_ms": round(statistics.median(busy) * 1e3, 1),
            "max_during_training_ms": round(max(busy) * 1e3, 1),
            "training_still_running_at_the_end": still_training,
        },
    )


def main() -> None:
    training.train_model(*DEFAULTS["reverse"])  # warm up: torch's first steps are slow
    emit([*(task_result(task) for task in DEFAULTS), rerun_during_training()])


if __name__ == "__main__":
    main()
