r"""Forecasting the change instead of the level: differencing and its inverse.

A series that rises steadily (CO₂, prices, a population) puts its most recent
values above every value a model of levels was trained on, and such a model
cannot forecast values it never saw. Its steps, though, stay alike:

.. math:: \Delta x_t = x_t - x_{t-1}

A model trained on :math:`\Delta x` forecasts the next change, and the
forecast is read back as a level by adding it to the last known level:

.. math:: \hat x_{t+1} = x_t + \widehat{\Delta x}_{t+1}

:func:`difference` and :func:`integrate` are each other's inverse:
``integrate(x[0], difference(x)) == x[1:]``.
"""

from __future__ import annotations

import numpy as np


def difference(values: np.ndarray) -> np.ndarray:
    r"""Step changes along the first axis: ``(N, ...)`` -> ``(N - 1, ...)``.

    .. math:: \Delta x_t = x_t - x_{t-1}, \qquad t = 1, \dots, N - 1

    Row ``t - 1`` of the result is the change *into* row ``t``.
    """
    values = np.asarray(values, dtype=float)
    return values[1:] - values[:-1]


def integrate(start: np.ndarray | float, changes: np.ndarray) -> np.ndarray:
    r"""Levels after ``start (...)`` from the changes that follow it ``(K, ...)``: ``(K, ...)``.

    .. math:: x_k = x_0 + \sum_{j=1}^{k} \Delta x_j, \qquad k = 1, \dots, K

    The start itself is not repeated in the result. A one-step forecast is the
    case ``K = 1``: the level forecast is the last known level plus the
    forecast change, ``integrate(last_levels (M,), forecast_changes[None] (1, M))[0]``.
    """
    return np.asarray(start, dtype=float) + np.cumsum(np.asarray(changes, dtype=float), axis=0)
