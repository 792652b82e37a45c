r"""The stages of one head of the pretrained model: what each matrix is, and the code behind it.

The same :class:`ui.shared.stages.Stage` records as the text page, with BERT's biases in
the formulas. :data:`STAGE_CODE` names, per stage, the function that computed the
matrix (first) and the core functions it calls, so "The code" shows what ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from attention_core.maths import attention, layers
from attention_core.pretrained import bert
from ui.shared.stages import KEY_SIDE, QUERY_SIDE, WIDTH, Stage

STAGES = {
    "x": Stage(
        "x",
        "Layer input X",
        "X",
        r"X_{l+1} = \mathrm{LN}(Y + \mathrm{FFN}(Y))",
        "Each row is one token as this layer receives it: 384 learned numbers. Layer 1 gets "
        "the word, position and sentence embeddings; later layers get the previous output.",
        rows=QUERY_SIDE,
        cols=WIDTH,
    ),
    "q": Stage(
        "q",
        "Queries Q",
        "Q",
        r"Q_h = X W^Q_h + b^Q_h",
        "What each token is looking for, in this head's 32 dimensions. Unlike the text page, the "
        "projections were learned from data and have a bias b.",
        rows=QUERY_SIDE,
        per_head=True,
    ),
    "k": Stage(
        "k",
        "Keys K",
        "K",
        r"K_h = X W^K_h + b^K_h",
        "What each token offers to be found by. A query and a key that point the same way give a "
        "high score.",
        rows=KEY_SIDE,
        per_head=True,
    ),
    "v": Stage(
        "v",
        "Values V",
        "V",
        r"V_h = X W^V_h + b^V_h",
        "What each token passes on when it is attended to. The weights below mix these rows.",
        rows=KEY_SIDE,
        per_head=True,
    ),
    "scores": Stage(
        "scores",
        "Scores QKᵀ",
        "S",
        r"S_h = Q_h K_h^\top",
        "How well each query matches each key: one dot product per pair of tokens.",
        kind="scores",
        cols=KEY_SIDE,
        per_head=True,
    ),
    "scaled": Stage(
        "scaled",
        "Scaled scores",
        "S̃",
        r"\tilde S_h = S_h / \sqrt{d_k},\quad d_k = 32",
        "Divided by √32 so the scores stay in a range where softmax does not put all the weight "
        "on one key. BERT uses no mask here: every token may attend to every other.",
        kind="scores",
        cols=KEY_SIDE,
        per_head=True,
    ),
    "weights": Stage(
        "weights",
        "Attention weights",
        "A",
        r"A_h = \mathrm{softmax}(\tilde S_h)",
        "Each row is how one token spreads its attention over all tokens; it sums to 1. These are "
        "the patterns the trained model really uses.",
        kind="weights",
        cols=KEY_SIDE,
        per_head=True,
    ),
    "context": Stage(
        "context",
        "Context vectors",
        "C",
        r"C_h = A_h V_h",
        "Each token's weighted average of the value rows: what this head hands on. The 12 heads' "
        "contexts are joined and mixed by W^O, then added to X.",
        per_head=True,
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


def layer_stage(key: str, layer: int) -> Stage:
    """The stage of ``key``; layer 1's input X is the embeddings, with their own formula."""
    if key == "x" and layer == 0:
        return replace(STAGES["x"], formula=EMBEDDING_FORMULA)
    return STAGES[key]


def layer_stage_code(key: str, layer: int) -> tuple[Callable, ...]:
    """The code of a stage; X comes from the embeddings (layer 0) or the previous layer."""
    if key == "x":
        return (bert.embed, layers.layer_norm) if layer == 0 else (bert.encoder_layer, layers.gelu)
    return STAGE_CODE[key]


def stage_matrix(trace: bert.BertTrace, key: str, layer: int, head: int) -> np.ndarray:
    """The matrix a stage draws: ``(T, d)`` for X, else head ``head`` of layer ``layer``."""
    layer_trace = trace.layers[layer]
    if key == "x":
        return layer_trace.x
    if key in ("q", "k", "v"):
        return getattr(layer_trace, key)[head]
    return getattr(layer_trace.heads, key)[head]
