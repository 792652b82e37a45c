"""The time-series page's training section: settings and one shared training run.

Trains the notes' decoder model (``attention_core.timeseries.model``, which imports
PyTorch) on the chosen columns. A run is keyed by the data and every setting;
the first session to ask trains it, every other session with the same key waits
for it and reads the same frozen result (:mod:`ui.shared.training_cache`, as the
learning page). Widget keys share the page's ``ts_`` prefix so they sit in the
same links. What a run shows, and why the naive forecast may win:
:mod:`ui.time_series.results`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import attention_core as ac
from attention_core.boundary import limits
from attention_core.training.config import TrainingConfig
from attention_core.training.result import TrainingProgress
from hosting.turns import TRAININGS
from ui.figures.style import FigureStyle
from ui.shared.safe import show_error, show_info
from ui.shared.training_cache import TrainingCache
from ui.shared.training_progress import LiveProgress
from ui.shared.url import BIND
from ui.time_series.heads_off import heads_off_section
from ui.time_series.results import CHANGE_KEY, TRAIN_NOW_KEY, show_training
from ui.time_series.state import PREFIX, TRAINING_NAMES
from ui.time_series.training_figures import loss_figure

if TYPE_CHECKING:  # both import torch; at run time they are imported only once training is on
    from attention_core.timeseries.model import ForecasterConfig
    from attention_core.timeseries.training import ForecasterResult

LEARNING_RATES = (0.001, 0.003, 0.01)
BATCH_SIZE = 64
KEYS = [f"{PREFIX}{name}" for name in TRAINING_NAMES]
MAX_CACHED_TRAININGS = 32
CACHE_TTL_SECONDS = 3600
REDRAW_SECONDS = 0.3


#: Every trained forecaster of this server process, shared by all sessions.
RUNS: TrainingCache[ForecasterResult, object] = TrainingCache(
    MAX_CACHED_TRAININGS, ttl_seconds=CACHE_TTL_SECONDS
)


@dataclass(frozen=True)
class TrainingChoices:
    """What the training widgets say: steps, layers N, feed-forward width, learning rate,
    and whether the model forecasts the change from one step to the next."""

    steps: int
    layers: int
    hidden: int
    rate: float
    differenced: bool = False


def training_settings() -> TrainingChoices:
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
    differenced = st.toggle(CHANGE_LABEL, key=CHANGE_KEY, bind=BIND, help=CHANGE_HELP)
    return TrainingChoices(int(steps), int(layers), int(hidden), float(rate), differenced)


def training_configs(
    settings: TrainingChoices,
    config: ac.AttentionConfig,
    activation: str,
    n_features: int,
    window: int,
) -> tuple[ForecasterConfig, TrainingConfig]:
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
    train_config = replace(
        forecaster.FORECAST_TRAINING,
        steps=settings.steps,
        batch_size=BATCH_SIZE,
        learning_rate=settings.rate,
        seed=config.seed,
    )
    forecaster.check_budget(model_config, train_config)
    return model_config, train_config


def train_with_progress(
    dataset: ac.SeriesDataset,
    model_config: ForecasterConfig,
    train_config: TrainingConfig,
    style: FigureStyle,
) -> ForecasterResult:
    """Train once, drawing a progress bar and the live loss curves."""
    from attention_core.timeseries import training as trainer  # imports torch: only here

    def curves(steps: np.ndarray, train_loss: np.ndarray, val_loss: np.ndarray) -> go.Figure:
        return loss_figure(steps, train_loss, val_loss, style=style)

    with LiveProgress("Training…", curves, REDRAW_SECONDS) as live:

        def on_progress(update: TrainingProgress) -> None:
            text = f"Step {update.step} of {update.steps}: validation loss {update.held_out:.4f}"
            live.step(update.step, update.steps, text, update.train_loss, update.held_out)

        return trainer.train_model(
            dataset, model_config, train_config, on_progress, live.in_queue, TRAININGS
        )


CHANGE_LABEL = "Forecast the change from one step to the next (differencing)"
CHANGE_HELP = (
    "Off: the model forecasts the next value itself. On: every column becomes its change "
    "from the step before, Δx = xₜ − xₜ₋₁; the model forecasts the next change and the page "
    "reads it back as a level, ŷₜ₊₁ = yₜ + Δŷₜ₊₁. A series that rises or falls steadily "
    "leaves the range training saw; its changes do not. Errors are in the target's own "
    "units either way, on the same validation days."
)
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
    settings: TrainingChoices,
    style: FigureStyle,
    period: int | None,
) -> None:
    """Train the notes' model on the chosen columns (cached per data, settings and seed)."""
    # A remedy's button (ui.time_series.results) asks to train at once: on this run only.
    train_now = st.session_state.pop(TRAIN_NOW_KEY, False)
    try:
        model_config, train_config = training_configs(
            settings, config, activation, len(features), window
        )
        dataset = ac.prepare_dataset(
            frame, features, target, window, scaling, differenced=settings.differenced
        )
    except ac.InputError as error:
        show_error(str(error))
        return
    if (config.d_k, config.d_v) != (config.d_model // config.n_heads,) * 2:
        show_info("Training uses dₖ = d_v = d_model / heads; your own widths apply above only.")
    key = "|".join(
        [fingerprint, repr(features), repr(target), scaling, repr(model_config), repr(train_config)]
        + (["change"] if settings.differenced else [])
    )
    result = RUNS.cached(key)
    if result is None:
        pressed = st.button("Train the model", type="primary", key=f"{PREFIX}train_go")
        if not (pressed or train_now):
            st.info("Press the button to train; the same settings are trained only once.")
            return
        try:
            result = RUNS.get_or_train(
                key, lambda report: train_with_progress(dataset, model_config, train_config, style)
            )
        except ac.InputError as error:
            show_error(str(error))
            return
    show_training(result, dataset, model_config, style, period)
    heads_off_section(key, result, dataset, model_config, style)
