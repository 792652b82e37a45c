r"""Why a head attends, for a loaded model: its score split into token / position parts.

:mod:`attention_core.pretrained.score_split` does the arithmetic on plain arrays; this
module gives it each family's parts, normalisation and projections for one head:

- **GPT-2**, every layer: the layer's input :math:`x_l` is token + position + rest (what
  the layers before wrote), normalised by the layer's :math:`\mathrm{LN}_1`.
- **BERT**, layer 1 only: its input is :math:`\mathrm{LN}(E_{\text{word}} + E_{\text{pos}}
  + E_{\text{type}})`; the sentence-A embedding, the same for every token, is kept as its
  own part ("segment"). Later BERT layers normalise after every sublayer, so the input is no
  longer a sum of these parts.
- **A sentence pair** (BERT): sentence B's embedding differs from A's, so the segment part is
  no longer the same for every token; the split covers one sentence.
- **Rotary models** (the Llama family) add no position vector to the input: they turn q
  and k, so there is no position part to split off.
"""

from __future__ import annotations

import numpy as np

from attention_core.maths.projections import Projections
from attention_core.pretrained import score_split
from attention_core.pretrained.bert import Bert
from attention_core.pretrained.gpt2 import GPT2
from attention_core.pretrained.slim import SlimTrace
from attention_core.pretrained.tensors import widen
from attention_core.pretrained.trace import Model

Split = dict[tuple[str, str], np.ndarray]

ROTARY = (
    "This model adds no position vector to its input: RoPE turns each query and key by its "
    "position instead (see Every step), so a score has no separate position part to split off."
)
PAIR = "The split covers one sentence: switch the sentence pair off."
BERT_LATER = (
    "For BERT the split is exact in layer 1 only: later layers normalise after every sublayer, "
    "so their input is no longer a sum of token and position parts. Choose layer 1."
)
GPT2_EXACT = (
    "Exact at every layer of GPT-2: the layer's input is the token embedding + the position "
    "embedding + what the earlier layers wrote, and LayerNorm is linear once each token's "
    "spread σ is fixed at its actual value."
)
BERT_EXACT = (
    "Exact in BERT's layer 1: its input is LayerNorm(word + position + sentence-A embedding); "
    "the sentence-A embedding is the same for every token and counts with the biases."
)


def _head(matrix: np.ndarray | None, head: int, n_heads: int) -> np.ndarray | None:
    return None if matrix is None else score_split.head_columns(widen(matrix), head, n_heads)


def _split(
    parts: dict[str, np.ndarray], norm: tuple[np.ndarray, np.ndarray, float],
    projections: Projections, head: int, n_heads: int,
) -> Split:  # fmt: skip
    """``parts`` normalised by ``norm`` = (gain, bias, eps), then one head's projections."""
    return score_split.self_attention_split(
        parts,
        *norm,
        score_split.head_columns(widen(projections.w_q), head, n_heads),
        _head(projections.b_q, head, n_heads),
        score_split.head_columns(widen(projections.w_k), head, n_heads),
        _head(projections.b_k, head, n_heads),
    )


def head_score_split(
    model: Model, trace: SlimTrace, layer: int, head: int
) -> tuple[Split | None, str]:
    """Head ``head`` of layer ``layer``'s raw scores as their parts, and a sentence on where the
    split is exact; ``(None, why not)`` where it does not apply."""
    if trace.type_ids is not None and trace.type_ids.any():
        return None, PAIR
    token, position = trace.token_embeddings, trace.position_embeddings
    if token is None or position is None or not isinstance(model, GPT2 | Bert):
        return None, ROTARY
    n_heads = model.info.n_heads
    if isinstance(model, GPT2):
        parts = score_split.absolute_position_components(trace.inputs[layer], token, position)
        block = model.layers[layer]
        norm = (widen(block.ln1_gain), widen(block.ln1_bias), model.eps)
        return _split(parts, norm, block.projections(), head, n_heads), GPT2_EXACT
    if layer != 0:
        return None, BERT_LATER
    weights = model.weights
    segment = np.broadcast_to(weights.token_type[0], token.shape)  # (T, d) sentence A
    parts = {"token": token, "position": position, "segment": segment}
    norm = (weights.ln_gain, weights.ln_bias, weights.eps)
    return _split(parts, norm, weights.layers[0].projections(), head, n_heads), BERT_EXACT
