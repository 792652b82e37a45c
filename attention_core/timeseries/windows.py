r"""From a series to the windows a model learns from: scaling, windows, errors.

A window is ``T`` consecutive rows of the ``p`` chosen feature columns,
``X (T, p)``; the model forecasts the target one step after the window's last
row. With ``differenced`` the model sees and forecasts each column's change from
the row before instead (:mod:`attention_core.timeseries.differencing`), and its
forecasts are read back as levels. How a window is embedded and attended over
before any training: :mod:`attention_core.timeseries.embedding`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_TRAIN_WINDOWS, MAX_WINDOW
from attention_core.boundary.registry import choose
from attention_core.boundary.validation import check_positive_int
from attention_core.timeseries.differencing import difference, integrate
from attention_core.timeseries.options import SERIES_SCALINGS

#: The most recent share of windows kept aside to validate a trained model.
VALIDATION_SHARE = 0.2
#: Fewest windows worth training on (a handful of them are validation).
MIN_TRAIN_WINDOWS = 10


@dataclass(frozen=True)
class Scaler:
    r"""Per-column affine scaling :math:`z = (x - o) / s`; ``offset, scale (p,)``."""

    method: str
    offset: np.ndarray
    scale: np.ndarray

    def transform(self, values: np.ndarray) -> np.ndarray:
        """``(N, p)`` raw -> ``(N, p)`` scaled."""
        return (np.asarray(values, dtype=float) - self.offset) / self.scale

    def inverse(self, scaled: np.ndarray) -> np.ndarray:
        """``(N, p)`` scaled -> ``(N, p)`` in the data's own units."""
        return np.asarray(scaled, dtype=float) * self.scale + self.offset


def fit_scaler(values: np.ndarray, method: str) -> Scaler:
    r"""Fit a :class:`Scaler` to ``values (N, p)`` (fit on training rows only).

    * ``zscore``: :math:`o = \bar x`, :math:`s = \mathrm{std}(x)`
    * ``minmax``: :math:`o = \min x`, :math:`s = \max x - \min x` (values in [0, 1])
    * ``none``: :math:`o = 0`, :math:`s = 1`

    A constant column gets :math:`s = 1` (it is only shifted), never a division by 0.
    """
    values = np.asarray(values, dtype=float)
    offset, scale = choose(SERIES_SCALINGS, method, "scaling").build(values)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    return Scaler(method, offset, scale)


def check_window(
    n_rows: int, window: int, training: bool = False, differenced: bool = False
) -> int:
    """Return ``window`` if a series of ``n_rows`` rows can hold it, else raise InputError.

    Viewing needs ``T <= n_rows``; training needs ``n_rows - T >= MIN_TRAIN_WINDOWS``
    windows that each have a next value to forecast, and one row more when
    ``differenced`` (the first row has no change).
    """
    window = check_positive_int(window, "The window length", MAX_WINDOW)
    if window < 2:
        raise InputError("The window needs at least 2 time steps for attention to mix anything.")
    needed = window + MIN_TRAIN_WINDOWS + int(differenced) if training else window
    if n_rows < needed:
        what = f"training with a window of {window}" if training else f"a window of {window}"
        what += " on the changes" if training and differenced else ""
        raise InputError(
            f"The series has {n_rows} rows; {what} needs at least {needed}. "
            "Choose a shorter window or a longer series."
        )
    return window


def _date_labels(index: pd.DatetimeIndex) -> list[str]:
    """Dates as finely as they vary: ``1998`` for years, ``1998Q2`` for quarters, ``1998-04``
    for months (the reader puts each period at its first day), else ``1998-04-17`` (and the
    time of day if any)."""
    if bool((index != index.normalize()).any()):
        return index.strftime("%Y-%m-%d %H:%M").tolist()
    if not bool((index.day == 1).all()):
        return index.strftime("%Y-%m-%d").tolist()
    if bool((index.month == 1).all()):
        return index.strftime("%Y").tolist()
    if bool(np.isin(index.month, (1, 4, 7, 10)).all()):
        return [f"{date.year}Q{(date.month - 1) // 3 + 1}" for date in index]
    return index.strftime("%Y-%m").tolist()


def row_labels(index: pd.Index) -> list[str]:
    """Unique text labels for the rows: dates as finely as they vary (:func:`_date_labels`),
    else numbers."""
    if isinstance(index, pd.DatetimeIndex):
        labels = _date_labels(index)
    else:
        labels = [str(label) for label in index]
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return unique


@dataclass(frozen=True)
class SeriesDataset:
    """Scaled arrays and the windows a model trains and validates on.

    A window ending at row ``e`` is ``features[e-T+1 : e+1]`` ``(T, p)`` and
    forecasts ``target[e+1]``. When ``differenced``, row ``t`` of both holds the
    change :math:`x_t - x_{t-1}` (row 0 has none: NaN, and no window reads it).
    """

    features: np.ndarray  #: (N, p) scaled levels or changes, float32
    target: np.ndarray  #: (N,) scaled levels or changes, float32
    levels: np.ndarray  #: (N,) the target in its own units
    differenced: bool  #: the model sees and forecasts changes, not levels
    feature_names: tuple[str, ...]
    target_name: str
    window: int
    train_ends: np.ndarray  #: (M_train,) row of each training window's last step
    val_ends: np.ndarray  #: (M_val,) the most recent windows, after every training target
    feature_scaler: Scaler
    target_scaler: Scaler  #: width 1
    labels: tuple[str, ...]  #: (N,) row labels

    def level_forecasts(self, ends: np.ndarray, scaled: np.ndarray) -> np.ndarray:
        r"""Forecasts ``scaled (M,)`` of rows ``ends + 1`` in the target's own units ``(M,)``.

        Unscaled; when differenced, read back as levels one step on (:func:`integrate`):

        .. math:: \hat y_{e+1} = y_e + \widehat{\Delta y}_{e+1}
        """
        forecast = self.target_scaler.inverse(np.asarray(scaled)[:, None])[:, 0]
        if not self.differenced:
            return forecast
        return integrate(self.levels[ends], forecast[None])[0]


def window_ends(n_rows: int, window: int, differenced: bool = False) -> np.ndarray:
    """Last rows of the windows training may use: each has a next value to forecast.

    Differenced, a window needs the row before its first (row 0 has no change).
    """
    return np.arange(window - 1 + int(differenced), n_rows - 1)[-MAX_TRAIN_WINDOWS:]


def validation_count(n_rows: int, window: int) -> int:
    """How many of the most recent windows validate: the same for levels and changes.

    Counted on the level windows, so that forecasting the change is validated
    on exactly the windows (and against the same naive forecasts) as the level.
    """
    return max(2, round(len(window_ends(n_rows, window)) * VALIDATION_SHARE))


def scaling_rows(n_rows: int, window: int, differenced: bool = False) -> slice:
    """The rows every scaler of a series is fitted on: those the training windows see.

    Validation rows never reach a scaler. The view before training uses the same
    rows, so both views see the same scaled numbers. A series too short to
    train on has no such rows; then every row is used (but row 0 when differenced).
    """
    ends = window_ends(n_rows, window, differenced)
    n_val = validation_count(n_rows, window)
    if len(ends) <= n_val:
        return slice(int(differenced), None)
    return slice(int(ends[0]) - window + 1, int(ends[-n_val - 1]) + 2)


def prepare_dataset(
    frame: pd.DataFrame,
    features: Sequence[str],
    target: str,
    window: int,
    scaling: str = "zscore",
    differenced: bool = False,
) -> SeriesDataset:
    """Scale ``frame``'s columns and split its windows chronologically.

    The last ``VALIDATION_SHARE`` of the windows validate; at most
    ``MAX_TRAIN_WINDOWS`` of the most recent windows are used. Scalers are fit
    on the rows training sees, so validation numbers never leak into them.
    ``differenced``: every feature column and the target become their change
    from the row before (:func:`difference`) before scaling; the validation
    windows stay those of the levels.
    """
    features = list(features)
    if not features:
        raise InputError("Choose at least one feature column.")
    missing = [name for name in [*features, target] if name not in frame.columns]
    if missing:
        raise InputError(f"These columns are not in the data: {', '.join(map(repr, missing))}.")
    n_rows = len(frame)
    window = check_window(n_rows, window, training=True, differenced=differenced)
    ends = window_ends(n_rows, window, differenced)
    n_val = validation_count(n_rows, window)
    train_ends, val_ends = ends[:-n_val], ends[-n_val:]
    fit_rows = scaling_rows(n_rows, window, differenced)
    feature_values = frame[features].to_numpy(dtype=float)  # (N, p)
    levels = frame[target].to_numpy(dtype=float)  # (N,)
    target_values = levels[:, None]  # (N, 1)
    if differenced:  # row t: x_t - x_{t-1}; row 0 has no change
        feature_values = _differenced(feature_values)
        target_values = _differenced(target_values)
    feature_scaler = fit_scaler(feature_values[fit_rows], scaling)
    target_scaler = fit_scaler(target_values[fit_rows], scaling)
    scaled_features = feature_scaler.transform(feature_values).astype(np.float32)
    scaled_target = target_scaler.transform(target_values)[:, 0].astype(np.float32)
    return SeriesDataset(
        scaled_features,
        scaled_target,
        levels,
        differenced,
        tuple(features),
        target,
        window,
        train_ends,
        val_ends,
        feature_scaler,
        target_scaler,
        tuple(row_labels(frame.index)),
    )


def _differenced(values: np.ndarray) -> np.ndarray:
    """``(N, p)`` -> ``(N, p)``: row ``t`` is ``x_t - x_{t-1}``, row 0 NaN (aligned rows)."""
    return np.vstack([np.full((1, values.shape[1]), np.nan), difference(values)])


def windows_at(values: np.ndarray, ends: np.ndarray, window: int) -> np.ndarray:
    """Stack the windows ending at rows ``ends (M,)`` of ``values (N, p)``: ``(M, T, p)``."""
    rows = np.asarray(ends)[:, None] + np.arange(1 - window, 1)[None, :]  # (M, T)
    return values[rows]


@dataclass(frozen=True)
class ForecastErrors:
    r"""Errors of a forecast, in the target's own units.

    .. math:: \mathrm{MAE} = \tfrac1n \sum |y - \hat y|, \qquad
              \mathrm{RMSE} = \sqrt{\tfrac1n \sum (y - \hat y)^2}
    """

    mae: float
    rmse: float


def forecast_errors(actual: np.ndarray, predicted: np.ndarray) -> ForecastErrors:
    """MAE and RMSE of ``predicted (n,)`` against ``actual (n,)``."""
    error = np.asarray(predicted, dtype=float) - np.asarray(actual, dtype=float)
    return ForecastErrors(float(np.mean(np.abs(error))), float(np.sqrt(np.mean(error**2))))
