r"""What every family's forward pass shares: a layer's trace and the next-token logits.

.. math:: \mathrm{logits} = h_{\text{final}}\, W_{\text{LM}}^\top

``T`` tokens, ``d`` width, ``V`` vocabulary, ``H`` query heads of width ``dk``.

Every family's forward pass is :func:`forward`: embed, each block in turn, finish.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from attention_core.maths.ablation import Ablation
from attention_core.maths.masks import causal_mask
from attention_core.pretrained.tensors import Stored, widen
from attention_core.pretrained.trace import BlockTrace, Model, ModelTrace

#: Rows of the LM head widened at once: a float16 or quantised vocabulary is never widened
#: whole, and a slice stays a few MB.
LOGIT_ROWS = 2048


def next_token_logits(hidden: np.ndarray, head: Stored) -> np.ndarray:
    r""":math:`h W^\top`: ``hidden (T, d)``, ``head (V, d)`` the LM head (or the tied token
    table) -> ``(T, V)`` float32, widened :data:`LOGIT_ROWS` rows at a time.
    """
    logits = np.empty((hidden.shape[0], head.shape[0]), dtype=np.float32)  # (T, V)
    for start in range(0, head.shape[0], LOGIT_ROWS):
        rows = widen(head[start : start + LOGIT_ROWS])  # (rows, d)
        logits[:, start : start + LOGIT_ROWS] = hidden @ rows.T
    return logits


def layer_mask(model: Model, length: int) -> np.ndarray | None:
    """The causal mask ``(T, T)`` for a decoder; None (attend everywhere) for an encoder."""
    return causal_mask(length) if model.info.causal else None


def one_text(type_ids: np.ndarray | None) -> None:
    """A decoder's ``embed`` takes no sentence ids: it reads one text, never a pair."""
    if type_ids is not None:
        raise ValueError("A decoder reads one text: it takes no sentence ids.")


def layer_inputs(
    model: Model,
    ids: np.ndarray,
    type_ids: np.ndarray | None = None,
    ablation: Ablation | None = None,
) -> Iterator[tuple[np.ndarray, BlockTrace]]:
    """Each layer's input ``(T, d)`` and its steps, in order (one layer held at a time);
    ``type_ids (T,)``: a sentence pair's sentence ids (BERT), None for one text; ``ablation``:
    the heads turned off (:mod:`attention_core.maths.ablation`), None: all on."""
    x, _, _ = model.embed(ids, type_ids)
    mask = layer_mask(model, len(ids))
    for index, layer in enumerate(model.layers):
        steps = model.block(x, layer, mask, ablation, index)
        yield x, steps
        x = steps.output


def forward(
    model: Model,
    ids: np.ndarray,
    type_ids: np.ndarray | None = None,
    ablation: Ablation | None = None,
) -> ModelTrace:
    """Embeddings, every block, the final norm and the logits: ``(T,) -> ModelTrace``
    (``type_ids``, ``ablation``: see :func:`layer_inputs`)."""
    _, token_rows, position_rows = model.embed(ids, type_ids)
    layers = tuple(steps for _, steps in layer_inputs(model, ids, type_ids, ablation))
    hidden, logits = model.finish(layers[-1].output)
    return ModelTrace(layers, hidden, logits, token_rows, position_rows)
