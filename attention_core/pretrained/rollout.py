r"""Attention rollout (Abnar & Zuidema, 2020): how much each input token feeds each position.

Each layer's heads are averaged, the residual connection is added as the
identity and rows renormalised, :math:`\hat A_l = \tfrac12 (\bar A_l + I)`; the
layers are then chained, :math:`R_l = \hat A_l \hat A_{l-1} \cdots \hat A_1`.
Row ``i`` of :math:`R_l` spreads token ``i`` at layer ``l`` over the input tokens.
"""

from __future__ import annotations

import numpy as np


def residual_attention(weights: np.ndarray) -> np.ndarray:
    r""":math:`\hat A = \tfrac12(\mathrm{mean}_h A_h + I)`, rows summing to 1: ``(H, T,
    T) -> (T, T)``.
    """
    mixed = 0.5 * weights.mean(axis=0) + 0.5 * np.eye(weights.shape[-1])
    return mixed / mixed.sum(axis=-1, keepdims=True)


def attention_rollout(weights: np.ndarray) -> np.ndarray:
    r""":math:`R_l = \hat A_l R_{l-1}`, :math:`R_0 = I`, for every layer: ``(L, H, T,
    T) -> (L, T, T)``.
    """
    rolled = np.eye(weights.shape[-1])
    layers = []
    for layer_weights in weights:
        rolled = residual_attention(layer_weights) @ rolled
        layers.append(rolled)
    return np.stack(layers)
