r"""The forward pass of a BERT encoder in NumPy.

Its attention is :mod:`attention_core.maths.attention`.

.. math::
    X_0 = \mathrm{LN}(E_{\text{word}} + E_{\text{pos}} + E_{\text{type}}) \qquad
    Y = \mathrm{LN}(X + \mathrm{Attn}(X)) \qquad
    X_{l+1} = \mathrm{LN}(Y + \mathrm{GELU}(Y W_1 + b_1) W_2 + b_2)

``T`` tokens, ``d`` model width (384), ``H`` heads (12) of width ``d/H`` (32).
BERT's projections have biases, which :func:`attention.project` does not: Q, K
and V are ``x @ w + b`` here, split by :func:`attention.split_heads`; then
:func:`attention.scaled_dot_product_attention` does the rest, exactly as on the
other pages. No mask: one unpadded input attends everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.maths import attention
from attention_core.maths.layers import gelu, layer_norm
from attention_core.pretrained.loading import BertWeights, LayerWeights


def embed(weights: BertWeights, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    r""":math:`X_0 = \mathrm{LN}(E_{\text{word}}[t] + E_{\text{pos}}[p] + E_{\text{type}}[s])`.

    Token ids, positions and sentence ids ``(T,)`` pick rows of three tables: ``(T, d)``.
    """
    positions = np.arange(len(ids))
    summed = weights.word[ids] + weights.position[positions] + weights.token_type[type_ids]
    return layer_norm(summed, weights.ln_gain, weights.ln_bias, weights.eps)


def project_with_bias(x: np.ndarray, w: np.ndarray, b: np.ndarray, n_heads: int) -> np.ndarray:
    r""":math:`Q = X W^Q + b^Q` (or K, V), split by head: ``(T, d) -> (H, T, d/H)``."""
    return attention.split_heads(x @ w + b, n_heads)  # (T, d) -> (H, T, d/H)


@dataclass(frozen=True)
class LayerTrace:
    """One encoder layer: its input, one self-attention trace for all heads, its output."""

    x: np.ndarray  #: (T, d) the layer's input
    q: np.ndarray  #: (H, T, dk)
    k: np.ndarray  #: (H, T, dk)
    v: np.ndarray  #: (H, T, dk)
    heads: attention.AttentionTrace  #: scores, scaled, weights (H, T, T), context (H, T, dk)
    output: np.ndarray  #: (T, d) the next layer's input


def self_attention(x: np.ndarray, layer: LayerWeights, n_heads: int):
    r""":math:`\mathrm{softmax}(Q_h K_h^\top / \sqrt{d_k})\, V_h` per head, then :math:`[C]\,
    W^O + b^O`.
    """
    q = project_with_bias(x, layer.w_q, layer.b_q, n_heads)  # (H, T, dk)
    k = project_with_bias(x, layer.w_k, layer.b_k, n_heads)
    v = project_with_bias(x, layer.w_v, layer.b_v, n_heads)
    scale = 1.0 / math.sqrt(q.shape[-1])
    heads = attention.scaled_dot_product_attention(q, k, v, scale)  # (H, T, ·)
    output = attention.merge_heads(heads.context) @ layer.w_o + layer.b_o  # (T, d)
    return q, k, v, heads, output


def encoder_layer(x: np.ndarray, layer: LayerWeights, n_heads: int, eps: float) -> LayerTrace:
    r""":math:`Y = \mathrm{LN}(X + \mathrm{Attn}(X))`,
    :math:`X' = \mathrm{LN}(Y + \mathrm{FFN}(Y))`.
    """
    q, k, v, heads, attended = self_attention(x, layer, n_heads)
    y = layer_norm(x + attended, layer.ln1_gain, layer.ln1_bias, eps)  # (T, d)
    # layers.mlp's terms, summed as (Y + h W_2) + b_2: mlp() adds Y last, which moves float32
    # results by up to ~3e-6 (as far from PyTorch as now); the page's numbers stay as they were.
    hidden = gelu(y @ layer.w_in + layer.b_in)  # (T, d_ff)
    output = layer_norm(y + hidden @ layer.w_out + layer.b_out, layer.ln2_gain, layer.ln2_bias, eps)
    return LayerTrace(x, q, k, v, heads, output)


@dataclass(frozen=True)
class BertTrace:
    """Every layer of one forward pass; ``weights`` stacks their attention ``(L, H, T, T)``."""

    layers: tuple[LayerTrace, ...]

    @property
    def weights(self) -> np.ndarray:
        return np.stack([layer.heads.weights for layer in self.layers])  # (L, H, T, T)

    @property
    def nbytes(self) -> int:
        """Bytes held by the trace's arrays (each array counted once)."""
        arrays = {
            id(a): a
            for layer in self.layers
            for a in (*vars(layer).values(), *vars(layer.heads).values())
            if isinstance(a, np.ndarray)
        }
        return sum(array.nbytes for array in arrays.values())

    @property
    def last_hidden_state(self) -> np.ndarray:
        return self.layers[-1].output  # (T, d)


def forward(weights: BertWeights, ids: np.ndarray, type_ids: np.ndarray) -> BertTrace:
    """Embeddings, then every encoder layer in turn: ``(T,) ids -> BertTrace``."""
    x = embed(weights, ids, type_ids)  # (T, d)
    layers = []
    for layer in weights.layers:
        trace = encoder_layer(x, layer, weights.n_heads, weights.eps)
        layers.append(trace)
        x = trace.output
    return BertTrace(tuple(layers))
