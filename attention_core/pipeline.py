r"""The full path from tokens to context vectors, every step kept for display.

.. math:: X \to X + P \to Q, K, V \to QK^\top \to \text{scaled} \to \text{masked}
          \to \text{softmax} \to C_h \to \text{combined output}
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import AttentionConfig
from .errors import InputError
from .functional import causal_mask, padding_mask, sliding_window_mask
from .multihead import MultiHeadTrace, combine_heads, multi_head_attention
from .positional import positional_encoding
from .projections import Projections, init_projections
from .text import embed
from .validation import as_matrix, check_mask_shape

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
    weights: Projections
    trace: MultiHeadTrace
    output: np.ndarray  #: combined heads: (T, d_model) for concat, (T, dv) otherwise
    mask: np.ndarray | None  #: (T, S) bool, True = may attend

    @property
    def is_cross(self) -> bool:
        return self.x_kv is not self.x


def build_mask(
    config: AttentionConfig,
    n_q: int,
    n_k: int,
    key_is_padding: np.ndarray | None = None,
    custom: np.ndarray | None = None,
) -> np.ndarray | None:
    """The boolean ``(n_q, n_k)`` mask for ``config.mask`` (None = attend to all)."""
    if config.mask == "none":
        return None
    if config.mask == "causal":
        return causal_mask(n_q, n_k)
    if config.mask == "sliding":
        return sliding_window_mask(n_q, config.window, causal=True, n_k=n_k)
    if config.mask == "padding":
        if key_is_padding is None:
            key_is_padding = np.zeros(n_k, dtype=bool)
        key_is_padding = np.asarray(key_is_padding, dtype=bool)
        if key_is_padding.shape != (n_k,):
            raise InputError(
                f"Need one padding flag per key ({n_k} keys), got shape {key_is_padding.shape}."
            )
        return padding_mask(~key_is_padding, n_q)
    if custom is None:
        raise InputError("A custom mask needs a grid of True/False values, one per query and key.")
    return check_mask_shape(custom, (n_q, n_k))


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
) -> AttentionRun:
    """Add positions, project, attend and combine heads for input vectors ``x (T, d_model)``.

    ``x_kv (S, d_model)`` switches to cross-attention. Weights are Glorot
    uniform from ``numpy.random.default_rng(config.seed)``, so the same config
    gives the same numbers in every session.
    """
    x = _check_vectors(x, "x", config.d_model)
    self_attention = x_kv is None
    if not self_attention:
        x_kv = _check_vectors(x_kv, "x_kv", config.d_model)
    p = positional_encoding(config.positional, x.shape[0], config.d_model, config.seed)
    if self_attention:
        x_kv, p_kv = x, p
    else:
        p_kv = positional_encoding(config.positional, x_kv.shape[0], config.d_model, config.seed)
    rng = np.random.default_rng(config.seed)
    weights = init_projections(
        rng, config.d_model, config.n_heads, config.d_k, config.d_v, config.d_model
    )
    x_in = x + p
    trace = multi_head_attention(
        x_in,
        weights.w_q,
        weights.w_k,
        weights.w_v,
        w_o=weights.w_o,
        n_heads=config.n_heads,
        mask=mask,
        x_kv=x_in if self_attention else x_kv + p_kv,
        scale=config.scale,
        activation=config.activation,
        rotary=config.positional == "rotary",
    )
    output = combine_heads(trace.context, config.combine, weights.w_o, weights.head_weights)
    return AttentionRun(config, x, p, x_kv, p_kv, weights, trace, output, mask)


def run_text_attention(
    tokens: tuple[str, ...],
    config: AttentionConfig,
    kv_tokens: tuple[str, ...] | None = None,
    custom_mask: np.ndarray | None = None,
) -> AttentionRun:
    """Embed ``tokens`` (and ``kv_tokens`` for cross-attention) and run attention.

    ``<pad>`` / ``[PAD]`` tokens on the key side are hidden by the padding mask.
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
    return run_attention(x, config, x_kv, mask)
