"""The time-series page's trained model: its errors beside the naive forecast, and why.

Drawn by :mod:`ui.time_series.training` once a run is trained (or found in the
shared cache). When "tomorrow equals today" wins, the page says so and what in the
data may explain it (:func:`attention_core.diagnose_loss`), and offers the remedy
it suggests: forecasting the change, or the level again, with one click that
also trains.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import attention_core as ac
from attention_core.timeseries.diagnosis import CHANGE, LEVEL
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.cell_lines import recorded_lines
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown
from ui.shared.url import BIND
from ui.time_series import figures
from ui.time_series.state import PREFIX
from ui.time_series.training_figures import forecast_figure, loss_figure

if TYPE_CHECKING:  # both import torch; at run time they are imported only once training is on
    from attention_core.timeseries.model import ForecasterConfig
    from attention_core.timeseries.training import ForecasterResult

#: The training settings' switch (ui.time_series.training draws it) and a flag that trains
#: on the next run without the button: a remedy's click asks for both.
CHANGE_KEY = f"{PREFIX}change"
TRAIN_NOW_KEY = f"{PREFIX}train_now"
#: Each remedy a button can apply: its label and the switch's new value.
REMEDY_BUTTONS = {
    CHANGE: ("Forecast the change instead, and train", True),
    LEVEL: ("Forecast the level instead, and train", False),
}
NOTHING_FOUND = (
    "Nothing in the data stands out: try more steps, another window length or another seed."
)


def _apply_remedy(differenced: bool) -> None:
    """Set the switch before it is drawn again, and train on that run (a button's callback)."""
    st.session_state[CHANGE_KEY] = differenced
    st.session_state[TRAIN_NOW_KEY] = True


def verdict(result: ForecasterResult, dataset: ac.SeriesDataset) -> None:
    """Who won, in words; when the naive forecast did, why (from the data) and what to try."""
    model, naive = result.model_errors.mae, result.naive_errors.mae
    if model < naive:
        st.success(
            f"The model's forecasts are off by {model:.3g} on average, "
            f'{1 - model / naive:.0%} less than "tomorrow equals today".'
        )
        return
    st.warning(
        f'"Tomorrow equals today" is better here: its forecasts are off by {naive:.3g} on '
        f"average, the model's by {model:.3g}."
    )
    diagnosis = ac.diagnose_loss(dataset)
    if not diagnosis.findings:
        st.markdown(NOTHING_FOUND)
        return
    st.markdown(
        "**What the data says:**\n\n"
        + "\n".join(f"- {escape_markdown(finding.words)}" for finding in diagnosis.findings)
    )
    if diagnosis.remedy in REMEDY_BUTTONS:  # a shorter window is said in the words
        label, differenced = REMEDY_BUTTONS[diagnosis.remedy]
        st.button(label, key=f"{PREFIX}remedy", on_click=_apply_remedy, args=(differenced,))


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
    result: ForecasterResult,
    dataset: ac.SeriesDataset,
    model_config: ForecasterConfig,
    style: FigureStyle,
    period: int | None,
) -> None:
    """Errors beside the naive forecast and why, forecasts, losses, attention before and after."""
    model_errors, naive_errors = result.model_errors, result.naive_errors
    columns = st.columns(4)
    _error_beside_naive(
        columns[:2], "MAE", model_errors.mae, naive_errors.mae, " (tomorrow = today)"
    )
    _error_beside_naive(columns[2:], "RMSE", model_errors.rmse, naive_errors.rmse)
    verdict(result, dataset)
    forecast = (
        "the change from the step before, read back as levels"
        if dataset.differenced
        else "the next value"
    )
    st.caption(
        f"The model forecast {forecast}. Training {result.stop_reason}; weights of step "
        f"{result.best_step} kept; {result.seconds:.1f} s on one CPU thread; "
        f"{len(result.actual)} validation days."
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
            result.held_out,
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
        cells=recorded_lines(
            pairs, [f"{when} training" for when in ("before", "after")] * len(before)
        ),
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
