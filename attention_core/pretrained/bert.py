r"""The forward pass of a BERT encoder in NumPy.

Its attention is :mod:`attention_core.maths.attention`.

.. math::
    X_0 = \mathrm{LN}(E_{\text{word}} + E_{\text{pos}} + E_{\text{type}}) \qquad
    Y = \mathrm{LN}(X + \mathrm{Attn}(X)) \qquad
    X_{l+1} = \mathrm{LN}(Y + \mathrm{GELU}(Y W_1 + b_1) W_2 + b_2)

``T`` tokens, ``d`` model width (384), ``H`` heads (12) of width ``d/H`` (32).
Attention is :func:`attention.multi_head_attention`, exactly as on the other
pages, with BERT's biased projections (:meth:`LayerWeights.projections`). No
mask: one unpadded input attends everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

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


@dataclass(frozen=True)
class LayerTrace:
    """One encoder layer: its input, one self-attention trace for all heads, its output."""

    x: np.ndarray  #: (T, d) the layer's input
    q: np.ndarray  #: (H, T, dk)
    k: np.ndarray  #: (H, T, dk)
    v: np.ndarray  #: (H, T, dk)
    heads: attention.AttentionTrace  #: scores, scaled, weights (H, T, T), context (H, T, dk)
    output: np.ndarray  #: (T, d) the next layer's input


def self_attention(x: np.ndarray, layer: LayerWeights, n_heads: int) -> attention.MultiHeadTrace:
    r""":math:`\mathrm{softmax}(Q_h K_h^\top / \sqrt{d_k})\, V_h` per head, then :math:`[C]\,
    W^O + b^O`; ``(T, d) -> (T, d)``.
    """
    scale = 1.0 / math.sqrt(layer.w_q.shape[1] // n_heads)  # 1 / sqrt(d_k)
    return attention.multi_head_attention(x, x, layer.projections(), n_heads, scale)


def per_head(trace: attention.MultiHeadTrace) -> attention.AttentionTrace:
    """The heads' own arrays (scores ... context) of ``trace``, without concat and output.

    Only these are drawn, and the page's trace cache counts every byte a trace keeps.
    """
    kept = {field.name: getattr(trace, field.name) for field in fields(attention.AttentionTrace)}
    return attention.AttentionTrace(**kept)


def encoder_layer(x: np.ndarray, layer: LayerWeights, n_heads: int, eps: float) -> LayerTrace:
    r""":math:`Y = \mathrm{LN}(X + \mathrm{Attn}(X))`,
    :math:`X' = \mathrm{LN}(Y + \mathrm{FFN}(Y))`.
    """
    attended = self_attention(x, layer, n_heads)
    y = layer_norm(x + attended.output, layer.ln1_gain, layer.ln1_bias, eps)  # (T, d)
    # layers.mlp's terms, summed as (Y + h W_2) + b_2: mlp() adds Y last, which moves float32
    # results by up to ~3e-6 (as far from PyTorch as now); the page's numbers stay as they were.
    hidden = gelu(y @ layer.w_in + layer.b_in)  # (T, d_ff)
    output = layer_norm(y + hidden @ layer.w_out + layer.b_out, layer.ln2_gain, layer.ln2_bias, eps)
    return LayerTrace(x, attended.q, attended.k, attended.v, per_head(attended), output)


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
