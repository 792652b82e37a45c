"""What every model family returns, whatever its layers: its facts, its tokens, its trace.

One set of names for BERT, GPT-2 and the Llama family, so a page draws any of them
the same way. ``L`` layers, ``H`` query heads (``Hkv`` key/value heads), ``T``
tokens, ``d`` model width, ``dk`` head width, ``V`` vocabulary size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple, Protocol

import numpy as np

from attention_core.maths import attention
from attention_core.maths.ablation import Ablation
from attention_core.maths.attention import AttentionTrace


@dataclass(frozen=True)
class ModelInfo:
    """The facts a page shows about a checkpoint (read from its ``config.json``)."""

    name: str  #: the checkpoint folder's name, e.g. "distilgpt2"
    family: Literal["bert", "gpt2", "llama"]  #: qwen2 and mistral run as "llama"
    model_type: str  #: config.json's own: "bert", "gpt2", "llama", "qwen2", "mistral"
    n_layers: int  #: L
    n_heads: int  #: H, query heads
    n_kv_heads: int  #: Hkv, key/value heads (= H without grouped-query attention)
    d_model: int  #: d
    d_head: int  #: dk
    vocab_size: int  #: V
    max_positions: int  #: the longest input the model was trained for
    causal: bool  #: True: token i sees tokens 0..i only (decoders)
    positions: Literal["absolute", "rotary"]  #: added to the input, or RoPE in attention
    rotary_base: float | None  #: RoPE's base (``rope_theta``); None for absolute positions


@dataclass(frozen=True)
class ModelTokens:
    """A tokenized text, cut to the page's token limit."""

    ids: np.ndarray  #: (T,) int64 vocabulary ids
    tokens: tuple[str, ...]  #: as the tokenizer names them ("Ġthe", "[CLS]" ...)
    labels: tuple[str, ...]  #: unique plot labels ("the", "the₂")
    cut: int  #: tokens dropped to fit MAX_TOKENS (0: nothing was cut)

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class BlockTrace:
    """One transformer layer, every step the step view shows (same names in every family).

    For absolute positions ``q_rotated is q`` and ``k_rotated is k`` and ``angles`` is None.
    For grouped-query attention ``k``, ``v`` are per *query* head: heads of one group
    (:func:`attention_core.maths.attention.kv_group`) hold the same K/V head.
    """

    x: np.ndarray  #: (T, d) the layer's input (the residual stream)
    attention_input: np.ndarray  #: (T, d) what attention reads: LN/RMSNorm(x), BERT: x
    q: np.ndarray  #: (H, T, dk) queries before RoPE
    k: np.ndarray  #: (H, T, dk) keys before RoPE
    q_rotated: np.ndarray  #: (H, T, dk) queries after RoPE (the ones scored)
    k_rotated: np.ndarray  #: (H, T, dk) keys after RoPE
    angles: np.ndarray | None  #: (T, dk/2) RoPE angle per position and column pair
    v: np.ndarray  #: (H, T, dk) values
    heads: AttentionTrace  #: scores, scaled, masked, weights (H, T, T), context, mask
    attention_output: np.ndarray  #: (T, d) [C_1 ... C_H] W^O (+ b^O), before the residual
    output: np.ndarray  #: (T, d) the next layer's input

    @property
    def nbytes(self) -> int:
        """Bytes held by the layer's arrays (each array counted once)."""
        found = [*vars(self).values(), *vars(self.heads).values()]
        arrays = {id(a): a for a in found if isinstance(a, np.ndarray)}
        return sum(array.nbytes for array in arrays.values())


def per_head(trace: attention.MultiHeadTrace) -> attention.AttentionTrace:
    """The heads' own arrays (scores ... context) of ``trace``, without concat and output.

    Only these are drawn, and the page's trace cache counts every byte a trace keeps.
    """
    kept = {field.name: getattr(trace, field.name) for field in fields(attention.AttentionTrace)}
    return attention.AttentionTrace(**kept)


class Attended(NamedTuple):
    """A layer's attention half: what attention read, what it computed, and RoPE's angles."""

    attention_input: np.ndarray  #: (T, d) LN/RMSNorm(x), BERT: x
    trace: attention.MultiHeadTrace  #: Q, K, V (after RoPE, and before it), scores ... output
    angles: np.ndarray | None = None  #: (T, dk/2) RoPE angle per position and column pair


def block_trace(x: np.ndarray, attended: Attended, output: np.ndarray) -> BlockTrace:
    """A layer's :class:`BlockTrace` from its input ``x (T, d)``, its attention half and its
    ``output (T, d)`` (before/after RoPE split out)."""
    heads = attended.trace
    q = heads.q if heads.q_unrotated is None else heads.q_unrotated  # (H, T, dk)
    k = heads.k if heads.k_unrotated is None else heads.k_unrotated
    return BlockTrace(
        x=x,
        attention_input=attended.attention_input,
        q=q,
        k=k,
        q_rotated=heads.q,
        k_rotated=heads.k,
        angles=attended.angles,
        v=heads.v,
        heads=per_head(heads),
        attention_output=heads.output,
        output=output,
    )


@dataclass(frozen=True)
class ModelTrace:
    """One forward pass: every layer, the final hidden states and the next-token logits."""

    layers: tuple[BlockTrace, ...]
    #: (T, d) as transformers names it: decoders after the final norm, BERT the last layer's output
    last_hidden_state: np.ndarray
    logits: np.ndarray | None  #: (T, V) next-token scores; None for BERT (no LM head)
    token_embeddings: np.ndarray | None  #: (T, d) rows of the token table; None for RoPE
    position_embeddings: np.ndarray | None  #: (T, d) rows of the position table; None for RoPE

    @property
    def weights(self) -> np.ndarray:
        return np.stack([layer.heads.weights for layer in self.layers])  # (L, H, T, T)

    @property
    def nbytes(self) -> int:
        """Bytes held by the trace's arrays (each array counted once)."""
        found = [
            self.last_hidden_state,
            self.logits,
            self.token_embeddings,
            self.position_embeddings,
        ]
        for layer in self.layers:
            found += [*vars(layer).values(), *vars(layer.heads).values()]
        arrays = {id(a): a for a in found if isinstance(a, np.ndarray)}
        return sum(array.nbytes for array in arrays.values())


class Model(Protocol):
    """A family's loaded weights: its facts and its three steps (ids checked by the caller).

    :func:`attention_core.pretrained.decoder.forward` runs them in order: ``embed`` the ids,
    each layer's ``block`` in turn, then ``finish``. A layer's ``attend`` is the first half of
    its ``block``: a page recomputes only that half of a layer it draws
    (:func:`attention_core.pretrained.slim.layer_steps`). ``attend`` and ``block`` take an
    optional :class:`~attention_core.maths.ablation.Ablation` and the layer's index in the
    model (``layer_index``), whose heads it turns off; None: every head on.
    """

    @property
    def info(self) -> ModelInfo: ...

    @property
    def layers(self) -> Sequence[Any]: ...

    def embed(
        self, ids: np.ndarray, type_ids: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``(T,) -> (X_0 (T, d), token rows (T, d) | None, position rows (T, d) | None)``.

        ``type_ids (T,)``: each token's sentence in a pair (BERT's sentence A = 0, B = 1);
        None for one text, the only input a decoder takes.
        """
        ...

    def attend(
        self,
        x: np.ndarray,
        layer: Any,
        mask: np.ndarray | None,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> Attended:
        """A layer's attention half on its input ``x (T, d)`` (what the step view draws)."""
        ...

    def block(
        self,
        x: np.ndarray,
        layer: Any,
        mask: np.ndarray | None,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> BlockTrace:
        """One layer on its input ``x (T, d)``: :meth:`attend`, then the rest; every step kept."""
        ...

    def finish(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The last layer's output -> (final hidden states (T, d), logits (T, V) or None)."""
        ...

    def forward(self, ids: np.ndarray, *, ablation: Ablation | None = None) -> ModelTrace: ...
