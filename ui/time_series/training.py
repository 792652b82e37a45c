"""The time-series page's training section: settings, one shared training run, results.

Trains the notes' decoder model (``attention_core.timeseries.model``, which imports
PyTorch) on the chosen columns. A run is keyed by the data and every setting;
the first session to ask trains it, every other session with the same key waits
for it and reads the same frozen result (:mod:`ui.shared.training_cache`, as the
learning page). Widget keys share the page's ``ts_`` prefix so they sit in the
same links.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import attention_core as ac
from attention_core.boundary import limits
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.matrix_view import chart
from ui.shared.safe import show_error, show_info
from ui.shared.training_cache import TrainingCache
from ui.shared.training_progress import LiveProgress
from ui.shared.url import BIND
from ui.time_series import figures
from ui.time_series.state import PREFIX
from ui.time_series.training_figures import forecast_figure, loss_figure

if TYPE_CHECKING:  # both import torch; at run time they are imported only once training is on
    from attention_core.timeseries.model import ForecasterConfig, ForecasterTrainingConfig
    from attention_core.timeseries.training import TrainingResult

LEARNING_RATES = (0.001, 0.003, 0.01)
BATCH_SIZE = 64
KEYS = [f"{PREFIX}{name}" for name in ("steps", "layers", "hidden", "lr", "layer")]
MAX_CACHED_TRAININGS = 32
CACHE_TTL_SECONDS = 3600
REDRAW_SECONDS = 0.3


#: Every trained forecaster of this server process, shared by all sessions.
RUNS: TrainingCache[TrainingResult, object] = TrainingCache(
    MAX_CACHED_TRAININGS, ttl_seconds=CACHE_TTL_SECONDS
)


@dataclass(frozen=True)
class TrainingSettings:
    """What the training widgets say: steps, layers N, feed-forward width, learning rate."""

    steps: int
    layers: int
    hidden: int
    rate: float


def training_settings() -> TrainingSettings:
    """The training widgets, drawn with or without data (like the page's window settings)."""
    first, second, third, fourth = st.columns(4)
    steps = first.slider(
        "Training steps", 50, limits.MAX_TRAIN_STEPS, 300, 50, key=f"{PREFIX}steps", bind=BIND
    )
    layers = second.slider("Layers N", 1, limits.MAX_LAYERS, 1, key=f"{PREFIX}layers", bind=BIND)
    hidden = third.select_slider(
        "Hidden width of the feed-forward block",
        [2**power for power in range(3, limits.MAX_HIDDEN.bit_length())],
        32,
        key=f"{PREFIX}hidden",
        bind=BIND,
    )
    rate = fourth.select_slider(
        "Learning rate", LEARNING_RATES, 0.003, key=f"{PREFIX}lr", bind=BIND
    )
    return TrainingSettings(int(steps), int(layers), int(hidden), float(rate))


def training_configs(
    settings: TrainingSettings,
    config: ac.AttentionConfig,
    activation: str,
    n_features: int,
    window: int,
) -> tuple[ForecasterConfig, ForecasterTrainingConfig]:
    """The core's model and training configs for these settings, checked against the budget."""
    from attention_core.timeseries import model as forecaster  # imports torch: only here

    model_config = forecaster.ForecasterConfig(
        n_features=n_features,
        window=window,
        d_model=config.d_model,
        n_heads=config.n_heads,
        n_layers=settings.layers,
        d_hidden=settings.hidden,
        activation=activation,
        positional=config.positional,
        mask=config.mask,
        sliding_window=config.window,
    )
    train_config = forecaster.ForecasterTrainingConfig(
        steps=settings.steps, batch_size=BATCH_SIZE, learning_rate=settings.rate, seed=config.seed
    )
    forecaster.check_budget(model_config, train_config)
    return model_config, train_config


def train_with_progress(
    dataset: ac.SeriesDataset,
    model_config: ForecasterConfig,
    train_config: ForecasterTrainingConfig,
    style: FigureStyle,
) -> TrainingResult:
    """Train once, drawing a progress bar and the live loss curves."""
    from attention_core.timeseries import training as trainer  # imports torch: only here

    def curves(steps: np.ndarray, train_loss: np.ndarray, val_loss: np.ndarray) -> go.Figure:
        return loss_figure(steps, train_loss, val_loss, style=style)

    with LiveProgress("Training…", curves, REDRAW_SECONDS) as live:

        def on_progress(update) -> None:
            text = f"Step {update.step} of {update.steps}: validation loss {update.val_loss:.4f}"
            live.step(update.step, update.steps, text, update.train_loss, update.val_loss)

        return trainer.train_model(dataset, model_config, train_config, on_progress, live.in_queue)


TRAINING_INTRO = (
    "FeatureEmbedding g(XW) → + positions P (trainable when *learned*) → masked multi-head "
    "attention → W_O → feed-forward block, N times → a linear head on the last day, trained to "
    "forecast the next target value. The sidebar's d_model, heads, mask, positional encoding "
    "and seed apply; attention always uses softmax with 1/√dₖ here. The last 20% of the "
    "windows validate."
)


def training_section(
    frame: pd.DataFrame,
    fingerprint: str,
    features: list[str],
    target: str,
    window: int,
    scaling: str,
    activation: str,
    config: ac.AttentionConfig,
    settings: TrainingSettings,
    style: FigureStyle,
    period: int | None,
) -> None:
    """Train the notes' model on the chosen columns (cached per data, settings and seed)."""
    try:
        model_config, train_config = training_configs(
            settings, config, activation, len(features), window
        )
        dataset = ac.prepare_dataset(frame, features, target, window, scaling)
    except ac.InputError as error:
        show_error(str(error))
        return
    if (config.d_k, config.d_v) != (config.d_model // config.n_heads,) * 2:
        show_info("Training uses dₖ = d_v = d_model / heads; your own widths apply above only.")
    key = "|".join(
        [fingerprint, repr(features), repr(target), scaling, repr(model_config), repr(train_config)]
    )
    result = RUNS.cached(key)
    if result is None:
        if not st.button("Train the model", type="primary", key=f"{PREFIX}train_go"):
            st.info("Press the button to train; the same settings are trained only once.")
            return
        try:
            result = RUNS.get_or_train(
                key, lambda report: train_with_progress(dataset, model_config, train_config, style)
            )
        except ac.InputError as error:
            show_error(str(error))
            return
    show_training(result, model_config, style, period)


def _error_beside_naive(
    columns: Sequence[DeltaGenerator], name: str, model: float, naive: float, naive_note: str = ""
) -> None:
    """The model's error, with its difference from the naive one, beside the naive error."""
    columns[0].metric(
        f"Model {name}",
        f"{model:.4g}",
        delta=f"{model - naive:+.3g} vs naive",
        delta_color="inverse",
    )
    columns[1].metric(f"Naive {name}{naive_note}", f"{naive:.4g}")


def show_training(
    result: TrainingResult, model_config: ForecasterConfig, style: FigureStyle, period: int | None
) -> None:
    """Errors beside the naive forecast, forecasts, losses, attention before and after."""
    model_errors, naive_errors = result.model_errors, result.naive_errors
    columns = st.columns(4)
    _error_beside_naive(
        columns[:2], "MAE", model_errors.mae, naive_errors.mae, " (tomorrow = today)"
    )
    _error_beside_naive(columns[2:], "RMSE", model_errors.rmse, naive_errors.rmse)
    if model_errors.mae < naive_errors.mae:
        st.success(
            f"The model's forecasts are off by {model_errors.mae:.3g} on average, "
            f'{1 - model_errors.mae / naive_errors.mae:.0%} less than "tomorrow equals '
            'today".'
        )
    else:
        st.warning(
            '"Tomorrow equals today" is better here: try more steps, a longer series '
            "or a different window."
        )
    st.caption(
        f"Training {result.stop_reason}; weights of step {result.best_step} kept; "
        f"{result.seconds:.1f} s on one CPU thread; {len(result.actual)} validation days."
    )
    left, right = st.columns(2)
    chart(
        forecast_figure(
            result.val_labels,
            result.actual,
            {"model": result.predicted, "naive": result.naive},
            style=style,
        ),
        key="ts_forecast_chart",
        place=left,
    )
    chart(
        loss_figure(
            result.eval_steps,
            result.train_loss,
            result.val_loss,
            best_step=result.best_step,
            style=style,
        ),
        key="ts_loss_chart",
        place=right,
    )
    st.subheader("Attention before and after training")
    layer = 0
    if model_config.n_layers > 1:
        layer = (
            st.radio(
                "Layer",
                range(1, model_config.n_layers + 1),
                horizontal=True,
                key=f"{PREFIX}layer",
                bind=BIND,
            )
            - 1
        )
    before, after = result.weights_before[layer], result.weights_after[layer]
    pairs = np.stack(
        [matrix for head in range(len(before)) for matrix in (before[head], after[head])]
    )
    titles = [f"head {h + 1} {when}" for h in range(len(before)) for when in ("before", "after")]
    labels = list(result.example_labels)
    chart(
        heatmap_grid(
            pairs,
            labels,
            labels,
            titles=titles,
            columns=2,
            style=style,
            title="The most recent window, before and after training",
            mask=result.mask,
        ),
        key="ts_before_after",
        place=st,
    )
    chart(
        figures.lag_bars(
            {
                "before training": result.last_row_before[layer],
                "after training": result.last_row_after[layer],
            },
            labels,
            period=period,
            style=style,
            title="The last day's attention, mean over heads and validation windows",
        ),
        key="ts_lag_before_after",
        place=st,
    )
