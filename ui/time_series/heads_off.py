r"""The time-series page's experiment: the trained forecaster with heads turned off.

.. math::
    \mathrm{MAE}_{\ell h} = \tfrac1M \textstyle\sum_m
    \big|\, y_m - \hat y^{\setminus \{(\ell, h)\}}_m \big|

Drawn below a trained run (:func:`ui.time_series.training.training_section`): the error on
the validation days with each head alone off, zeroed and mean-ablated, beside the intact
model's (a bar chart and its table), then the shared picker (:mod:`ui.shared.heads_off`, in
the link as ``ts_off`` and ``ts_off_kind``) and the forecast with the chosen heads off
beside the intact one. The core does the evaluating
(:mod:`attention_core.timeseries.heads_off`, PyTorch, imported here only once a run is
trained); its results are shared by every session, keyed as the trained run is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

import attention_core as ac
from attention_core.boundary import limits
from hosting.turns import TRAININGS
from ui.figures.style import FigureStyle
from ui.shared.heads_off import head_label, heads_off_picker, warn_unknown_heads
from ui.shared.matrix_view import chart
from ui.shared.safe import show_info
from ui.time_series.state import PREFIX
from ui.time_series.training_figures import forecast_figure, head_error_figure

if TYPE_CHECKING:  # these import torch; at run time only once a run is trained
    from attention_core.timeseries.heads_off import HeadErrors, HeadsOffForecast
    from attention_core.timeseries.model import ForecasterConfig
    from attention_core.timeseries.training import ForecasterResult

OFF_KEY = f"{PREFIX}off"
#: The run whose sweep was asked for with the button (only a big model's waits for it).
SWEEP_ASKED_KEY = f"{PREFIX}off_sweep_asked"
#: A sweep or a forecast per trained run (and per choice of heads); small arrays.
CACHE_ENTRIES = 32
CACHE_TTL_SECONDS = 3600
INTRO = (
    "Which heads does the trained model need? Turn one off and measure the forecast error on "
    "the validation days again: a head whose loss raises the error was doing useful work."
)


@st.cache_resource(max_entries=CACHE_ENTRIES, ttl=CACHE_TTL_SECONDS, show_spinner=False)
def head_errors(
    run_key: str,
    _config: ForecasterConfig,
    _result: ForecasterResult,
    _dataset: ac.SeriesDataset,
) -> HeadErrors:
    """The error with each head off alone, for the run trained under ``run_key``."""
    from attention_core.timeseries import heads_off  # imports torch: only here

    return heads_off.head_errors(_config, _result, _dataset, TRAININGS)


@st.cache_resource(
    max_entries=CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs={ac.Ablation: lambda ablation: (ablation.kind, tuple(sorted(ablation.heads)))},
)
def forecast_with_heads_off(
    run_key: str,
    ablation: ac.Ablation,
    _config: ForecasterConfig,
    _result: ForecasterResult,
    _dataset: ac.SeriesDataset,
) -> HeadsOffForecast:
    """The validation forecast of the run trained under ``run_key``, ``ablation``'s heads off."""
    from attention_core.timeseries import heads_off  # imports torch: only here

    return heads_off.forecast_with_heads_off(_config, _result, _dataset, ablation, TRAININGS)


def head_error_frame(errors: HeadErrors, n_layers: int, n_heads: int) -> pd.DataFrame:
    """One row per head: the error with it off, each way, and the intact error, unrounded."""
    rows = []
    for layer in range(n_layers):
        for head in range(n_heads):
            row: dict[str, object] = {"head off": head_label(layer, head)}
            for kind, info in ac.ABLATION_KINDS.items():
                row[f"MAE, {info.label.lower()}"] = float(errors.mae[kind][layer, head])
                row[f"RMSE, {info.label.lower()}"] = float(errors.rmse[kind][layer, head])
            row["MAE, every head on"] = errors.intact.mae
            rows.append(row)
    return pd.DataFrame(rows)


def sweep_in_words(errors: HeadErrors, n_heads: int) -> str:
    """The head whose loss hurts the forecast most, zeroed, against the intact error."""
    zeroed = errors.mae["zero"]  # (L, H)
    layer, head = divmod(int(zeroed.argmax()), n_heads)
    worst, intact = float(zeroed[layer, head]), errors.intact.mae
    relative = f" ({worst / intact - 1:+.0%})" if intact > 0 else ""
    return (
        f"Zeroing {head_label(layer, head)} hurts most: the MAE goes from {intact:.4g} with "
        f"every head on to {worst:.4g}{relative}."
    )


def show_sweep(errors: HeadErrors, model_config: ForecasterConfig, style: FigureStyle) -> None:
    """The error with each head off: in words, as bars beside the intact error, as a table."""
    layers, heads = model_config.n_layers, model_config.n_heads
    frame = head_error_frame(errors, layers, heads)
    st.markdown(sweep_in_words(errors, heads))
    figure = head_error_figure(
        list(frame["head off"]),
        errors.intact.mae,
        {info.label.lower(): errors.mae[kind].ravel() for kind, info in ac.ABLATION_KINDS.items()},
        style=style,
    )
    lead = f"The MAE with every head on is {errors.intact.mae:.4g}."
    chart(figure, key=f"{PREFIX}off_sweep", place=st, lead=lead)
    st.dataframe(frame.round(style.decimals), hide_index=True, key=f"{PREFIX}off_sweep_table")


def show_heads_off_forecast(
    forecast: HeadsOffForecast, result: ForecasterResult, style: FigureStyle
) -> None:
    """The error with the chosen heads off beside the intact one, and both forecasts."""
    names = ", ".join(head_label(layer, head) for layer, head in sorted(forecast.ablation.heads))
    off_name = f"model, {names} off"
    intact, off = result.model_errors, forecast.errors
    columns = st.columns(2)
    columns[0].metric(
        "MAE, heads off",
        f"{off.mae:.4g}",
        delta=f"{off.mae - intact.mae:+.3g} vs every head on",
        delta_color="inverse",
    )
    columns[1].metric("MAE, every head on", f"{intact.mae:.4g}")
    figure = forecast_figure(
        result.val_labels,
        result.actual,
        {"model, every head on": result.predicted, off_name: forecast.predicted},
        title="Forecasts with heads off and with every head on",
        style=style,
    )
    chart(figure, key=f"{PREFIX}off_forecast", place=st)


def _ask_for_sweep(run_key: str) -> None:
    st.session_state[SWEEP_ASKED_KEY] = run_key  # a button's callback


def sweep_asked(run_key: str, model_config: ForecasterConfig, dataset: ac.SeriesDataset) -> bool:
    """Whether to measure each head's part now: at once for a small model, else once asked
    (a button: ``2 L H`` passes over the validation windows may take a while)."""
    from attention_core.timeseries.heads_off import sweep_macs  # imports torch: only here

    cost = sweep_macs(model_config, dataset)
    if cost <= limits.MAX_SWEEP_MACS or st.session_state.get(SWEEP_ASKED_KEY) == run_key:
        return True
    passes = len(ac.ABLATION_KINDS) * model_config.n_layers * model_config.n_heads
    st.caption(
        f"Measuring the error with each head off takes {passes} passes over the "
        f"{len(dataset.val_ends):,} validation windows (about {cost / 1e9:,.0f} billion "
        "multiply-adds): a while on one thread."
    )
    st.button(
        "Measure the error with each head off",
        key=f"{PREFIX}off_sweep_go",
        on_click=_ask_for_sweep,
        args=(run_key,),
    )
    return False


def heads_off_section(
    run_key: str,
    result: ForecasterResult,
    dataset: ac.SeriesDataset,
    model_config: ForecasterConfig,
    style: FigureStyle,
) -> None:
    """Each head's part in the forecast error; the forecast with chosen heads off."""
    st.subheader("Turn heads off")
    st.markdown(INTRO)
    if sweep_asked(run_key, model_config, dataset):
        try:
            errors = head_errors(run_key, model_config, result, dataset)
        except ac.InputError as error:
            show_info(str(error))
        else:
            show_sweep(errors, model_config, style)
    warn_unknown_heads(OFF_KEY, model_config.n_layers, model_config.n_heads)
    ablation = heads_off_picker(OFF_KEY, model_config.n_layers, model_config.n_heads)
    if ablation is None:
        show_info("Choose heads to turn off to see the forecast without them.")
        return
    forecast = forecast_with_heads_off(run_key, ablation, model_config, result, dataset)
    show_heads_off_forecast(forecast, result, style)
