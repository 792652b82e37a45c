r"""The layers around attention that every model shares: norms, activations, the MLP.

.. math::
    \mathrm{LN}(x) = g \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + b \qquad
    \mathrm{MLP}(x) = f(x W_{in} + b_{in})\, W_{out} + b_{out}

``T`` rows (tokens or time steps) of width ``d``; the MLP's hidden width is
``d_ff``. Each function is written once and composed by every forward pass
(BERT, the learning page's tiny transformer, the time-series embedding).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: An elementwise activation ``(..., n) -> (..., n)``: :func:`relu`, :func:`gelu`, ...
Activation = Callable[[np.ndarray], np.ndarray]


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    r""":math:`\mathrm{LN}(x) = g \odot (x - \mu) / \sqrt{\sigma^2 + \epsilon} + b`,
    per row ``(T, d)``.
    """
    mean = x.mean(axis=-1, keepdims=True)  # (T, 1)
    variance = np.square(x - mean).mean(axis=-1, keepdims=True)  # (T, 1)
    return (x - mean) / np.sqrt(variance + eps) * gain + bias


def erf(x: np.ndarray) -> np.ndarray:
    r"""The error function to ~1e-7 without SciPy (Abramowitz & Stegun 7.1.26)."""
    sign = np.sign(x)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-z * z))


def gelu(x: np.ndarray) -> np.ndarray:
    r"""Exact GELU, :math:`x \, \Phi(x) = \tfrac{x}{2}\,(1 + \mathrm{erf}(x/\sqrt 2))`."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    r"""GELU in its tanh form, :math:`\tfrac12 x (1 + \tanh(\sqrt{2/\pi}(x + 0.044715 x^3)))`.

    The same as ``torch.nn.GELU(approximate="tanh")`` (GPT-2's GELU).
    """
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def relu(x: np.ndarray) -> np.ndarray:
    r""":math:`\max(x, 0)`, elementwise."""
    return np.maximum(x, 0.0)


def mlp(
    x: np.ndarray,
    w_in: np.ndarray,
    b_in: np.ndarray,
    w_out: np.ndarray,
    b_out: np.ndarray,
    activation: Activation,
) -> np.ndarray:
    r"""The feed-forward block :math:`f(x W_{in} + b_{in})\, W_{out} + b_{out}`.

    ``x (T, d)``, ``w_in (d, d_ff)``, ``b_in (d_ff,)``, ``w_out (d_ff, d)``,
    ``b_out (d,)`` -> ``(T, d)``; ``activation`` is :math:`f` (:func:`relu`,
    :func:`gelu`, ...).
    """
    hidden = activation(x @ w_in + b_in)  # (T, d_ff)
    return hidden @ w_out + b_out  # (T, d)


def silu(x: np.ndarray) -> np.ndarray:
    r"""SiLU (swish), :math:`x\, \sigma(x) = x / (1 + e^{-x})`, elementwise (Llama's activation).

    :math:`\sigma(x) = \tfrac12 (1 + \tanh(x/2))`: the same number without overflowing
    :math:`e^{-x}` for very negative x.
    """
    return x * (0.5 * (1.0 + np.tanh(0.5 * x)))


def rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    r""":math:`\mathrm{RMSNorm}(x) = g \odot x / \sqrt{\tfrac1d \sum_j x_j^2 + \epsilon}`, per row.

    ``x (T, d)``, ``gain (d,)`` -> ``(T, d)``. LayerNorm without the mean and the
    bias (Zhang & Sennrich 2019), as Llama and Qwen2 use it.
    """
    mean_square = np.square(x).mean(axis=-1, keepdims=True)  # (T, 1)
    return x / np.sqrt(mean_square + eps) * gain


def swiglu(x: np.ndarray, w_gate: np.ndarray, w_up: np.ndarray, w_down: np.ndarray) -> np.ndarray:
    r"""Gated feed-forward :math:`(\mathrm{SiLU}(x W_g) \odot x W_u)\, W_d` (Shazeer 2020).

    ``x (T, d)``, ``w_gate, w_up (d, d_ff)``, ``w_down (d_ff, d)`` -> ``(T, d)``; no biases.
    """
    hidden = silu(x @ w_gate) * (x @ w_up)  # (T, d_ff)
    return hidden @ w_down  # (T, d)
