r"""The trained forecaster with heads turned off: its forecast, and its error with each head off.

.. math::
    \hat y^{\setminus S} = \text{the forecaster with the heads } S \text{ off}
    \quad (\text{their outputs } \tilde C_h = R\, C_h,\ :mod:`attention_core.maths.ablation`)
    \qquad \mathrm{MAE}_{\ell h} = \tfrac1M \textstyle\sum_m
    \big|\, y_m - \hat y^{\setminus \{(\ell, h)\}}_m \big|

On the ``M`` validation days of the run, in the target's own units, as the page judges the
intact model (:class:`~attention_core.timeseries.training.ForecasterResult`). The model is
built again from the run's kept weights and evaluated without gradients, one thread, in
its turn with the trainings (``turns``). Needs PyTorch (through
:mod:`attention_core.timeseries.training`); imported only on demand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.arrays import read_only
from attention_core.boundary.errors import InputError
from attention_core.maths.ablation import ABLATION_KINDS, Ablation, AblationKind, check_ablation
from attention_core.timeseries.model import ForecasterConfig, step_macs
from attention_core.timeseries.training import ForecasterResult, restore, validation_forecast
from attention_core.timeseries.windows import ForecastErrors, SeriesDataset, forecast_errors
from attention_core.training.loop import TurnQueue, in_turn


@dataclass(frozen=True)
class HeadsOffForecast:
    """The validation days' forecast with some heads off, and its error."""

    ablation: Ablation
    predicted: np.ndarray  #: (M,) in the target's own units
    errors: ForecastErrors


@dataclass(frozen=True)
class HeadErrors:
    """The validation error with each head off alone (``L`` layers, ``H`` heads), by kind."""

    intact: ForecastErrors  #: the trained model with every head on
    mae: dict[AblationKind, np.ndarray]  #: kind -> (L, H); [l, h]: head h of layer l off
    rmse: dict[AblationKind, np.ndarray]  #: kind -> (L, H)


def forecast_with_heads_off(
    config: ForecasterConfig,
    result: ForecasterResult,
    dataset: SeriesDataset,
    ablation: Ablation,
    turns: TurnQueue | None = None,
) -> HeadsOffForecast:
    """The trained model's forecast of every validation day with ``ablation``'s heads off.

    InputError when a head does not exist in the model, or every head is off.
    """
    checked = check_ablation(ablation, config.n_layers, config.n_heads)
    assert checked is not None  # an Ablation was given

    def evaluate() -> np.ndarray:
        return validation_forecast(restore(config, result), dataset, checked)

    predicted = read_only(in_turn(evaluate, turns=turns))  # (M,)
    return HeadsOffForecast(checked, predicted, forecast_errors(result.actual, predicted))


def sweep_macs(config: ForecasterConfig, dataset: SeriesDataset) -> int:
    """Multiply-adds of :func:`head_errors`: ``2 L H`` forward passes over the ``M``
    validation windows (the page compares it with ``limits.MAX_SWEEP_MACS``)."""
    passes = len(ABLATION_KINDS) * config.n_layers * config.n_heads
    return passes * step_macs(config, len(dataset.val_ends))


def head_errors(
    config: ForecasterConfig,
    result: ForecasterResult,
    dataset: SeriesDataset,
    turns: TurnQueue | None = None,
) -> HeadErrors:
    """MAE and RMSE on the validation days with each head alone off, in every way of
    :data:`~attention_core.maths.ablation.ABLATION_KINDS`: ``2 L H`` forward passes.

    InputError when the model has a single head (turning it off turns every head off).
    """
    layers, heads = config.n_layers, config.n_heads
    if layers * heads == 1:
        raise InputError(
            "This model has a single head: turning it off turns every head off. "
            "Train with two heads or more to compare them."
        )

    def sweep() -> dict[AblationKind, np.ndarray]:
        model = restore(config, result)
        forecasts = {
            kind: np.stack(
                [
                    [
                        validation_forecast(model, dataset, Ablation.of([(layer, head)], kind))
                        for head in range(heads)
                    ]
                    for layer in range(layers)
                ]
            )
            for kind in ABLATION_KINDS
        }  # kind -> (L, H, M)
        return forecasts

    errors = in_turn(sweep, turns=turns)
    difference = {kind: predicted - result.actual for kind, predicted in errors.items()}
    return HeadErrors(
        intact=result.model_errors,
        mae={kind: read_only(np.abs(d).mean(axis=-1)) for kind, d in difference.items()},
        rmse={kind: read_only(np.sqrt((d**2).mean(axis=-1))) for kind, d in difference.items()},
    )
