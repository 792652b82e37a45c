r"""The notes' decoder-style forecaster in PyTorch, and a bounded training loop.

.. math::
    \tilde X = g(XW) \;\to\; E = \tilde X + P \;\to\;
    \big[\,\mathrm{concat}(A_1, \dots, A_H)\, W^O \;\to\; \mathrm{FFN}\,\big]^{\times N}
    \;\to\; \hat y = h_T\, w_{head}

Shapes: a batch of windows ``X (B, T, p)``; every layer works on ``(B, T, d_model)``;
the head reads the last time step, the only one that may attend to the whole
window under the causal mask, and forecasts the next target value ``(B,)``.

This module needs PyTorch and is imported only on demand
(``from attention_core import model``); ``import attention_core`` stays
torch-free. The attention is written out with ``Linear(bias=False)`` Q/K/V/O
projections so that ``w_q = query.weight.T`` etc. are exactly the matrices
:func:`attention_core.multi_head_attention` takes (same head split).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .errors import InputError
from .functional import causal_mask, sliding_window_mask
from .limits import MAX_D_MODEL, MAX_HEADS, MAX_TRAIN_SECONDS, MAX_TRAIN_STEPS, MAX_WINDOW
from .multihead import check_heads_divide
from .positional import sinusoidal_encoding
from .series_windows import FEATURE_ACTIVATIONS, ForecastErrors, SeriesDataset, forecast_errors
from .validation import check_positive_int

MODEL_MASKS = ("causal", "none", "sliding")
MODEL_POSITIONAL = ("learned", "sinusoidal")
MAX_LAYERS = 4
MAX_HIDDEN = 256
# Multiply-adds of one forward pass over a batch: beyond this a step takes
# seconds on one core and the time budget would stop training almost at once.
MAX_STEP_MACS = 400_000_000
_ACTIVATIONS = {
    "relu": nn.ReLU,
    "tanh": nn.Tanh,
    "identity": nn.Identity,
    "gelu": lambda: nn.GELU(approximate="tanh"),  # = attention_core.series_windows.activate
}
# One training at a time per process: it keeps to one core, and the global
# torch RNG and thread settings are not shared between concurrent runs.
_TRAINING_LOCK = threading.Lock()


def _choice(value: str, choices: tuple[str, ...], what: str) -> None:
    if value not in choices:
        raise InputError(f"Unknown {what} {value!r}; choose one of: {', '.join(choices)}.")


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of :class:`SeriesForecaster` (hashable: part of the cache key)."""

    n_features: int
    window: int
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 1
    d_hidden: int = 32
    activation: str = "relu"
    positional: str = "learned"
    mask: str = "causal"
    sliding_window: int = 3

    def __post_init__(self) -> None:
        check_positive_int(self.n_features, "The number of features")
        check_positive_int(self.window, "The window", MAX_WINDOW)
        check_positive_int(self.d_model, "d_model", MAX_D_MODEL)
        check_positive_int(self.n_heads, "The number of heads", MAX_HEADS)
        check_heads_divide(self.d_model, self.n_heads, "d_model")
        check_positive_int(self.n_layers, "The number of layers", MAX_LAYERS)
        check_positive_int(self.d_hidden, "The hidden width", MAX_HIDDEN)
        check_positive_int(self.sliding_window, "The sliding window", MAX_WINDOW)
        _choice(self.activation, FEATURE_ACTIVATIONS, "activation")
        _choice(self.positional, MODEL_POSITIONAL, "positional encoding")
        _choice(self.mask, MODEL_MASKS, "mask")


@dataclass(frozen=True)
class TrainConfig:
    """Budget and optimiser of one training run (hashable: part of the cache key).

    Training stops after ``steps`` Adam steps, after ``patience`` evaluations
    (every ``eval_every`` steps) without a better validation loss, or after
    ``max_seconds``; the weights of the best evaluation are kept.
    """

    steps: int = 300
    batch_size: int = 64
    learning_rate: float = 0.003
    eval_every: int = 10
    patience: int = 10
    seed: int = 0
    max_seconds: float = MAX_TRAIN_SECONDS

    def __post_init__(self) -> None:
        check_positive_int(self.steps, "The number of training steps", MAX_TRAIN_STEPS)
        check_positive_int(self.batch_size, "The batch size", 1024)
        check_positive_int(self.eval_every, "The evaluation interval")
        check_positive_int(self.patience, "The patience")
        if not 1e-5 <= self.learning_rate <= 0.1:
            raise InputError("The learning rate must be between 0.00001 and 0.1.")
        if not 0 < self.max_seconds <= MAX_TRAIN_SECONDS:
            raise InputError(f"The time budget must be at most {MAX_TRAIN_SECONDS} seconds.")


class FeatureEmbeddings(nn.Module):
    r""":math:`\tilde X = g(XW + b)`: ``(B, T, p)`` -> ``(B, T, d_model)``."""

    def __init__(self, n_features: int, d_model: int, activation: str) -> None:
        super().__init__()
        self.linear = nn.Linear(n_features, d_model)
        self.activation = _ACTIVATIONS[activation]()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(self.linear(x))


class PositionalEmbeddings(nn.Module):
    r""":math:`E = \tilde X + P`, ``P (T, d_model)``: a trainable table or fixed sinusoids."""

    def __init__(self, window: int, d_model: int, kind: str) -> None:
        super().__init__()
        if kind == "learned":
            self.table = nn.Parameter(0.1 * torch.randn(window, d_model))
        else:
            self.register_buffer("table", torch.tensor(sinusoidal_encoding(window, d_model),
                                                       dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table  # (B, T, d) + (T, d)


class FeatureMultiHeadAttention(nn.Module):
    r"""Masked multi-head self-attention, heads concatenated (before :math:`W^O`).

    .. math:: A_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_k}} + M\right) V_h

    Head h uses columns ``h*dk:(h+1)*dk`` of ``x @ query.weight.T``, as
    :func:`attention_core.split_heads` does.
    """

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.query = nn.Linear(d_model, d_model, bias=False)
        self.key = nn.Linear(d_model, d_model, bias=False)
        self.value = nn.Linear(d_model, d_model, bias=False)

    def _split(self, projected: torch.Tensor) -> torch.Tensor:
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``mask (T, T)`` True = may attend -> ``(B, T, d)``, ``(B, H, T, T)``."""
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, H, T, T)
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        context = weights @ v  # (B, H, T, dk)
        batch, _, length, _ = context.shape
        return context.transpose(1, 2).reshape(batch, length, -1), weights


class FeatureEngineering(nn.Module):
    r"""The feed-forward block after attention: :math:`g(Z W_1 + b_1) W_2 + b_2`, ``(B, T, d)``."""

    def __init__(self, d_model: int, d_hidden: int, activation: str) -> None:
        super().__init__()
        self.hidden = nn.Linear(d_model, d_hidden)
        self.activation = _ACTIVATIONS[activation]()
        self.output = nn.Linear(d_hidden, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(self.activation(self.hidden(x)))


class AttentionLayer(nn.Module):
    """One of the N repeated layers: attention -> output W_O -> feature engineering."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attention = FeatureMultiHeadAttention(config.d_model, config.n_heads)
        self.output = nn.Linear(config.d_model, config.d_model, bias=False)  # W^O
        self.engineering = FeatureEngineering(config.d_model, config.d_hidden, config.activation)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        concat, weights = self.attention(x, mask)
        return self.engineering(self.output(concat)), weights


def attention_mask(config: ModelConfig) -> np.ndarray:
    """The ``(T, T)`` bool mask of ``config.mask``, True = may attend (from the NumPy core)."""
    if config.mask == "causal":
        return causal_mask(config.window)
    if config.mask == "sliding":
        return sliding_window_mask(config.window, config.sliding_window)
    return np.ones((config.window, config.window), dtype=bool)


class SeriesForecaster(nn.Module):
    """The whole model: ``X (B, T, p)`` -> forecast ``(B,)``, weights per layer ``(B, H, T, T)``."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = FeatureEmbeddings(config.n_features, config.d_model, config.activation)
        self.positions = PositionalEmbeddings(config.window, config.d_model, config.positional)
        self.layers = nn.ModuleList(AttentionLayer(config) for _ in range(config.n_layers))
        self.head = nn.Linear(config.d_model, 1)
        self.register_buffer("mask", torch.from_numpy(attention_mask(config)))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        hidden = self.positions(self.embeddings(x))  # (B, T, d)
        all_weights = []
        for layer in self.layers:
            hidden, weights = layer(hidden, self.mask)
            all_weights.append(weights)
        return self.head(hidden[:, -1, :]).squeeze(-1), all_weights  # (B,), N x (B, H, T, T)


def core_weights(layer: AttentionLayer) -> dict[str, np.ndarray]:
    """A layer's ``w_q, w_k, w_v (d, H*dk)``, ``w_o (H*dv, d)`` as the NumPy core takes them.

    ``x @ w_q`` equals ``query(x)``: the core multiplies from the right, torch
    stores ``weight (out, in)``, so each matrix is the transposed weight.
    """
    attention = layer.attention
    pairs = {"w_q": attention.query, "w_k": attention.key, "w_v": attention.value,
             "w_o": layer.output}
    return {name: linear.weight.detach().T.cpu().numpy().copy() for name, linear in pairs.items()}


def step_macs(config: ModelConfig, batch_size: int) -> int:
    """Multiply-adds of one forward pass over a batch (projections, scores, FFN)."""
    rows = batch_size * config.window
    per_layer = rows * (4 * config.d_model**2 + 2 * config.d_model * config.d_hidden)
    per_layer += 2 * batch_size * config.window**2 * config.d_model
    return rows * config.n_features * config.d_model + config.n_layers * per_layer


@dataclass(frozen=True)
class TrainingProgress:
    """Handed to the progress callback after every evaluation."""

    step: int
    steps: int
    train_loss: float
    val_loss: float
    seconds: float


@dataclass(frozen=True)
class TrainingResult:
    """Everything a page shows after training, as read-only NumPy arrays (safe to share).

    ``E`` evaluations, ``M`` validation windows, ``L`` layers, ``H`` heads.
    Forecasts are in the target's own units.
    """

    eval_steps: np.ndarray  #: (E,)
    train_loss: np.ndarray  #: (E,) mean MSE (scaled units) since the previous evaluation
    val_loss: np.ndarray  #: (E,)
    best_step: int
    stop_reason: str
    seconds: float
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


def _read_only(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.setflags(write=False)
    return array


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
def _evaluate(model: SeriesForecaster, windows: _Windows, ends: torch.Tensor, chunk: int = 256):
    """Forecasts ``(M,)`` and weights ``L x (M, H, T, T)`` of the windows ending at ``ends``."""
    model.eval()
    forecasts, weights = [], []
    for start in range(0, len(ends), chunk):
        x, _ = windows.batch(ends[start:start + chunk])
        forecast, layer_weights = model(x)
        forecasts.append(forecast)
        weights.append(layer_weights)
    model.train()
    by_layer = [torch.cat([w[layer] for w in weights]) for layer in range(len(weights[0]))]
    return torch.cat(forecasts), by_layer


def _attention_summary(weights: list[torch.Tensor]) -> tuple[np.ndarray, np.ndarray]:
    """``(L, H, T, T)`` on the most recent window and ``(L, T)`` mean last-step row."""
    example = torch.stack([w[-1] for w in weights]).numpy()
    last_rows = torch.stack([w[:, :, -1, :].mean(dim=(0, 1)) for w in weights]).numpy()
    return example, last_rows


def check_budget(config: ModelConfig, train: TrainConfig) -> None:
    """Raise InputError when one step of this model would be too slow for the time budget."""
    macs = step_macs(config, train.batch_size)
    if macs > MAX_STEP_MACS:
        raise InputError(
            f"This model is too big to train here (about {macs / 1e6:,.0f} million "
            f"multiply-adds per step; the limit is {MAX_STEP_MACS / 1e6:,.0f} million). "
            "Choose a smaller d_model, hidden width, window or fewer layers."
        )


def train_model(
    dataset: SeriesDataset,
    config: ModelConfig,
    train: TrainConfig,
    progress: Callable[[TrainingProgress], None] | None = None,
) -> TrainingResult:
    """Train a :class:`SeriesForecaster` on ``dataset`` with Adam on the MSE; bounded and seeded.

    One thread, one run at a time per process; the same data, configs and seed
    give the same numbers. ``progress`` is called after every evaluation.
    """
    if config.window != dataset.window or config.n_features != dataset.features.shape[1]:
        raise ValueError("The model's window and feature count must match the dataset's.")
    check_budget(config, train)
    with _TRAINING_LOCK, torch.random.fork_rng(devices=[]):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            torch.manual_seed(train.seed)
            return _train(dataset, config, train, progress)
        finally:
            torch.set_num_threads(threads)


def _train(
    dataset: SeriesDataset,
    config: ModelConfig,
    train: TrainConfig,
    progress: Callable[[TrainingProgress], None] | None,
) -> TrainingResult:
    """The loop: Adam steps on random training windows, evaluation every ``eval_every``."""
    started = time.perf_counter()
    model = SeriesForecaster(config)
    windows = _Windows(dataset)
    train_ends = torch.from_numpy(dataset.train_ends)
    val_ends = torch.from_numpy(dataset.val_ends)
    _, initial_weights = _evaluate(model, windows, val_ends)
    optimiser = torch.optim.Adam(model.parameters(), lr=train.learning_rate)
    generator = torch.Generator().manual_seed(train.seed)
    history: list[tuple[int, float, float]] = []
    best = (math.inf, 0, {k: v.clone() for k, v in model.state_dict().items()})
    running, stop_reason = [], f"finished all {train.steps} steps"
    for step in range(1, train.steps + 1):
        picks = torch.randint(len(train_ends), (train.batch_size,), generator=generator)
        x, y = windows.batch(train_ends[picks])
        loss = nn.functional.mse_loss(model(x)[0], y)
        if not torch.isfinite(loss):
            stop_reason = f"stopped at step {step}: the loss became infinite (diverged)"
            break
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        running.append(loss.item())
        if step % train.eval_every and step != train.steps:
            continue
        forecast, _ = _evaluate(model, windows, val_ends)
        val_loss = nn.functional.mse_loss(forecast, windows.target[val_ends + 1]).item()
        history.append((step, float(np.mean(running)), val_loss))
        running = []
        if val_loss < best[0]:
            best = (val_loss, step, {k: v.clone() for k, v in model.state_dict().items()})
        seconds = time.perf_counter() - started
        if progress is not None:
            progress(TrainingProgress(step, train.steps, history[-1][1], val_loss, seconds))
        if step - best[1] >= train.patience * train.eval_every:
            stop_reason = f"stopped early at step {step}: validation loss no longer improved"
            break
        if seconds > train.max_seconds:
            stop_reason = f"stopped at step {step}: time budget of {train.max_seconds:g} s used"
            break
    if not history:
        raise InputError(
            "Training diverged at once. Choose z-score scaling or a smaller learning rate."
        )
    model.load_state_dict(best[2])
    return _result(model, windows, dataset, history, best[1], stop_reason,
                   initial_weights, time.perf_counter() - started)


def _result(model, windows, dataset, history, best_step, stop_reason, initial_weights, seconds):
    """Forecasts in the target's units and attention summaries, as a :class:`TrainingResult`."""
    val_ends = torch.from_numpy(dataset.val_ends)
    forecast, final_weights = _evaluate(model, windows, val_ends)

    def unscale(scaled: torch.Tensor) -> np.ndarray:
        return _read_only(dataset.target_scaler.inverse(scaled.numpy()[:, None])[:, 0])

    actual, predicted = unscale(windows.target[val_ends + 1]), unscale(forecast)
    naive = unscale(windows.target[val_ends])  # tomorrow equals today
    before, last_before = _attention_summary(initial_weights)
    after, last_after = _attention_summary(final_weights)
    last_end = int(dataset.val_ends[-1])
    steps, train_loss, val_loss = (_read_only(column) for column in zip(*history, strict=True))
    return TrainingResult(
        eval_steps=steps, train_loss=train_loss, val_loss=val_loss, best_step=best_step,
        stop_reason=stop_reason, seconds=seconds,
        val_labels=tuple(dataset.labels[int(end) + 1] for end in dataset.val_ends),
        actual=actual, predicted=predicted, naive=naive,
        model_errors=forecast_errors(actual, predicted),
        naive_errors=forecast_errors(actual, naive),
        example_labels=dataset.labels[last_end - dataset.window + 1 : last_end + 1],
        mask=_read_only(model.mask.numpy()),
        weights_before=_read_only(before), weights_after=_read_only(after),
        last_row_before=_read_only(last_before), last_row_after=_read_only(last_after),
    )
