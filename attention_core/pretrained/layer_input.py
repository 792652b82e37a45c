r"""Where a layer's input X comes from, per family, with the numbers the forward pass summed.

Layer 1's input is the embeddings (:func:`embedded`, ``(T, d)`` each part):

.. math::
    \text{GPT-2: } X_0 = E_{\text{tok}}[t] + E_{\text{pos}}[p] \qquad
    \text{Llama: } X_0 = E_{\text{tok}}[t] \qquad
    \text{BERT: } X_0 = \mathrm{LN}(E_{\text{word}}[t] + E_{\text{pos}}[p] + E_{\text{type}}[s])

A later layer's input is the previous layer's output (:func:`residual`), from that layer's
input :math:`X`, its attention output :math:`A` (``BlockTrace.attention_output``) and its
feed-forward output :math:`M`:

.. math::
    \text{decoders: } X' = (X + A) + M,\; M = \mathrm{MLP}(\mathrm{Norm}_2(X + A)) \qquad
    \text{BERT: } X' = \mathrm{LN}_2(Y + M),\; Y = \mathrm{LN}_1(X + A),\; M = \mathrm{FFN}(Y)

The trace keeps :math:`X` and :math:`A` but not :math:`M`: it is recomputed here by the
family's own feed-forward half (``GPT2.feed_forward``, ``Llama.feed_forward``,
:func:`attention_core.pretrained.bert.projected_ffn`), the one its forward pass runs (the
tests check that the parts sum to the next layer's input).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from attention_core.boundary.registry import Table
from attention_core.maths.layers import layer_norm
from attention_core.pretrained.bert import Bert, embedding_sum, projected_ffn
from attention_core.pretrained.gpt2 import GPT2
from attention_core.pretrained.llama import Llama
from attention_core.pretrained.projection_weights import Norm
from attention_core.pretrained.trace import BlockTrace, Model


class TablePart(NamedTuple):
    """One embedding added into layer 1's input: each token's row of one table."""

    name: str  #: "token embedding"
    table: str  #: "token table"
    rows: tuple[str, ...]  #: (T,) which row each token took: "id 1234", "position 0"
    values: np.ndarray  #: (T, d) the rows


@dataclass(frozen=True)
class Embedded:
    """Layer 1's input: ``parts`` summed in order into ``summed (T, d)``, then ``norm`` (BERT's
    LayerNorm; None: the sum is the input). ``note``: what the family leaves out, in words."""

    parts: tuple[TablePart, ...]
    summed: np.ndarray
    norm: Norm | None
    note: str = ""


@dataclass(frozen=True)
class Residual:
    """The next layer's input from one layer's parts, each ``(T, d)``: ``summed = after +
    mlp`` as the family adds them, then ``norm`` (BERT's LN_2; None: ``summed`` is it)."""

    x: np.ndarray  #: the layer's input X
    attention: np.ndarray  #: A, its attention output (heads mixed by W^O)
    after: np.ndarray  #: X + A (decoders), Y = LN_1(X + A) (BERT)
    mlp: np.ndarray  #: M, the feed-forward output
    summed: np.ndarray  #: after + M
    norm: Norm | None


@dataclass(frozen=True)
class FamilyInputs:
    """How one family makes a layer's input: ``embedded(model, ids, type_ids)`` layer 1's,
    ``residual(model, layer, steps)`` the next one's from layer ``layer``'s ``steps``."""

    embedded: Callable[[Any, np.ndarray, np.ndarray | None], Embedded]
    residual: Callable[[Any, int, BlockTrace], Residual]


#: Each family's input makers, by ``ModelInfo.family``.
FAMILY_INPUTS: Table[FamilyInputs] = Table("model family")

ROPE_NOTE = "No position is added: RoPE turns each query and key by its position instead."


def embedded(model: Model, ids: np.ndarray, type_ids: np.ndarray | None = None) -> Embedded:
    """Layer 1's input for ``ids (T,)`` (and a sentence pair's ``type_ids``) as its parts."""
    return FAMILY_INPUTS[model.info.family].embedded(model, ids, type_ids)


def residual(model: Model, layer: int, steps: BlockTrace) -> Residual:
    """Layer ``layer + 1``'s input as the parts layer ``layer`` (0-based, ``steps``) added."""
    return FAMILY_INPUTS[model.info.family].residual(model, layer, steps)


def token_rows(ids: np.ndarray) -> tuple[str, ...]:
    """Which row of the token table each token took."""
    return tuple(f"id {int(i)}" for i in ids)


def positions(length: int) -> tuple[str, ...]:
    """Rows ``0 … T-1`` of a position table, one per position."""
    return tuple(f"position {p}" for p in range(length))


def gpt2_embedded(model: GPT2, ids: np.ndarray, type_ids: np.ndarray | None) -> Embedded:
    r""":math:`X_0 = E_{\text{tok}}[t] + E_{\text{pos}}[p]`, as ``GPT2.embed`` sums it."""
    summed, tokens, places = model.embed(ids, type_ids)
    token = TablePart("token embedding", "token table", token_rows(ids), tokens)
    position = TablePart("position embedding", "position table", positions(len(ids)), places)
    return Embedded((token, position), summed, None)


def llama_embedded(model: Llama, ids: np.ndarray, type_ids: np.ndarray | None) -> Embedded:
    r""":math:`X_0 = E_{\text{tok}}[t]` (``Llama.embed``): no position table."""
    summed = model.embed(ids, type_ids)[0]
    token = TablePart("token embedding", "token table", token_rows(ids), summed)
    return Embedded((token,), summed, None, ROPE_NOTE)


def bert_embedded(model: Bert, ids: np.ndarray, type_ids: np.ndarray | None) -> Embedded:
    r""":math:`\mathrm{LN}(E_{\text{word}}[t] + E_{\text{pos}}[p] + E_{\text{type}}[s])`,
    summed by :func:`attention_core.pretrained.bert.embedding_sum`."""
    weights = model.weights
    sentences = np.zeros_like(ids) if type_ids is None else type_ids
    names = tuple(f"sentence {'AB'[int(s)]}" for s in sentences)
    parts = (
        TablePart("word embedding", "word table", token_rows(ids), weights.word[ids]),
        TablePart("position embedding", "position table", positions(len(ids)),
                  weights.position[: len(ids)]),
        TablePart("sentence embedding", "sentence table", names, weights.token_type[sentences]),
    )  # fmt: skip
    summed = embedding_sum(weights, ids, sentences)  # (T, d)
    norm = Norm("LayerNorm", weights.ln_gain, weights.ln_bias, weights.eps)
    return Embedded(parts, summed, norm)


def gpt2_residual(model: GPT2, layer: int, steps: BlockTrace) -> Residual:
    r""":math:`X' = Y + \mathrm{MLP}(\mathrm{LN}_2 Y)`, :math:`Y = X + A` (``GPT2.block``)."""
    after = steps.x + steps.attention_output  # (T, d)
    added = model.feed_forward(after, model.layers[layer])  # (T, d)
    return Residual(steps.x, steps.attention_output, after, added, after + added, None)


def llama_residual(model: Llama, layer: int, steps: BlockTrace) -> Residual:
    r""":math:`X' = Y + \mathrm{SwiGLU}(\mathrm{RMSNorm}_2 Y)`, :math:`Y = X + A`
    (``Llama.block``)."""
    after = steps.x + steps.attention_output  # (T, d)
    added = model.feed_forward(after, model.layers[layer])  # (T, d)
    return Residual(steps.x, steps.attention_output, after, added, after + added, None)


def bert_residual(model: Bert, layer: int, steps: BlockTrace) -> Residual:
    r""":math:`X' = \mathrm{LN}_2(Y + \mathrm{FFN}(Y))`, :math:`Y = \mathrm{LN}_1(X + A)`,
    summed as :func:`attention_core.pretrained.bert.encoder_layer` sums it."""
    block, eps = model.layers[layer], model.weights.eps
    after = layer_norm(steps.x + steps.attention_output, block.ln1_gain, block.ln1_bias, eps)
    projected = projected_ffn(after, block)  # (T, d)
    summed = after + projected + block.b_out  # (T, d), in encoder_layer's order
    norm = Norm("LayerNorm", block.ln2_gain, block.ln2_bias, eps)
    return Residual(steps.x, steps.attention_output, after, projected + block.b_out, summed, norm)


FAMILY_INPUTS.register("gpt2", FamilyInputs(gpt2_embedded, gpt2_residual))
FAMILY_INPUTS.register("llama", FamilyInputs(llama_embedded, llama_residual))
FAMILY_INPUTS.register("bert", FamilyInputs(bert_embedded, bert_residual))
