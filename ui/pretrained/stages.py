r"""The stages of one head of the pretrained model: what each matrix is, and the code behind it.

The text page's steps (:func:`ui.shared.stages.base_stage`) with BERT's formulas (biases
included) and words. :data:`STAGE_CODE` names, per stage, the function that computed the
matrix (first) and the core functions it calls, so "The code" shows what ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from attention_core.maths import attention, layers
from attention_core.pretrained import bert
from attention_core.pretrained.trace import BlockTrace
from ui.shared.stages import Stage, base_stage


def _bert_stage(name: str, formula: str, explanation: str, **changes: Any) -> Stage:
    """The text page's stage ``name`` (symbol, colour scale, axes) with BERT's formula and words."""
    return replace(base_stage(name), formula=formula, explanation=explanation, **changes)


STAGES = {
    "x": _bert_stage(
        "x",
        r"X_{l+1} = \mathrm{LN}(Y + \mathrm{FFN}(Y))",
        "Each row is one token as this layer receives it: 384 learned numbers. Layer 1 gets "
        "the word, position and sentence embeddings; later layers get the previous output.",
        title="Layer input X",
    ),
    "q": _bert_stage(
        "q",
        r"Q_h = X W^Q_h + b^Q_h",
        "What each token is looking for, in this head's 32 dimensions. Unlike the text page, the "
        "projections were learned from data and have a bias b.",
    ),
    "k": _bert_stage(
        "k",
        r"K_h = X W^K_h + b^K_h",
        "What each token offers to be found by. A query and a key that point the same way give a "
        "high score.",
    ),
    "v": _bert_stage(
        "v",
        r"V_h = X W^V_h + b^V_h",
        "What each token passes on when it is attended to. The weights below mix these rows.",
    ),
    "scores": _bert_stage(
        "scores",
        r"S_h = Q_h K_h^\top",
        "How well each query matches each key: one dot product per pair of tokens.",
        title="Scores QKᵀ",
    ),
    "scaled": _bert_stage(
        "scaled",
        r"\tilde S_h = S_h / \sqrt{d_k},\quad d_k = 32",
        "Divided by √32 so the scores stay in a range where softmax does not put all the weight "
        "on one key. BERT uses no mask here: every token may attend to every other.",
    ),
    "weights": _bert_stage(
        "weights",
        r"A_h = \mathrm{softmax}(\tilde S_h)",
        "Each row is how one token spreads its attention over all tokens; it sums to 1. These are "
        "the patterns the trained model really uses.",
        masked=False,  # BERT masks nothing
    ),
    "context": _bert_stage(
        "context",
        r"C_h = A_h V_h",
        "Each token's weighted average of the value rows: what this head hands on. The 12 heads' "
        "contexts are joined and mixed by W^O, then added to X.",
        title="Context vectors",
    ),
}

#: stage -> (function that computed the matrix, core functions it calls)
STAGE_CODE: dict[str, tuple[Callable, ...]] = {
    "q": (attention.project, attention.split_heads),
    "k": (attention.project, attention.split_heads),
    "v": (attention.project, attention.split_heads),
    "scores": (attention.attention_scores,),
    "scaled": (attention.scale_scores,),
    "weights": (attention.softmax,),
    "context": (attention.attention_context,),
}


EMBEDDING_FORMULA = r"X_0 = \mathrm{LN}(E_{\text{word}} + E_{\text{pos}} + E_{\text{type}})"


def layer_stage(name: str, layer: int) -> Stage:
    """The stage of ``name``; layer 1's input X is the embeddings, with their own formula."""
    if name == "x" and layer == 0:
        return replace(STAGES["x"], formula=EMBEDDING_FORMULA)
    return STAGES[name]


def layer_stage_code(name: str, layer: int) -> tuple[Callable, ...]:
    """The code of a stage; X comes from the embeddings (layer 0) or the previous layer."""
    if name == "x":
        return (bert.embed, layers.layer_norm) if layer == 0 else (bert.encoder_layer, layers.gelu)
    return STAGE_CODE[name]


def stage_matrix(steps: BlockTrace, name: str, head: int) -> np.ndarray:
    """The matrix a stage draws from one layer's ``steps``: ``(T, d)`` for X, else one head's."""
    if name == "x":
        return steps.x
    if name in ("q", "k", "v"):
        return getattr(steps, name)[head]
    return getattr(steps.heads, name)[head]
