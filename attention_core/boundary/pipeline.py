r"""From tokens to every matrix a page shows: embed, add positions, attend.

.. math:: X \to X + P \to Q, K, V \to QK^\top \to \text{scaled} \to \text{masked}
          \to \text{softmax} \to C_h \to O

The checks happen here, at the edge (with :class:`AttentionConfig`); the
computation itself is :func:`attention_core.maths.attention.multi_head_attention`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from attention_core.boundary.api import check_scores_finite
from attention_core.boundary.config import AttentionConfig
from attention_core.boundary.errors import InputError
from attention_core.boundary.options import EMBEDDINGS, MASKS, POSITIONAL_ENCODINGS
from attention_core.boundary.registry import choose
from attention_core.boundary.validation import as_matrix, check_mask_shape
from attention_core.maths import attention
from attention_core.maths.ablation import Ablation, check_ablation
from attention_core.maths.projections import Projections, init_projections

PAD_TOKENS = frozenset({"<pad>", "[PAD]"})


@dataclass(frozen=True)
class AttentionRun:
    """Everything a page shows for one configuration.

    ``T`` query tokens, ``S`` key/value tokens (``S = T`` for self-attention).
    """

    config: AttentionConfig
    x: np.ndarray  #: (T, d_model) query-side token vectors
    p: np.ndarray  #: (T, d_model) positional encoding added to x
    x_kv: np.ndarray  #: (S, d_model) key/value-side token vectors
    p_kv: np.ndarray  #: (S, d_model)
    projections: Projections  #: W^Q, W^K, W^V, W^O and the per-head weights
    trace: attention.MultiHeadTrace  #: every step; ``trace.output`` is the run's output
    mask: np.ndarray | None  #: (T, S) bool, True = may attend

    @property
    def is_cross(self) -> bool:
        return self.x_kv is not self.x


def embed(tokens: tuple[str, ...] | list[str], kind: str, d_model: int, seed: int = 0):
    """Token vectors ``X (T, d_model)`` of the chosen ``kind`` (see ``options.EMBEDDINGS``)."""
    return choose(EMBEDDINGS, kind, "embedding").build(tokens, d_model, seed)


def positional_encoding(kind: str, length: int, d_model: int, seed: int = 0) -> np.ndarray:
    """The additive encoding ``P (length, d_model)`` for ``kind``.

    ``"none"`` and ``"rotary"`` add nothing (zeros): rotary acts on the queries
    and keys inside attention instead.
    """
    return choose(POSITIONAL_ENCODINGS, kind, "positional encoding").build(length, d_model, seed)


def build_mask(
    config: AttentionConfig,
    n_q: int,
    n_k: int,
    key_is_padding: np.ndarray | None = None,
    custom: np.ndarray | None = None,
) -> np.ndarray | None:
    """The boolean ``(n_q, n_k)`` mask for ``config.mask`` (None = attend to all)."""
    return MASKS[config.mask].build(n_q, n_k, config.window, key_is_padding, custom)


def _check_vectors(vectors: object, name: str, d_model: int) -> np.ndarray:
    vectors = as_matrix(vectors, name)
    if vectors.shape[1] != d_model:
        raise InputError(
            f"{name} has {vectors.shape[1]} numbers per token; this configuration needs "
            f"d_model = {d_model}."
        )
    return vectors


def run_attention(
    x: np.ndarray,
    config: AttentionConfig,
    x_kv: np.ndarray | None = None,
    mask: np.ndarray | None = None,
    ablation: Ablation | None = None,
) -> AttentionRun:
    """Add positions, project, attend and combine heads for input vectors ``x (T, d_model)``.

    ``x_kv (S, d_model)`` switches to cross-attention. Projections are Glorot
    uniform from ``numpy.random.default_rng(config.seed)``, so the same config
    gives the same numbers in every session. ``ablation``: heads ``(0, h)`` turned off before
    the heads are combined (:mod:`attention_core.maths.ablation`); None: all on.
    """
    x = _check_vectors(x, "x", config.d_model)
    self_attention = x_kv is None
    x_kv = x if self_attention else _check_vectors(x_kv, "x_kv", config.d_model)
    if mask is not None:
        mask = check_mask_shape(mask, (x.shape[0], x_kv.shape[0]))
    ablation = check_ablation(ablation, 1, config.n_heads)
    p = positional_encoding(config.positional, x.shape[0], config.d_model, config.seed)
    p_kv = p if self_attention else positional_encoding(
        config.positional, x_kv.shape[0], config.d_model, config.seed
    )  # fmt: skip
    rng = np.random.default_rng(config.seed)
    d_k, d_v = cast(int, config.d_k), cast(int, config.d_v)  # set by AttentionConfig
    projections = init_projections(rng, config.d_model, config.n_heads, d_k, d_v, config.d_model)
    x_in = x + p  # (T, d_model)
    with np.errstate(over="ignore", invalid="ignore"):
        trace = attention.multi_head_attention(
            x_in,
            x_in if self_attention else x_kv + p_kv,
            projections,
            config.n_heads,
            config.scale,
            mask,
            normaliser=config.normaliser_function,
            combine=config.combine_heads,
            rotary_base=POSITIONAL_ENCODINGS[config.positional].rotary_base,
            ablation=ablation,
        )
    check_scores_finite(trace)
    return AttentionRun(config, x, p, x_kv, p_kv, projections, trace, mask)


def run_text_attention(
    tokens: tuple[str, ...],
    config: AttentionConfig,
    kv_tokens: tuple[str, ...] | None = None,
    custom_mask: np.ndarray | None = None,
    ablation: Ablation | None = None,
) -> AttentionRun:
    """Embed ``tokens`` (and ``kv_tokens`` for cross-attention) and run attention.

    ``<pad>`` / ``[PAD]`` tokens on the key side are hidden by the padding mask; ``ablation``:
    see :func:`run_attention`.
    """
    if isinstance(tokens, str) or isinstance(kv_tokens, str):
        raise InputError("Pass a sequence of tokens, e.g. tokenize(text).tokens, not the raw text.")
    keys = tokens if kv_tokens is None else kv_tokens
    # Embed both sentences together so one-hot ids are shared across them.
    both = tuple(tokens) + (() if kv_tokens is None else tuple(kv_tokens))
    vectors = embed(both, config.embedding, config.d_model, config.seed)
    x = vectors[: len(tokens)]
    x_kv = None if kv_tokens is None else vectors[len(tokens) :]
    is_pad = np.array([token in PAD_TOKENS for token in keys])
    mask = build_mask(config, len(tokens), len(keys), is_pad, custom_mask)
    return run_attention(x, config, x_kv, mask, ablation)
