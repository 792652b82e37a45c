r"""One head's learned projections and the norm before attention, as the forward pass used them.

For a loaded model, layer ``l`` and query head ``h`` (``d_in`` the model width, ``dk`` the
head width), :func:`head_projections` gives the head's columns of :math:`W^Q`, :math:`W^K`,
:math:`W^V`, each ``(d_in, dk)`` float32, and their biases ``(dk,)`` (None without), so that

.. math:: q_h = N\, W^Q_{:, h} + b^Q_h \qquad (\text{likewise } k_h, v_h)

is the trace's ``q[h]`` (before RoPE), ``k[h]``, ``v[h]``, :math:`N` the layer's
``attention_input``. :func:`attention_norm` gives the norm that made :math:`N` from the
layer's input :math:`X` (LayerNorm's :math:`\gamma, \beta, \epsilon`, RMSNorm's
:math:`w, \epsilon`; None for BERT, whose attention reads :math:`X` itself).

Each family's layout, as its loader and forward pass have it:

- **GPT-2**: ``c_attn`` holds :math:`W^Q, W^K, W^V` side by side ``(d, 3d)``; head ``h``
  is columns ``h·dk … (h+1)·dk`` of each third. A GGUF file stores it transposed and
  perhaps quantised: only the head's rows of the file are dequantised.
- **Llama family**: stored ``(d_out, d_in)``; :math:`W^Q` and :math:`W^K` rows of each
  head reordered into RoPE's pairs at load (:func:`~attention_core.pretrained.llama.
  rope_order`), unless the file keeps them so (a ``llama`` GGUF); the keys and values
  are the query head's K/V head's (:func:`~attention_core.maths.attention.kv_group`).
  A quantised matrix widens only the head's ``dk`` rows, exactly as the whole is widened.
- **BERT**: float32 ``(d, d)`` matrices with biases.

Nothing is kept: each call slices the stored weights of one head (a few KB).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from attention_core.boundary.registry import Table
from attention_core.maths.attention import kv_group
from attention_core.pretrained.bert import Bert
from attention_core.pretrained.gpt2 import GPT2
from attention_core.pretrained.llama import Llama, rope_order
from attention_core.pretrained.quantised import Quantised, Repacked
from attention_core.pretrained.tensors import Stored, widen
from attention_core.pretrained.trace import Model


@dataclass(frozen=True)
class HeadProjections:
    """One query head's columns of W^Q and its K/V head's of W^K, W^V: ``(d_in, dk)`` each."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    b_q: np.ndarray | None  #: (dk,), None: no bias
    b_k: np.ndarray | None
    b_v: np.ndarray | None
    kv_head: int  #: the K/V head whose W^K, W^V these are (the query head without grouping)


@dataclass(frozen=True)
class Norm:
    r"""A per-row norm: LayerNorm :math:`\gamma \odot (x - \bar x)/\sqrt{\sigma^2 + \epsilon}
    + \beta`, or RMSNorm :math:`w \odot x / \sqrt{\overline{x^2} + \epsilon}` (no bias)."""

    kind: Literal["LayerNorm", "RMSNorm"]
    gain: np.ndarray  #: (d,) γ, or RMSNorm's w
    bias: np.ndarray | None  #: (d,) β; None for RMSNorm
    eps: float


@dataclass(frozen=True)
class FamilyWeights:
    """How one family's weights are read: ``head(model, layer, head)`` and
    ``attention_norm(model, layer)`` (None: attention reads the layer's input itself)."""

    head: Callable[[Any, int, int], HeadProjections]
    attention_norm: Callable[[Any, int], Norm | None]


#: Each family's weight readers, by ``ModelInfo.family``.
FAMILY_WEIGHTS: Table[FamilyWeights] = Table("model family")


def head_projections(model: Model, layer: int, head: int) -> HeadProjections:
    """Query head ``head`` of layer ``layer`` (0-based): its columns of W^Q, W^K, W^V."""
    return FAMILY_WEIGHTS[model.info.family].head(model, layer, head)


def attention_norm(model: Model, layer: int) -> Norm | None:
    """The norm that turns layer ``layer``'s input X into what attention reads; None: X itself."""
    return FAMILY_WEIGHTS[model.info.family].attention_norm(model, layer)


def columns(stored: Stored, taken: slice) -> np.ndarray:
    """Columns ``taken`` of a ``(d_in, d_out)`` weight, float32 ``(d_in, n)``: of a quantised
    one stored transposed (a GGUF file's GPT-2), only those rows of the file are widened."""
    if isinstance(stored, Repacked | Quantised):
        if stored.transposed:
            return widen(stored.T[taken]).T
        return widen(stored)[:, taken]
    return widen(stored[:, taken])


def rows(stored: Stored, taken: np.ndarray) -> np.ndarray:
    """Rows ``taken`` of a ``(d_out, d_in)`` weight, float32 ``(n, d_in)`` (quantised blocks:
    only those rows dequantised, to the same numbers as the whole)."""
    return widen(stored[taken])


def bias_of(stored: Stored | None, taken: slice | np.ndarray) -> np.ndarray | None:
    """Entries ``taken`` of a bias ``(d_out,)`` as float32; None without a bias."""
    return None if stored is None else widen(stored)[taken]


# ---------------------------------------------------------------- GPT-2


def gpt2_head(model: GPT2, layer: int, head: int) -> HeadProjections:
    """Head ``head``'s columns of each third of ``c_attn`` (Q, K, V) and of its bias."""
    block, d, dk = model.layers[layer], model.info.d_model, model.info.d_head
    thirds = [slice(part * d + head * dk, part * d + (head + 1) * dk) for part in range(3)]
    w_q, w_k, w_v = (columns(block.w_qkv, third) for third in thirds)
    b_q, b_k, b_v = (bias_of(block.b_qkv, third) for third in thirds)
    return HeadProjections(w_q, w_k, w_v, b_q, b_k, b_v, kv_head=head)


def gpt2_norm(model: GPT2, layer: int) -> Norm:
    """``ln_1``: LayerNorm's γ, β and ε."""
    block = model.layers[layer]
    return Norm("LayerNorm", widen(block.ln1_gain), widen(block.ln1_bias), model.eps)


# ---------------------------------------------------------------- Llama family


def rope_rows(model: Llama, head: int) -> np.ndarray:
    """The stored rows of W^Q (or W^K) that make head ``head``'s ``dk`` columns, in the order
    the forward pass uses them: RoPE's pairs, reordered from HF's halves unless stored so."""
    dk = model.info.d_head
    within = np.arange(dk) if model.interleaved else rope_order(1, dk)  # (dk,)
    return head * dk + within


def llama_head(model: Llama, layer: int, head: int) -> HeadProjections:
    """Head ``head``'s rows of W^Q, its K/V head's of W^K and W^V, transposed to ``(d, dk)``."""
    info, block = model.info, model.layers[layer]
    kv = kv_group(head, info.n_heads, info.n_kv_heads)
    q_rows, k_rows = rope_rows(model, head), rope_rows(model, kv)
    v_rows = np.arange(kv * info.d_head, (kv + 1) * info.d_head)
    return HeadProjections(
        w_q=rows(block.w_q, q_rows).T,
        w_k=rows(block.w_k, k_rows).T,
        w_v=rows(block.w_v, v_rows).T,
        b_q=bias_of(block.b_q, q_rows),
        b_k=bias_of(block.b_k, k_rows),
        b_v=bias_of(block.b_v, v_rows),
        kv_head=kv,
    )


def llama_norm(model: Llama, layer: int) -> Norm:
    """``input_layernorm``: RMSNorm's weight and ε."""
    return Norm("RMSNorm", widen(model.layers[layer].attention_norm), None, model.eps)


# ---------------------------------------------------------------- BERT


def bert_head(model: Bert, layer: int, head: int) -> HeadProjections:
    """Head ``head``'s columns of the query, key and value matrices and of their biases."""
    block, dk = model.layers[layer], model.info.d_head
    taken = slice(head * dk, (head + 1) * dk)
    return HeadProjections(
        block.w_q[:, taken],
        block.w_k[:, taken],
        block.w_v[:, taken],
        block.b_q[taken],
        block.b_k[taken],
        block.b_v[taken],
        kv_head=head,
    )


def no_norm(model: Bert, layer: int) -> None:
    """BERT normalises after attention: attention reads the layer's input itself."""
    return None


FAMILY_WEIGHTS.register("gpt2", FamilyWeights(gpt2_head, gpt2_norm))
FAMILY_WEIGHTS.register("llama", FamilyWeights(llama_head, llama_norm))
FAMILY_WEIGHTS.register("bert", FamilyWeights(bert_head, no_norm))
