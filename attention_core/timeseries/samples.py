r"""The made-up series the time-series page offers as samples.

Both are generated from a seed (no files, no network), so every session and
every test gets the same numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SEASONAL_PERIOD = 7
#: A weekly shape like shop sales: quiet early week, busy weekend.
WEEKLY_PATTERN = np.array([-1.0, -0.6, -0.8, -0.2, 0.6, 2.0, 1.2])


def seasonal_series(
    n_days: int = 730, seed: int = 42, noise: float = 0.3, drift: float = 0.05
) -> pd.DataFrame:
    r"""Daily sales with period 7 plus noise, on a slowly wandering level: ``(n_days, 1)``.

    .. math:: y_t = 10 + \ell_t + s_{t \bmod 7} + \varepsilon_t, \quad
              \ell_t = \ell_{t-1} + \eta_t,\;
              \eta_t \sim \mathcal N(0, 0.05^2),\; \varepsilon_t \sim \mathcal N(0, 0.3^2)

    with the fixed weekly shape ``WEEKLY_PATTERN``. Because the level wanders,
    the best forecast of tomorrow is the most recent value one period back
    (lag 7, then 14, 21, ...): a trained model should attend there, while
    "tomorrow equals today" is far off.
    """
    rng = np.random.default_rng(seed)
    steps = np.arange(n_days)
    level = np.cumsum(drift * rng.standard_normal(n_days))
    weekly = WEEKLY_PATTERN[steps % SEASONAL_PERIOD]
    sales = 10.0 + level + weekly + noise * rng.standard_normal(n_days)
    index = pd.date_range("2022-01-03", periods=n_days, freq="D", name="date")
    return pd.DataFrame({"sales": sales}, index=index)


def synthetic_ohlcv(n_days: int = 500, seed: int = 42) -> pd.DataFrame:
    r"""Daily open/high/low/close/volume of a made-up stock: ``(n_days, 5)``, p = 5 features.

    Close is a geometric random walk,
    :math:`c_t = c_{t-1} \exp(\mu + \sigma \varepsilon_t)`; open is near the
    previous close; high/low bracket both; volume grows with the size of the move.
    """
    rng = np.random.default_rng(seed)
    returns = 0.0003 + 0.015 * rng.standard_normal(n_days)
    close = 100.0 * np.exp(np.cumsum(returns))
    previous = np.concatenate([[100.0], close[:-1]])
    open_ = previous * np.exp(0.004 * rng.standard_normal(n_days))
    high = np.maximum(open_, close) * (1 + np.abs(0.006 * rng.standard_normal(n_days)))
    low = np.minimum(open_, close) * (1 - np.abs(0.006 * rng.standard_normal(n_days)))
    volume = np.round(1e6 * np.exp(0.3 * rng.standard_normal(n_days) + 20 * np.abs(returns)))
    index = pd.bdate_range("2023-01-02", periods=n_days, name="date")
    return pd.DataFrame(
        {"open": open_, "high": high, "low": low, "close": close, "volume": volume}, index=index
    )
