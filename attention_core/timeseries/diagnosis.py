r"""Why a model may lose to the naive forecast "tomorrow equals today", read from the data.

Every measure is computed on the target in its own units, from the rows the
training windows see (inputs and targets, ``train``) and the values the
validation windows forecast (``val``):

* **outside**: the share of ``val`` above :math:`\max(\text{train})` or below
  :math:`\min(\text{train})`. A model of levels has never been asked for such values.
* **trend**: :math:`R^2` of the least-squares line through ``train`` over time.
* **shift**: :math:`(\overline{\text{val}} - \overline{\text{train}}) / \mathrm{std}(\text{train})`.
* **noise**: the Ljung–Box statistic of the training changes
  :math:`\Delta y_t = y_t - y_{t-1}` over lags :math:`1..h`, :math:`h = \min(10, T, n/5)`
  (Hyndman and Athanasopoulos' rule for series without a known season),
  :math:`Q = n(n+2)\sum_{k=1}^{h} \rho_k^2 / (n-k)`, against its 5 % critical value
  :math:`\chi^2_{h,\,0.95}`. Below it, no step says much about the next within a
  window: the series looks like a random walk, whose best forecast is its last value.
* **few windows**: fewer training windows than :data:`FEW_WINDOWS`.

:func:`measure_series` computes them; :func:`diagnose_loss` adds the findings they support,
each with plain words and a remedy the page can offer. Neither knows whether the model
lost: the page asks only then.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.timeseries.differencing import difference
from attention_core.timeseries.windows import SeriesDataset

#: A quarter of the validation values beyond every training value: too many to be a few
#: outliers, and the forecasts of those (a model of levels stays inside what it saw) weigh.
OUTSIDE_SHARE = 0.25
#: A straight line explains at least half the training values' variance.
TREND_R2 = 0.5
#: The validation values' mean a whole training standard deviation from the training mean.
SHIFT_SDS = 1.0
#: The default model has a few thousand weights; under this many windows it fits their noise.
FEW_WINDOWS = 100
#: Most lags the noise test sums over (Hyndman and Athanasopoulos, *Forecasting: Principles
#: and Practice*, 5.4): more lags dilute one strong lag, such as a noisy level's -0.5 at lag 1.
MAX_LAGS = 10
#: The standard normal's 95 % quantile, for the chi-square critical value.
Z_95 = 1.6448536269514722

#: What a finding suggests; the page turns "change" and "level" into a button.
CHANGE, LEVEL, SHORTER_WINDOW = "change", "level", "shorter window"


@dataclass(frozen=True)
class SeriesMeasures:
    """What :func:`measure_series` found in a dataset's target; findings quote each field."""

    above: float  #: share of validation values above every training value
    below: float  #: share below every training value
    highest: float  #: the largest training value
    lowest: float  #: the smallest training value
    trend_r2: float  #: R² of a straight line through the training values
    shift: float  #: validation mean minus training mean, in training standard deviations
    noise_q: float  #: Ljung–Box Q of the training changes (inf if they are constant)
    noise_critical: float  #: its 5 % critical value
    lags: int  #: h, the lags Q sums over
    train_windows: int
    differenced: bool  #: the model forecast changes

    @property
    def outside(self) -> bool:
        return self.above + self.below >= OUTSIDE_SHARE

    @property
    def trends(self) -> bool:
        return self.trend_r2 >= TREND_R2

    @property
    def shifted(self) -> bool:
        return abs(self.shift) >= SHIFT_SDS

    @property
    def noisy(self) -> bool:
        return self.noise_q < self.noise_critical


@dataclass(frozen=True)
class Finding:
    """One reason, in words with its numbers, and what to try (:data:`CHANGE` …, or None)."""

    kind: str  #: "outside", "trend", "shift", "noise", "no trend" or "few windows"
    words: str
    remedy: str | None


@dataclass(frozen=True)
class LossDiagnosis:
    """The measures and the findings they support, most telling first."""

    measures: SeriesMeasures
    findings: tuple[Finding, ...]

    @property
    def remedy(self) -> str | None:
        """The first remedy a finding offers, None if none does."""
        return next((f.remedy for f in self.findings if f.remedy is not None), None)


def trend_r2(values: np.ndarray) -> float:
    r"""``values (n,)`` over time :math:`t = 0..n-1`: :math:`R^2 = 1 - \mathrm{var}(y - \hat y)
    / \mathrm{var}(y)` of the least-squares line :math:`\hat y = a + b t` (0 if constant)."""
    time = np.arange(len(values), dtype=float)
    residuals = values - np.polyval(np.polyfit(time, values, 1), time)
    spread = float(np.var(values))
    return 0.0 if spread == 0 else max(0.0, 1.0 - float(np.var(residuals)) / spread)


def autocorrelations(values: np.ndarray, lags: int) -> np.ndarray:
    r""":math:`\rho_k = \sum_t (x_t - \bar x)(x_{t+k} - \bar x) / \sum_t (x_t - \bar x)^2`,
    ``values (n,)`` -> ``(lags,)`` for :math:`k = 1..lags`."""
    centred = values - values.mean()
    total = float(centred @ centred)
    return np.array([centred[:-k] @ centred[k:] for k in range(1, lags + 1)]) / total


def ljung_box(changes: np.ndarray, lags: int) -> float:
    r""":math:`Q = n(n+2)\sum_{k=1}^{h} \rho_k^2/(n-k)` of ``changes (n,)``, h = ``lags`` < n.

    Constant changes (a straight line) are perfectly predictable: :math:`Q = \infty`.
    """
    n = len(changes)
    if np.ptp(changes) == 0:
        return float("inf")
    rho = autocorrelations(changes, lags)
    return float(n * (n + 2) * np.sum(rho**2 / (n - np.arange(1, lags + 1))))


def chi_square_95(degrees: int) -> float:
    r""":math:`\chi^2_{h,0.95}` by Wilson–Hilferty: :math:`h(1 - \frac{2}{9h} + z_{0.95}
    \sqrt{\frac{2}{9h}})^3` (within 1 % of the exact quantile from :math:`h = 2` on)."""
    third = 2 / (9 * degrees)
    return float(degrees * (1 - third + Z_95 * np.sqrt(third)) ** 3)


def measure_series(dataset: SeriesDataset) -> SeriesMeasures:
    """Measure ``dataset``'s target (levels ``(N,)``) over its training and validation windows."""
    # Every level a training window reads (its changes need the row before) or forecasts:
    # the same rows whether the model forecasts levels or changes.
    first = int(dataset.train_ends[0]) - dataset.window + 1 - int(dataset.differenced)
    train = dataset.levels[first : int(dataset.train_ends[-1]) + 2]
    val = dataset.levels[dataset.val_ends + 1]
    spread = float(np.std(train))
    changes = difference(train)
    lags = max(1, min(MAX_LAGS, dataset.window, len(changes) // 5))
    return SeriesMeasures(
        above=float(np.mean(val > train.max())),
        below=float(np.mean(val < train.min())),
        highest=float(train.max()),
        lowest=float(train.min()),
        trend_r2=trend_r2(train),
        shift=0.0 if spread == 0 else float((val.mean() - train.mean()) / spread),
        noise_q=ljung_box(changes, lags),
        noise_critical=chi_square_95(lags),
        lags=lags,
        train_windows=len(dataset.train_ends),
        differenced=dataset.differenced,
    )


def diagnose_loss(dataset: SeriesDataset) -> LossDiagnosis:
    """:func:`measure_series` and the findings the measures support (:func:`findings`)."""
    measures = measure_series(dataset)
    return LossDiagnosis(measures, findings(measures))


def findings(m: SeriesMeasures) -> tuple[Finding, ...]:
    """The findings ``m`` supports, most telling first.

    Forecasting levels: values outside the training range, a trend, a shift, and
    changes like noise each suggest forecasting the change. Forecasting changes:
    levels with none of the first three, and changes that are no noise, suggest
    the level again. Either way, few windows suggest a shorter window.
    """
    found = _level_findings(m) if not m.differenced else _change_findings(m)
    if m.train_windows < FEW_WINDOWS:
        found += (
            Finding(
                "few windows",
                f"Only {m.train_windows} windows to learn from: few examples for a model of "
                "thousands of weights. A shorter window or a longer series gives it more.",
                SHORTER_WINDOW,
            ),
        )
    return found


def _outside(m: SeriesMeasures) -> Finding:
    share, where, extreme, bound = (
        (m.above, "above", "highest", m.highest)
        if m.above >= m.below
        else (m.below, "below", "lowest", m.lowest)
    )
    return Finding(
        "outside",
        f"{share:.0%} of the validation values lie {where} every value the training windows "
        f"saw (the {extreme} was {bound:.4g}): a model of levels has never been asked for such "
        "values.",
        CHANGE,
    )


def _noise_words(m: SeriesMeasures) -> str:
    return (
        "The steps from one value to the next look like noise: none says much about the next "
        f"(Ljung–Box Q = {m.noise_q:.3g} over {m.lags} lags; pure noise stays below "
        f"{m.noise_critical:.3g} in 95% of series). If the series is a random walk, its best "
        "forecast is its last value, the naive forecast itself, and no model beats it on average."
    )


def _level_findings(m: SeriesMeasures) -> tuple[Finding, ...]:
    """Forecasting levels: what stands in a model of levels' way."""
    found = [_outside(m)] if m.outside else []
    if m.trends:
        found.append(
            Finding(
                "trend",
                f"The series trends: a straight line explains {m.trend_r2:.0%} of the training "
                "values' variance. Its steps are alike where its levels are not.",
                CHANGE,
            )
        )
    if m.shifted and not m.outside:  # a shift out of range is said already
        found.append(
            Finding(
                "shift",
                f"The validation values sit {abs(m.shift):.1f} standard deviations "
                f"{'above' if m.shift > 0 else 'below'} the training values' mean: the level "
                "has shifted since the training windows.",
                CHANGE,
            )
        )
    if m.noisy:
        found.append(
            Finding(
                "noise",
                _noise_words(m) + " A model of changes can learn that (a change of 0 is the "
                "naive forecast); a model of levels must learn to copy the last value.",
                CHANGE,
            )
        )
    return tuple(found)


def _change_findings(m: SeriesMeasures) -> tuple[Finding, ...]:
    """Forecasting changes: noise that no model beats, or levels that needed no differencing."""
    if m.noisy:
        return (Finding("noise", _noise_words(m), None),)
    if m.outside or m.trends or m.shifted:
        return ()  # the changes already answer what the levels say
    return (
        Finding(
            "no trend",
            "The levels stay within the range training saw, with no trend and no shift: a "
            "model of levels has nothing to extrapolate, while a forecast change starts from "
            "the last value, noise and all.",
            LEVEL,
        ),
    )
