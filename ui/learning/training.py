"""The learning page's trained model: shipped, or one shared live run per key.

A task's default settings with seeds 0-29 were trained ahead of time
(:mod:`attention_core.learning.shipped`): the page shows that run at once, the
same on every machine, and a toggle trains it live instead. Any other settings
train live. The first session to ask for a key trains (PyTorch, imported only
here, on one thread) and draws a progress bar and a growing loss/accuracy
curve; a session whose training waits for others sees its place in the queue;
another session asking for the same key meanwhile watches the same progress
and then reads the same frozen result (:mod:`ui.shared.training_cache`). The
settings come from :mod:`ui.learning.state`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from attention_core.boundary import limits
from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.shipped import ShippedRunError, shipped_run
from attention_core.training.config import TrainingConfig
from hosting.turns import TRAININGS
from ui.figures.style import FigureStyle
from ui.learning.figures import training_curves
from ui.learning.state import PREFIX, LearningState, task_key
from ui.shared.safe import show_warning
from ui.shared.training_cache import TrainingCache
from ui.shared.training_progress import LiveProgress

if TYPE_CHECKING:
    from attention_core.learning.result import TinyTransformerResult
    from attention_core.training.result import TrainingProgress

REDRAW_SECONDS = 0.25
# Until the first update: PyTorch loads (once per server), or another training on
# this server finishes (one at a time, each on one thread).
STARTING = "Starting: loading PyTorch, or waiting for another training…"
#: Every trained model of this server process, shared by all sessions.
RUNS: TrainingCache[TinyTransformerResult, TrainingProgress] = TrainingCache(
    limits.MAX_CACHED_LEARNING_RUNS, ttl_seconds=6 * 3600
)


def _run_key(model: TinyTransformerConfig, train: TrainingConfig) -> tuple:
    return (model, train)  # frozen dataclasses: equal settings, equal key


def trained_model(state: LearningState) -> TinyTransformerResult:
    """The run trained ahead of time for these settings, unless the student trains live."""
    model, train, style = state.model, state.train, state.style
    try:
        shipped = shipped_run(model, train)
    except ShippedRunError as error:
        show_warning(f"{error} Training it live instead.")
        shipped = None
    if shipped is None:
        return train_cached(model, train, style)
    live = st.toggle(
        "Train it live on this server",
        key=task_key(model.task, "live"),
        help="Off: the model trained ahead of time with these settings, ready at once and the "
        "same on every machine. On: train it here now. Each processor rounds floats a little "
        "differently, so a live run can take another path from the same seed.",
    )
    if live:
        return train_cached(model, train, style)
    st.caption(
        f"Trained ahead of time by this app's own training code with these settings and seed "
        f"{train.seed}: the same model on every machine, for every student who opens this link."
    )
    return shipped


def train_cached(
    model: TinyTransformerConfig, train: TrainingConfig, style: FigureStyle
) -> TinyTransformerResult:
    """Train once per server for these settings, drawing progress; or wait for whoever is."""

    def curves(steps: np.ndarray, loss: np.ndarray, accuracy: np.ndarray) -> go.Figure:
        return training_curves(steps, loss, accuracy, style=style, title="Training…")

    with LiveProgress(STARTING, curves, REDRAW_SECONDS, chart_key=f"{PREFIX}live_") as live:

        def draw(update: TrainingProgress, who: str) -> None:
            text = (
                f"{who} step {update.step} of at most {update.steps}: "
                f"held-out accuracy {update.held_out:.1%}, {update.seconds:.1f} s"
            )
            live.step(update.step, update.steps, text, update.train_loss, update.held_out)

        def run(report) -> TinyTransformerResult:
            from attention_core.learning import training  # imports torch: only here

            def on_progress(update: TrainingProgress) -> None:
                report(update)
                draw(update, "Training:")

            return training.train_model(model, train, on_progress, live.in_queue, TRAININGS)

        def waiting(update: TrainingProgress | None) -> None:
            if update is None:
                live.say("Another session is training this same model; waiting for it…")
            else:
                draw(update, "Another session is training this model:")

        return RUNS.get_or_train(_run_key(model, train), run, waiting)
