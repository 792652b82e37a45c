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
from attention_core.maths import attention
from ui.shared.stages import chosen_options

# Each stage's array in a run, once: stage key -> (its name in the download, the array).
# Per-head arrays are (H, R, C); x, p and x_plus_p are the query side.
STAGE_ARRAYS: dict[str, tuple[str, Callable[[ac.AttentionRun], np.ndarray]]] = {
    "x": ("X", lambda run: run.x),
    "p": ("P", lambda run: run.p),
    "x_plus_p": ("X_plus_P", lambda run: run.x + run.p),
    "q": ("Q", lambda run: run.trace.q),
    "k": ("K", lambda run: run.trace.k),
    "v": ("V", lambda run: run.trace.v),
    "scores": ("scores", lambda run: run.trace.scores),
    "scaled": ("scaled", lambda run: run.trace.scaled),
    "masked": ("masked", lambda run: run.trace.masked),
    "weights": ("weights", lambda run: run.trace.weights),
    "context": ("context", lambda run: run.trace.context),
    "concat": ("concat", lambda run: run.trace.concat),
    "output": ("output", lambda run: run.trace.output),
}
INPUT_STAGES = ("x", "p", "x_plus_p")  #: before the projections W (the download's order)


def stage_matrix(run: ac.AttentionRun, name: str, head: int | None = None) -> np.ndarray:
    """The array a stage shows: ``(H, R, C)`` for per-head stages when ``head`` is None,
    else ``(R, C)``.

    ``x``/``p``/``x_plus_p`` are the query side; :func:`key_side_matrix` gives
    the key side of a cross-attention run.
    """
    matrix = STAGE_ARRAYS[name][1](run)
    if head is not None and matrix.ndim == 3:
        return matrix[head]
    return matrix


def key_side_matrix(run: ac.AttentionRun, name: str) -> np.ndarray:
    """``x``, ``p`` or ``x_plus_p`` of the key/value sentence ``(S, d_model)``."""
    arrays = {"x": run.x_kv, "p": run.p_kv, "x_plus_p": run.x_kv + run.p_kv}
    return arrays[name]


def all_matrices(run: ac.AttentionRun) -> dict[str, np.ndarray]:
    """Every matrix of a run by name, for one ``.npz`` download (per-head arrays ``(H, ·, ·)``).

    The stages' arrays (:data:`STAGE_ARRAYS`) with the learned matrices after the inputs.
    """
    named = {name: array(run) for name, array in STAGE_ARRAYS.values()}
    inputs = [STAGE_ARRAYS[key][0] for key in INPUT_STAGES]
    projections = run.projections
    matrices = {name: named.pop(name) for name in inputs}
    matrices |= {
        "W_Q": projections.w_q,
        "W_K": projections.w_k,
        "W_V": projections.w_v,
        "W_O": projections.w_o,
        "head_weights": projections.head_weights,
    }
    matrices |= named
    if run.is_cross:
        matrices |= {"X_kv": run.x_kv, "P_kv": run.p_kv, "X_kv_plus_P_kv": run.x_kv + run.p_kv}
    if run.mask is not None:
        matrices["mask"] = run.mask
    return matrices


def stage_code(name: str, config: ac.AttentionConfig) -> tuple[Callable, ...]:
    """The core functions that compute stage ``name`` under ``config``, for "The code"."""
    projection = (attention.project, attention.split_heads)
    code = {
        "tokens": (ac.tokenize,),
        "x": ac.EMBEDDINGS[config.embedding].shown,
        "p": ac.POSITIONAL_ENCODINGS[config.positional].shown,
        "x_plus_p": (pipeline.run_attention,),
        "q": projection,
        "k": projection,
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
    more = (f for option in chosen_options(config).values() for f in option.more_code.get(name, ()))
    return (*code[name], *more)
