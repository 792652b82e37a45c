"""The time-series page's own choices: how columns are scaled, how a day is embedded.

Each is a :class:`~attention_core.boundary.registry.Registry` of options (label,
help, builder, formula, plain words), read by the page's widgets and by the core
(:mod:`attention_core.timeseries.windows` scales, :mod:`~attention_core.timeseries.embedding`
embeds). They live in the time-series domain, not in :mod:`attention_core.boundary.options`:
they are the series' own choices (its columns, its day embedding), which no attention config
and no other page holds.
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.registry import Option, Registry
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
#: The option labels are what the page shows and writes into its links.
SERIES_SCALINGS = Registry(
    "scaling", "Scaling of each column", "How each column is scaled before windows are cut."
)
SERIES_SCALINGS.register(
    "zscore",
    Option(
        "z-score",
        "Mean 0 and standard deviation 1 per column.",
        zscore_scaling,
        formula=r"z = \frac{x - \bar x}{\mathrm{std}(x)}",
        words="Each column is shifted by its mean and divided by its standard deviation. "
        "Columns of very different sizes then weigh alike in the embedding.",
    ),
)
SERIES_SCALINGS.register(
    "minmax",
    Option(
        "min-max",
        "Values between 0 and 1 per column.",
        minmax_scaling,
        formula=r"z = \frac{x - \min x}{\max x - \min x}",
        words="Each column is shifted by its smallest value and divided by its range, so it "
        "runs from 0 to 1. One extreme value squeezes all the others together.",
    ),
)
SERIES_SCALINGS.register(
    "none",
    Option(
        "none",
        "The numbers as they are in the file.",
        no_scaling,
        formula=r"z = x",
        words="The numbers go into the model as they are in the file. A column of large "
        "numbers then dominates the embedding.",
    ),
)


def identity(z: np.ndarray) -> np.ndarray:
    """:math:`z`, unchanged."""
    return z


#: The embedding's activation g in g(XW + b): each choice once, with its function.
FEATURE_ACTIVATIONS = Registry(
    "activation",
    "Embedding activation g in g(XW)",
    "The function applied to each day's embedding.",
)
FEATURE_ACTIVATIONS.register(
    "relu",
    Option(
        "ReLU",
        "Negative values become 0.",
        relu,
        formula=r"g(z) = \max(0, z)",
        words="Negative values become 0, positive values pass unchanged. Each embedding "
        "feature then only reports how strongly something is present.",
    ),
)
FEATURE_ACTIVATIONS.register(
    "tanh",
    Option(
        "tanh",
        "Squashed into (-1, 1).",
        np.tanh,
        formula=r"g(z) = \tanh z",
        words="Every value is squashed into the range from −1 to 1. Small values pass almost "
        "unchanged, large ones level off.",
    ),
)
FEATURE_ACTIVATIONS.register(
    "identity",
    Option(
        "identity",
        "No activation: a plain linear map.",
        identity,
        formula=r"g(z) = z",
        words="No activation: the embedding is a plain linear map of the day's numbers. "
        "Attention then mixes linear features only.",
    ),
)
FEATURE_ACTIVATIONS.register(
    "gelu",
    Option(
        "GELU",
        "A smooth ReLU (tanh form, as in GPT-2).",
        gelu_tanh,
        formula=r"g(z) = \tfrac{z}{2}\big(1 + \tanh\big(\sqrt{2/\pi}\,(z + 0.044715 z^3)\big)\big)",
        words="A smooth ReLU: large negative values become 0 and large positive ones pass, "
        "with a soft bend in between. This is the tanh form GPT-2 uses.",
    ),
)
