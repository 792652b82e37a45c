"""all-MiniLM-L6-v2 behind the shared contract: :mod:`bert`'s forward pass as a :class:`ModelTrace`.

Nothing is computed twice: the weights are :func:`loading.load_weights`' (SHA-256
checked, so only the official all-MiniLM-L6-v2 loads as BERT), the pass is
:func:`bert.forward`, and the tokens are :func:`loading.encode`'s. A single text is
sentence A (type ids 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.maths.attention import output_projection
from attention_core.pretrained import bert, decoder, loading
from attention_core.pretrained import config as settings
from attention_core.pretrained.loading import BertWeights, WordPiece
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTrace, Tokens


def _block(layer: bert.LayerTrace, weights: loading.LayerWeights) -> BlockTrace:
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
        """:func:`bert.embed` of sentence A, and the word and position rows it adds up."""
        x = bert.embed(self.weights, ids, np.zeros_like(ids))  # (T, d)
        return x, self.weights.word[ids], self.weights.position[: len(ids)]

    def block(
        self, x: np.ndarray, layer: loading.LayerWeights, mask: np.ndarray | None
    ) -> BlockTrace:
        """:func:`bert.encoder_layer` (``mask`` is None: an encoder attends everywhere)."""
        return _block(bert.encoder_layer(x, layer, self.info.n_heads, self.weights.eps), layer)

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
