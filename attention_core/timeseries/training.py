r"""Training the forecaster of :mod:`attention_core.timeseries.model`: bounded, seeded, one thread.

Adam on the mean squared error of next-step forecasts, on random batches of
training windows ``X (B, T, p)``, validated on the dataset's last windows. A run
stops at its step count, when validation loss stops improving (patience), or at
its time budget, and keeps the best weights. The result is read-only NumPy
arrays, so one run can be shared by every session that asks for it. Needs
PyTorch; imported only on demand (``from attention_core.timeseries import training``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from attention_core.boundary.arrays import read_only
from attention_core.boundary.errors import InputError
from attention_core.maths.ablation import Ablation
from attention_core.timeseries.model import ForecasterConfig, SeriesForecaster, check_budget
from attention_core.timeseries.windows import ForecastErrors, SeriesDataset, forecast_errors
from attention_core.training.config import TrainingConfig
from attention_core.training.loop import TurnQueue, in_turn, train_loop
from attention_core.training.optimiser import AdamW
from attention_core.training.result import TrainingProgress, TrainingResult


@dataclass(frozen=True)
class ForecasterResult(TrainingResult):
    """Everything a page shows after training, as read-only NumPy arrays (safe to share).

    ``E`` evaluations, ``M`` validation windows, ``L`` layers, ``H`` heads. ``held_out``
    is the validation loss; ``train_loss`` the mean MSE since the previous evaluation.
    Forecasts are levels in the target's own units, also when the model forecast
    changes; the losses are in the model's scaled units (of changes, then).
    """

    best_step: int
    val_labels: tuple[str, ...]  #: (M,) the date of each forecast value
    actual: np.ndarray  #: (M,)
    predicted: np.ndarray  #: (M,)
    naive: np.ndarray  #: (M,) "tomorrow equals today"
    model_errors: ForecastErrors
    naive_errors: ForecastErrors
    example_labels: tuple[str, ...]  #: (T,) rows of the window shown before/after
    mask: np.ndarray  #: (T, T) bool, True = may attend
    weights_before: np.ndarray  #: (L, H, T, T) on the most recent window, at initialisation
    weights_after: np.ndarray  #: (L, H, T, T) same window, best weights
    last_row_before: np.ndarray  #: (L, T) last step's weights, mean over heads and windows
    last_row_after: np.ndarray  #: (L, T)
    #: The kept weights by their torch names, read-only (:func:`restore` builds the model again,
    #: to run it with heads off: :mod:`attention_core.timeseries.heads_off`).
    parameters: dict[str, np.ndarray]


class _Windows:
    """Tensors of a :class:`SeriesDataset`; cuts batches of windows on demand (no copies)."""

    def __init__(self, dataset: SeriesDataset) -> None:
        self.features = torch.from_numpy(np.ascontiguousarray(dataset.features))  # (N, p)
        self.target = torch.from_numpy(np.ascontiguousarray(dataset.target))  # (N,)
        self.offsets = torch.arange(1 - dataset.window, 1)  # (T,)

    def batch(self, ends: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Windows ``(B, T, p)`` ending at rows ``ends (B,)`` and their next targets ``(B,)``."""
        return self.features[ends[:, None] + self.offsets], self.target[ends + 1]


@torch.no_grad()
def _evaluate(
    model: SeriesForecaster,
    windows: _Windows,
    ends: torch.Tensor,
    chunk: int = 256,
    ablation: Ablation | None = None,
):
    """Forecasts ``(M,)`` and weights ``L x (M, H, T, T)`` of the windows ending at ``ends``;
    ``ablation``: the heads turned off, None: all on."""
    model.eval()
    forecasts, weights = [], []
    for start in range(0, len(ends), chunk):
        x, _ = windows.batch(ends[start : start + chunk])
        forecast, layer_weights = model(x, ablation)
        forecasts.append(forecast)
        weights.append(layer_weights)
    model.train()
    by_layer = [torch.cat([w[layer] for w in weights]) for layer in range(len(weights[0]))]
    return torch.cat(forecasts), by_layer


def restore(config: ForecasterConfig, result: ForecasterResult) -> SeriesForecaster:
    """The trained model again, from ``result.parameters``, in evaluation mode."""
    model = SeriesForecaster(config)
    state = {name: torch.from_numpy(np.array(array)) for name, array in result.parameters.items()}
    model.load_state_dict(state)
    return model.eval()


def validation_forecast(
    model: SeriesForecaster, dataset: SeriesDataset, ablation: Ablation | None = None
) -> np.ndarray:
    """The forecast of every validation day ``(M,)`` in the target's own units, as
    :class:`ForecasterResult` has it in ``predicted``; ``ablation``: heads turned off."""
    ends = torch.from_numpy(dataset.val_ends)
    forecast, _ = _evaluate(model, _Windows(dataset), ends, ablation=ablation)
    return dataset.level_forecasts(dataset.val_ends, forecast.numpy())


def _attention_summary(weights: list[torch.Tensor]) -> tuple[np.ndarray, np.ndarray]:
    """``(L, H, T, T)`` on the most recent window and ``(L, T)`` mean last-step row."""
    example = torch.stack([w[-1] for w in weights]).numpy()
    last_rows = torch.stack([w[:, :, -1, :].mean(dim=(0, 1)) for w in weights]).numpy()
    return example, last_rows


def train_model(
    dataset: SeriesDataset,
    config: ForecasterConfig,
    train: TrainingConfig,
    progress: Callable[[TrainingProgress], None] | None = None,
    waiting: Callable[[int], None] | None = None,
    turns: TurnQueue | None = None,
) -> ForecasterResult:
    """Train a :class:`SeriesForecaster` on ``dataset`` with Adam on the MSE; bounded and seeded.

    One thread; trainings take turns in ``turns`` (the page passes
    :data:`hosting.turns.TRAININGS`; None trains at once) and ``waiting(ahead)`` is called
    while runs are ahead of this one. The same data,
    configs and seed give the same numbers. ``progress`` is called after every evaluation.
    """
    if config.window != dataset.window or config.n_features != dataset.features.shape[1]:
        raise ValueError("The model's window and feature count must match the dataset's.")
    check_budget(config, train)
    return in_turn(lambda: _train(dataset, config, train, progress), waiting, train.seed, turns)


class _ForecastRun:
    """The forecaster's parts of :func:`train_loop`: random training windows, MSE, validation.

    Keeps the weights of the evaluation with the lowest validation loss.
    """

    def __init__(
        self,
        model: SeriesForecaster,
        windows: _Windows,
        dataset: SeriesDataset,
        train: TrainingConfig,
        progress: Callable[[TrainingProgress], None] | None,
    ) -> None:
        self.model, self.windows, self.train, self.progress = model, windows, train, progress
        self.train_ends = torch.from_numpy(dataset.train_ends)
        self.val_ends = torch.from_numpy(dataset.val_ends)
        self.generator = torch.Generator().manual_seed(train.seed)
        assert train.patience is not None  # check_budget refused a run without
        self.patience = train.patience
        self.history: list[tuple[int, float, float]] = []
        self.best = (math.inf, 0, {k: v.clone() for k, v in model.state_dict().items()})

    def learning_rate(self, step: int) -> float:
        return self.train.learning_rate  # constant

    def batch_loss(self) -> torch.Tensor:
        picks = torch.randint(
            len(self.train_ends), (self.train.batch_size,), generator=self.generator
        )
        x, y = self.windows.batch(self.train_ends[picks])
        return nn.functional.mse_loss(self.model(x)[0], y)

    def evaluate(self, step: int, train_loss: float | None) -> None:
        forecast, _ = _evaluate(self.model, self.windows, self.val_ends)
        val_loss = nn.functional.mse_loss(forecast, self.windows.target[self.val_ends + 1]).item()
        assert train_loss is not None  # the forecaster is first evaluated after a step
        self.history.append((step, train_loss, val_loss))
        if val_loss < self.best[0]:
            self.best = (val_loss, step, {k: v.clone() for k, v in self.model.state_dict().items()})

    def report(self, step: int, seconds: float) -> None:
        if self.progress is not None:
            _, train_loss, val_loss = self.history[-1]
            self.progress(TrainingProgress(step, self.train.steps, train_loss, val_loss, seconds))

    def stop_reason(self, step: int) -> str | None:
        if step - self.best[1] >= self.patience * self.train.eval_every:
            return f"stopped early at step {step}: validation loss no longer improved"
        return None


def _train(
    dataset: SeriesDataset,
    config: ForecasterConfig,
    train: TrainingConfig,
    progress: Callable[[TrainingProgress], None] | None,
) -> ForecasterResult:
    """Adam steps on random training windows, evaluation every ``eval_every``; the best weights."""
    started = time.perf_counter()
    model = SeriesForecaster(config)
    windows = _Windows(dataset)
    _, initial_weights = _evaluate(model, windows, torch.from_numpy(dataset.val_ends))
    optimiser = AdamW(model.parameters(), train.learning_rate)  # weight decay 0: Adam
    run = _ForecastRun(model, windows, dataset, train, progress)
    stop_reason = train_loop(run, optimiser, train, started, stop_on_divergence=True)
    if not run.history:
        raise InputError(
            "Training diverged at once. Choose z-score scaling or a smaller learning rate."
        )
    model.load_state_dict(run.best[2])
    return _result(
        model,
        windows,
        dataset,
        run.history,
        run.best[1],
        stop_reason,
        initial_weights,
        time.perf_counter() - started,
    )


def _result(model, windows, dataset, history, best_step, stop_reason, initial_weights, seconds):
    """Forecasts in the target's units and attention summaries, as a :class:`ForecasterResult`."""
    val_ends = torch.from_numpy(dataset.val_ends)
    forecast, final_weights = _evaluate(model, windows, val_ends)

    # Levels or changes, the model is judged on levels: the same windows, the same naive.
    actual = read_only(dataset.levels[dataset.val_ends + 1])
    predicted = read_only(dataset.level_forecasts(dataset.val_ends, forecast.numpy()))
    naive = read_only(dataset.levels[dataset.val_ends])  # tomorrow equals today
    before, last_before = _attention_summary(initial_weights)
    after, last_after = _attention_summary(final_weights)
    last_end = int(dataset.val_ends[-1])
    steps, train_loss, val_loss = (read_only(column) for column in zip(*history, strict=True))
    return ForecasterResult(
        eval_steps=steps,
        train_loss=train_loss,
        held_out=val_loss,
        best_step=best_step,
        stop_reason=stop_reason,
        seconds=seconds,
        val_labels=tuple(dataset.labels[int(end) + 1] for end in dataset.val_ends),
        actual=actual,
        predicted=predicted,
        naive=naive,
        model_errors=forecast_errors(actual, predicted),
        naive_errors=forecast_errors(actual, naive),
        example_labels=dataset.labels[last_end - dataset.window + 1 : last_end + 1],
        mask=read_only(model.mask.numpy()),
        weights_before=read_only(before),
        weights_after=read_only(after),
        last_row_before=read_only(last_before),
        last_row_after=read_only(last_after),
        parameters={
            name: read_only(value.numpy().copy()) for name, value in model.state_dict().items()
        },
    )
