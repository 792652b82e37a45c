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
from attention_core.pretrained import bert, loading
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
    """The encoder's weights and facts; ``forward`` is :func:`bert.forward` on sentence A."""

    info: ModelInfo
    weights: BertWeights

    def forward(self, ids: np.ndarray) -> ModelTrace:
        """``(T,) ids -> ModelTrace``: no logits; ``hidden`` is the last layer's output."""
        traced = bert.forward(self.weights, ids, np.zeros_like(ids))
        blocks = tuple(map(_block, traced.layers, self.weights.layers))
        token_rows = self.weights.word[ids]  # (T, d)
        position_rows = self.weights.position[: len(ids)]  # (T, d)
        return ModelTrace(blocks, traced.last_hidden_state, None, token_rows, position_rows)


def load(directory: Path, config: settings.Config) -> Bert:
    """The checked all-MiniLM-L6-v2 weights in ``directory`` (any other BERT is refused)."""
    weights = loading.load_weights(directory)
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
