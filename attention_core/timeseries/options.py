"""The time-series page's own choices: how columns are scaled, how a day is embedded.

Each is a table of :class:`~attention_core.boundary.registry.Option` the page's
widgets and the core read (see :mod:`attention_core.timeseries.windows`).
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.registry import Option
from attention_core.maths.layers import gelu_tanh, relu


def zscore_scaling(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Offset and scale of ``values (N, p)``: :math:`o = \bar x`, :math:`s = \mathrm{std}(x)`."""
    return values.mean(axis=0), values.std(axis=0)


def minmax_scaling(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`o = \min x`, :math:`s = \max x - \min x`: values in [0, 1]."""
    return values.min(axis=0), values.max(axis=0) - values.min(axis=0)


def no_scaling(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`o = 0`, :math:`s = 1`: the numbers as they are."""
    return np.zeros(values.shape[1]), np.ones(values.shape[1])


#: How each column is scaled before windows are cut: build(values (N, p)) -> offset, scale.
#: The labels are what the page shows and writes into its links.
SERIES_SCALINGS = {
    "zscore": Option("z-score", "Mean 0 and standard deviation 1 per column.", zscore_scaling),
    "minmax": Option("min-max", "Values between 0 and 1 per column.", minmax_scaling),
    "none": Option("none", "The numbers as they are in the file.", no_scaling),
}


def identity(z: np.ndarray) -> np.ndarray:
    """:math:`z`, unchanged."""
    return z


#: The embedding's activation g in g(XW + b): each choice once, with its function.
FEATURE_ACTIVATIONS = {
    "relu": Option("ReLU", "Negative values become 0.", relu),
    "tanh": Option("tanh", "Squashed into (-1, 1).", np.tanh),
    "identity": Option("identity", "No activation: a plain linear map.", identity),
    "gelu": Option("GELU", "A smooth ReLU (tanh form, as in GPT-2).", gelu_tanh),
}
