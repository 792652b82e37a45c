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
from attention_core.maths.ablation import Ablation
from attention_core.maths.layers import gelu, layer_norm
from attention_core.pretrained import config as settings
from attention_core.pretrained import decoder, loading
from attention_core.pretrained.loading import BertWeights, LayerWeights, WordPiece
from attention_core.pretrained.trace import (
    Attended,
    BlockTrace,
    ModelInfo,
    ModelTokens,
    ModelTrace,
    block_trace,
)


def embed(weights: BertWeights, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    r""":math:`X_0 = \mathrm{LN}(E_{\text{word}}[t] + E_{\text{pos}}[p] + E_{\text{type}}[s])`.

    Token ids, positions and sentence ids ``(T,)`` pick rows of three tables: ``(T, d)``.
    """
    summed = embedding_sum(weights, ids, type_ids)  # (T, d)
    return layer_norm(summed, weights.ln_gain, weights.ln_bias, weights.eps)


def embedding_sum(weights: BertWeights, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    r""":math:`E_{\text{word}}[t] + E_{\text{pos}}[p] + E_{\text{type}}[s]`, ``(T,) -> (T, d)``."""
    positions = np.arange(len(ids))
    return weights.word[ids] + weights.position[positions] + weights.token_type[type_ids]


def self_attention(
    x: np.ndarray,
    layer: LayerWeights,
    n_heads: int,
    ablation: Ablation | None = None,
    layer_index: int = 0,
) -> attention.MultiHeadTrace:
    r""":math:`\mathrm{softmax}(Q_h K_h^\top / \sqrt{d_k})\, V_h` per head, then :math:`[C]\,
    W^O + b^O`; ``(T, d) -> (T, d)``; the heads ``ablation`` names in layer ``layer_index`` off.
    """
    scale = 1.0 / math.sqrt(layer.w_q.shape[1] // n_heads)  # 1 / sqrt(d_k)
    return attention.multi_head_attention(
        x, x, layer.projections(), n_heads, scale, ablation=ablation, layer_index=layer_index
    )


def encoder_layer(
    x: np.ndarray,
    layer: LayerWeights,
    n_heads: int,
    eps: float,
    ablation: Ablation | None = None,
    layer_index: int = 0,
) -> BlockTrace:
    r""":math:`Y = \mathrm{LN}(X + \mathrm{Attn}(X))`,
    :math:`X' = \mathrm{LN}(Y + \mathrm{FFN}(Y))`; ``(T, d) -> (T, d)``, every step kept.

    In the names every family shares: post-LayerNorm, so ``attention_input`` is ``x`` itself;
    no RoPE, so ``q_rotated is q`` and ``k_rotated is k``; ``attention_output`` is
    :math:`[C_1 \cdots C_H] W^O + b^O`.
    """
    attended = self_attention(x, layer, n_heads, ablation, layer_index)
    y = layer_norm(x + attended.output, layer.ln1_gain, layer.ln1_bias, eps)  # (T, d)
    # layers.mlp's terms, summed as (Y + h W_2) + b_2: mlp() adds Y last, which moves float32
    # results by up to ~3e-6 (as far from PyTorch as now); the page's numbers stay as they were.
    summed = y + projected_ffn(y, layer) + layer.b_out  # (T, d)
    output = layer_norm(summed, layer.ln2_gain, layer.ln2_bias, eps)
    return block_trace(x, Attended(x, attended), output)  # attention reads x itself


def projected_ffn(y: np.ndarray, layer: LayerWeights) -> np.ndarray:
    r""":math:`\mathrm{GELU}(Y W_1 + b_1)\, W_2`: the feed-forward output before its bias
    :math:`b_2`, ``(T, d) -> (T, d)`` (added in that order by :func:`encoder_layer`)."""
    return gelu(y @ layer.w_in + layer.b_in) @ layer.w_out  # (T, d_ff) -> (T, d)


@dataclass(frozen=True)
class Bert:
    """The encoder's weights and facts, in the three steps every family has."""

    info: ModelInfo
    weights: BertWeights

    @property
    def layers(self) -> tuple[LayerWeights, ...]:
        return self.weights.layers

    def embed(
        self, ids: np.ndarray, type_ids: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`embed` of ``ids (T,)`` in sentences ``type_ids (T,)`` (None: all sentence A),
        and the word and position rows it adds up, each ``(T, d)``."""
        sentences = np.zeros_like(ids) if type_ids is None else type_ids
        x = embed(self.weights, ids, sentences)  # (T, d)
        return x, self.weights.word[ids], self.weights.position[: len(ids)]

    def attend(
        self, x: np.ndarray, layer: LayerWeights, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> Attended:  # fmt: skip
        """:func:`self_attention` of the layer's input ``x (T, d)`` itself (post-LayerNorm)."""
        return Attended(x, self_attention(x, layer, self.info.n_heads, ablation, layer_index))

    def block(
        self, x: np.ndarray, layer: LayerWeights, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> BlockTrace:  # fmt: skip
        """:func:`encoder_layer` (``mask`` is None: an encoder attends everywhere)."""
        return encoder_layer(x, layer, self.info.n_heads, self.weights.eps, ablation, layer_index)

    def finish(self, x: np.ndarray) -> tuple[np.ndarray, None]:
        """The last layer's output is the hidden state; there is no next-token head."""
        return x, None

    def forward(
        self,
        ids: np.ndarray,
        type_ids: np.ndarray | None = None,
        ablation: Ablation | None = None,
    ) -> ModelTrace:
        """``(T,) ids`` (and sentence ids) ``-> ModelTrace``: no logits;
        ``last_hidden_state`` is the last layer's output; ``ablation``: heads turned off."""
        return decoder.forward(self, ids, type_ids, ablation)


def forward(
    weights: BertWeights,
    ids: np.ndarray,
    type_ids: np.ndarray,
    ablation: Ablation | None = None,
) -> ModelTrace:
    """Embeddings, then every encoder layer in turn: ``(T,) ids, (T,) sentence ids ->
    ModelTrace``; ``ablation``: heads turned off, None: all on."""
    return from_weights(weights).forward(ids, type_ids, ablation)


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


def tokenize(tokenizer: WordPiece, text: str) -> ModelTokens:
    """``[CLS] text [SEP]`` by :func:`loading.encode` (its checks and its cut)."""
    encoded = loading.encode(tokenizer, text)
    return ModelTokens(encoded.ids, encoded.tokens, encoded.labels, encoded.cut)
