r"""What a page keeps of one forward pass: every layer's weights, not every layer's steps.

A whole :class:`~attention_core.pretrained.trace.ModelTrace` keeps, for *every* layer, Q,
K, V (and a rotary model's turned copies), four ``(H, T, T)`` score matrices and the
context: for a 30-layer decoder at 128 tokens, too much to cache per input on a shared
server (benchmarks/decoders.py); a page draws one layer at a time. A :class:`SlimTrace` keeps
what the views draw for every layer, the attention weights ``(L, H, T, T)``, plus each
layer's input ``(L, T, d)`` and the last one's output, from which :func:`layer_steps`
recomputes one layer's every step exactly (the same function on the same input gives the
same numbers; only the layer's attention runs again, its output is the next one's input),
and the logits
reduced to the top guesses and the real next token's rank
(:mod:`attention_core.pretrained.predictions`). Every family's pass is kept this way, the
encoder's too: a sentence pair's ``type_ids`` go into the embeddings, and the kept inputs
already hold them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from attention_core.maths.ablation import Ablation
from attention_core.pretrained import predictions
from attention_core.pretrained.decoder import layer_mask
from attention_core.pretrained.trace import BlockTrace, Model, block_trace


@dataclass(frozen=True)
class SlimTrace:
    """One input's forward pass, slimmed: ``L`` layers, ``H`` heads, ``T`` tokens, width ``d``."""

    ids: np.ndarray  #: (T,) the token ids
    type_ids: np.ndarray | None  #: (T,) a sentence pair's sentence of each token (BERT), or None
    weights: np.ndarray  #: (L, H, T, T) every head's attention weights
    inputs: np.ndarray  #: (L, T, d) every layer's input, to recompute its steps
    final_output: np.ndarray  #: (T, d) the last layer's output (before a decoder's final norm)
    mask: np.ndarray | None  #: (T, T) True = may attend (decoders), None = everywhere
    token_embeddings: np.ndarray | None  #: (T, d) absolute-position models, else None
    position_embeddings: np.ndarray | None  #: (T, d)
    top_ids: np.ndarray | None  #: (T, k) the model's top next-token guesses (decoders)
    top_probs: np.ndarray | None  #: (T, k) their probabilities
    ranks: np.ndarray | None  #: (T-1,) the real next token's rank (1 = first guess)
    rank_probs: np.ndarray | None  #: (T-1,) its probability
    ablation: Ablation | None = None  #: the heads that were off (None: all on)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        values = (getattr(self, field.name) for field in fields(self))
        return sum(value.nbytes for value in values if isinstance(value, np.ndarray))


def slim_forward(
    model: Model,
    ids: np.ndarray,
    type_ids: np.ndarray | None = None,
    ablation: Ablation | None = None,
) -> SlimTrace:
    """The forward pass of checked ``ids (T,)``, one layer held at a time: ``SlimTrace``;
    ``type_ids (T,)``: the sentence of each token of a pair (BERT), None for one text;
    ``ablation``: the heads turned off (checked by the caller), None: all on."""
    x, token_rows, position_rows = model.embed(ids, type_ids)
    info, length = model.info, len(ids)
    # Filled layer by layer: a list of layers stacked at the end would hold both for a moment.
    weights = np.empty((info.n_layers, info.n_heads, length, length), np.float32)
    inputs = np.empty((info.n_layers, length, info.d_model), np.float32)
    return _run_from(
        model, ids, type_ids, ablation, 0, x, weights, inputs, token_rows, position_rows
    )


def first_ablated_layer(ablation: Ablation | None) -> int | None:
    """The lowest layer with a head off (counted from 0); None when every head is on."""
    return min((layer for layer, _ in ablation.heads), default=None) if ablation else None


def forward_from(model: Model, intact: SlimTrace, layer: int, ablation: Ablation) -> SlimTrace:
    r"""``slim_forward(model, intact.ids, intact.type_ids, ablation)``, bit for bit, computing
    only layers ``layer .. L-1``: every layer below ``layer`` has all its heads on, so its
    weights and the residual stream entering ``layer``, :math:`x_\ell` ``(T, d)``, are the intact
    pass's, reused from ``intact`` (an intact pass of the same input)."""
    first = first_ablated_layer(ablation)
    if intact.ablation is not None or (first is not None and first < layer):
        raise ValueError("forward_from reuses an intact pass below the first ablated layer.")
    weights = np.empty_like(intact.weights)  # (L, H, T, T), the first `layer` copied
    inputs = np.empty_like(intact.inputs)  # (L, T, d)
    weights[:layer], inputs[:layer] = intact.weights[:layer], intact.inputs[:layer]
    return _run_from(
        model,
        intact.ids,
        intact.type_ids,
        ablation,
        layer,
        intact.inputs[layer],
        weights,
        inputs,
        intact.token_embeddings,
        intact.position_embeddings,
    )


def ablated_pass(model: Model, intact: SlimTrace, ablation: Ablation | None) -> SlimTrace:
    """The pass of ``intact``'s input with ``ablation``'s heads off, from its first ablated
    layer on (:func:`forward_from`); ``intact`` itself when every head is on."""
    first = first_ablated_layer(ablation)
    if ablation is None or first is None:
        return intact
    return forward_from(model, intact, first, ablation)


def _run_from(
    model: Model,
    ids: np.ndarray,
    type_ids: np.ndarray | None,
    ablation: Ablation | None,
    first: int,
    x: np.ndarray,
    weights: np.ndarray,
    inputs: np.ndarray,
    token_rows: np.ndarray | None,
    position_rows: np.ndarray | None,
) -> SlimTrace:
    """Layers ``first .. L-1`` from their input ``x (T, d)``, filling ``weights (L, H, T, T)``
    and ``inputs (L, T, d)`` from ``first`` on, then the final norm and the predictions."""
    mask = layer_mask(model, len(ids))
    for index in range(first, model.info.n_layers):
        steps = model.block(x, model.layers[index], mask, ablation, index)
        weights[index], inputs[index] = steps.heads.weights, x
        x = steps.output
    _, logits = model.finish(x)
    guesses: tuple[np.ndarray | None, ...] = (None,) * 4
    if logits is not None:
        guesses = predictions.next_token_summary(logits, ids)
        del logits  # (T, V): not kept
    return SlimTrace(
        ids=ids,
        type_ids=type_ids,
        weights=weights,  # (L, H, T, T)
        inputs=inputs,  # (L, T, d)
        final_output=x,
        mask=mask,
        token_embeddings=token_rows,
        position_embeddings=position_rows,
        top_ids=guesses[0],
        top_probs=guesses[1],
        ranks=guesses[2],
        rank_probs=guesses[3],
        ablation=ablation,
    )


def layer_steps(model: Model, trace: SlimTrace, layer: int) -> BlockTrace:
    """Layer ``layer``'s every step, recomputed from its kept input: ``BlockTrace``.

    Only its attention runs again (:meth:`Model.attend`, every step a page draws, with the
    trace's heads off); its output is the one the whole pass computed, kept as the next
    layer's input.
    """
    x = trace.inputs[layer]  # (T, d)
    following = trace.inputs[layer + 1] if layer + 1 < len(trace.inputs) else trace.final_output
    attended = model.attend(x, model.layers[layer], trace.mask, trace.ablation, layer)
    return block_trace(x, attended, following)
