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

:class:`Bert` puts all-MiniLM-L6-v2 behind the contract every family shares
(:class:`~attention_core.pretrained.trace.Model`). Nothing is computed twice: the weights
are :func:`loading.load_weights`' (SHA-256 checked, so only the official all-MiniLM-L6-v2
loads as BERT), the pass is :func:`forward`, and the tokens are :func:`loading.encode`'s.
A single text is sentence A (type ids 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.maths import attention
from attention_core.maths.attention import output_projection
from attention_core.maths.layers import gelu, layer_norm
from attention_core.pretrained import config as settings
from attention_core.pretrained import decoder, loading
from attention_core.pretrained.loading import BertWeights, LayerWeights, WordPiece
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTrace, Tokens, per_head


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


def _block(layer: LayerTrace, weights: loading.LayerWeights) -> BlockTrace:
    """One encoder layer in the shared names (no RoPE: before = after rotation)."""
    attention_output = output_projection(layer.heads.context, weights.projections())  # (T, d)
    return BlockTrace(
        x=layer.x,
        attention_input=layer.x,  # post-LayerNorm: attention reads the layer input itself
        q=layer.q,
        k=layer.k,
        q_rotated=layer.q,
        k_rotated=layer.k,
        angles=None,
        v=layer.v,
        heads=layer.heads,
        attention_output=attention_output,
        output=layer.output,
    )


@dataclass(frozen=True)
class Bert:
    """The encoder's weights and facts, in the three steps every family has (sentence A only)."""

    info: ModelInfo
    weights: BertWeights

    @property
    def layers(self) -> tuple[loading.LayerWeights, ...]:
        return self.weights.layers

    def embed(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`embed` of sentence A, and the word and position rows it adds up."""
        x = embed(self.weights, ids, np.zeros_like(ids))  # (T, d)
        return x, self.weights.word[ids], self.weights.position[: len(ids)]

    def block(
        self, x: np.ndarray, layer: loading.LayerWeights, mask: np.ndarray | None
    ) -> BlockTrace:
        """:func:`encoder_layer` (``mask`` is None: an encoder attends everywhere)."""
        return _block(encoder_layer(x, layer, self.info.n_heads, self.weights.eps), layer)

    def finish(self, x: np.ndarray) -> tuple[np.ndarray, None]:
        """The last layer's output is the hidden state; there is no next-token head."""
        return x, None

    def forward(self, ids: np.ndarray) -> ModelTrace:
        """``(T,) ids -> ModelTrace``: no logits; ``hidden`` is the last layer's output."""
        return decoder.forward(self, ids)


def load(directory: Path, config: settings.Config) -> Bert:
    """The checked all-MiniLM-L6-v2 weights in ``directory`` (any other BERT is refused)."""
    return from_weights(loading.load_weights(directory))


def from_weights(weights: BertWeights) -> Bert:
    """The encoder behind the shared contract, on weights already loaded (not read twice)."""
    d, n_heads = weights.d_model, weights.n_heads
    info = ModelInfo(
        name=loading.MODEL_NAME,
        family="bert",
        model_type="bert",
        n_layers=weights.n_layers,
        n_heads=n_heads,
        n_kv_heads=n_heads,
        d_model=d,
        d_head=d // n_heads,
        vocab_size=weights.word.shape[0],
        max_positions=weights.position.shape[0],
        causal=False,
        positions="absolute",
        rotary_base=None,
    )
    return Bert(info, weights)


def tokenize(tokenizer: WordPiece, text: str) -> Tokens:
    """``[CLS] text [SEP]`` by :func:`loading.encode` (its checks and its cut)."""
    encoded = loading.encode(tokenizer, text)
    return Tokens(encoded.ids, encoded.tokens, encoded.labels, encoded.cut)
