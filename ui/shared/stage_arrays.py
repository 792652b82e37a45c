"""What each stage of :mod:`ui.shared.stages` shows of a run: its array, and the code that made it.

:func:`stage_matrix` picks the matching array out of an :class:`attention_core.AttentionRun`;
:func:`all_matrices` gives every array for one download; :func:`stage_code` names the
core functions that computed a stage, for "The code".
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import attention_core as ac
from attention_core.boundary import pipeline
from attention_core.maths import attention, positional


def stage_matrix(run: ac.AttentionRun, key: str, head: int | None = None) -> np.ndarray:
    """The array a step shows: ``(H, R, C)`` for per-head steps when ``head`` is None,
    else ``(R, C)``.

    ``x``/``p``/``x_plus_p`` are the query side; :func:`key_side_matrix` gives
    the key side of a cross-attention run.
    """
    trace = run.trace
    arrays = {
        "x": run.x,
        "p": run.p,
        "x_plus_p": run.x + run.p,
        "q": trace.q,
        "k": trace.k,
        "v": trace.v,
        "scores": trace.scores,
        "scaled": trace.scaled,
        "masked": trace.masked,
        "weights": trace.weights,
        "context": trace.context,
        "concat": trace.concat,
        "output": run.trace.output,
    }
    matrix = arrays[key]
    if head is not None and matrix.ndim == 3:
        return matrix[head]
    return matrix


def key_side_matrix(run: ac.AttentionRun, key: str) -> np.ndarray:
    """``x``, ``p`` or ``x_plus_p`` of the key/value sentence ``(S, d_model)``."""
    arrays = {"x": run.x_kv, "p": run.p_kv, "x_plus_p": run.x_kv + run.p_kv}
    return arrays[key]


def all_matrices(run: ac.AttentionRun) -> dict[str, np.ndarray]:
    """Every matrix of a run by name, for one ``.npz`` download (per-head arrays ``(H, ·, ·)``)."""
    trace = run.trace
    matrices = {
        "X": run.x,
        "P": run.p,
        "X_plus_P": run.x + run.p,
        "W_Q": run.projections.w_q,
        "W_K": run.projections.w_k,
        "W_V": run.projections.w_v,
        "W_O": run.projections.w_o,
        "head_weights": run.projections.head_weights,
        "Q": trace.q,
        "K": trace.k,
        "V": trace.v,
        "scores": trace.scores,
        "scaled": trace.scaled,
        "masked": trace.masked,
        "weights": trace.weights,
        "context": trace.context,
        "concat": trace.concat,
        "output": run.trace.output,
    }
    if run.is_cross:
        matrices |= {"X_kv": run.x_kv, "P_kv": run.p_kv, "X_kv_plus_P_kv": run.x_kv + run.p_kv}
    if run.mask is not None:
        matrices["mask"] = run.mask
    return matrices


def stage_code(key: str, config: ac.AttentionConfig) -> tuple[Callable, ...]:
    """The core functions that compute stage ``key`` under ``config``, for "The code"."""
    rotary = (positional.rotate,) if config.positional == "rotary" else ()
    projection = (attention.project, attention.split_heads)
    code = {
        "tokens": (ac.tokenize,),
        "x": ac.EMBEDDINGS[config.embedding].shown,
        "p": ac.POSITIONAL_ENCODINGS[config.positional].shown,
        "x_plus_p": (pipeline.run_attention,),
        "q": (*projection, *rotary),
        "k": (*projection, *rotary),
        "v": projection,
        "scores": (attention.attention_scores,),
        "scaled": (attention.scale_scores, *ac.SCALINGS[config.scaling].shown),
        "masked": (attention.mask_scores, *ac.MASKS[config.mask].shown),
        "weights": ac.NORMALISERS[config.normaliser].shown,
        "head_view": ac.NORMALISERS[config.normaliser].shown,
        "context": (attention.attention_context,),
        "concat": (attention.merge_heads,),
        "output": ac.COMBINATIONS[config.combine].shown,
    }
    return code[key]
