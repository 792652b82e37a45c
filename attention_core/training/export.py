r"""Trained torch parameters as NumPy arrays for the core, and back: the one home of the transposes.

The core multiplies from the right, :math:`y = x W + b` with ``W (d_in, d_out)``;
``nn.Linear`` stores ``weight (d_out, d_in)`` and computes ``x @ weight.T + bias``.
So a Linear's matrix is :math:`W = \mathrm{weight}^\top` (:func:`as_matrix`), and
loading ``W`` back stores :math:`W^\top` (:func:`load_matrix`). Exported arrays
are read-only copies, safe to share between sessions.

Needs PyTorch; imported only by the models that train.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from attention_core.boundary.arrays import read_only
from attention_core.training.attention import MultiHeadAttention


def as_array(parameter: torch.Tensor) -> np.ndarray:
    """A parameter or tensor as a read-only NumPy copy, same shape and dtype."""
    return read_only(parameter.detach().cpu().numpy())


def as_matrix(linear: nn.Linear) -> np.ndarray:
    """``W = weight.T (d_in, d_out)``, read-only: ``x @ W + bias`` is ``linear(x)``."""
    return as_array(linear.weight.T)


def attention_matrices(attention: MultiHeadAttention) -> dict[str, np.ndarray]:
    """``w_q, w_k, w_v (d, H*d_k)`` and ``w_o (H*d_v, d)``, as the core's attention takes them.

    Head h of ``x @ w_q`` is columns ``h*d_k:(h+1)*d_k``, the same split on both sides.
    """
    return {
        "w_q": as_matrix(attention.query),
        "w_k": as_matrix(attention.key),
        "w_v": as_matrix(attention.value),
        "w_o": as_matrix(attention.output),
    }


def load_array(parameter: torch.Tensor, array: np.ndarray) -> None:
    """Overwrite ``parameter`` with ``array`` (same shape), as float32."""
    parameter.data.copy_(torch.from_numpy(np.array(array, dtype=np.float32)))


def load_matrix(linear: nn.Linear, matrix: np.ndarray) -> None:
    """The inverse of :func:`as_matrix`: ``weight = matrix.T``."""
    load_array(linear.weight, matrix.T)
