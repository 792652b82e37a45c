r"""The stages of attention a page draws: formula, plain words and shape of each matrix.

Every page that shows the path from tokens to context vectors can reuse these
texts, so the same stage is explained the same way everywhere. :func:`stages_for`
takes the formula and words of each chosen option (scaling, mask, normaliser,
combination, positional encoding) from its entry in the core's tables;
:mod:`ui.text.stage_arrays` picks each stage's array (and its code) out of a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import attention_core as ac

# Which token list labels the rows/columns of a stage's matrix.
QUERY_SIDE = "query"  # tokens of the (first) sentence
KEY_SIDE = "key"  # tokens of the key/value sentence (the same one in self-attention)
WIDTH = "width"  # feature columns 0 .. d-1


@dataclass(frozen=True)
class Stage:
    """One matrix of the attention pipeline, as a student sees it.

    ``kind`` picks the heatmap colour scale ('values', 'scores' or 'weights');
    ``rows``/``cols`` say which labels go on the axes (:data:`QUERY_SIDE`,
    :data:`KEY_SIDE` or :data:`WIDTH`); ``per_head`` stages have one matrix per
    head, shape ``(H, rows, cols)`` in the run.
    """

    key: str
    title: str
    symbol: str  #: short name for shape captions, e.g. "Q" (head number appended)
    formula: str  #: LaTeX for st.latex
    explanation: str  #: two plain sentences
    kind: str = "values"
    rows: str = QUERY_SIDE
    cols: str = WIDTH
    per_head: bool = False
    masked: bool = False  #: grey out cells the mask forbids


def _base_stages() -> dict[str, Stage]:
    return {
        "tokens": Stage(
            "tokens",
            "Tokens",
            "tokens",
            r"\text{text} \;\to\; (t_1, t_2, \dots, t_T)",
            "The text is cut into words and punctuation marks, each a token with a position "
            "number. A repeated word gets a small subscript so every row and column below has "
            "its own name.",
        ),
        "x": Stage(
            "x",
            "Token vectors X",
            "X",
            r"X = \big[\,e(t_1); \dots; e(t_T)\,\big] "
            r"\in \mathbb{R}^{T \times d_{\text{model}}}",
            "Each token becomes a row of d_model numbers; the same word always gets the same "
            "row. Attention only ever sees these numbers, never the letters.",
        ),
        "p": Stage("p", "Positional encoding P", "P", "", ""),
        "x_plus_p": Stage(
            "x_plus_p",
            "Input X + P",
            "X+P",
            r"\tilde X = X + P",
            "Adding P tags each word vector with its place in the sentence. Without it, "
            "attention could not tell “dog bites man” from “man bites dog”.",
        ),
        "q": Stage(
            "q",
            "Queries Q",
            "Q",
            r"Q_h = \tilde X\, W^Q_h \in \mathbb{R}^{T \times d_k}",
            "Each row is what one token is looking for, seen through the head's own query matrix. "
            "Different heads can look for different things.",
            per_head=True,
        ),
        "k": Stage(
            "k",
            "Keys K",
            "K",
            r"K_h = \tilde X_{kv}\, W^K_h \in \mathbb{R}^{S \times d_k}",
            "Each row is what one token offers to be found by. A query and a key that point "
            "the same way will give a high score.",
            rows=KEY_SIDE,
            per_head=True,
        ),
        "v": Stage(
            "v",
            "Values V",
            "V",
            r"V_h = \tilde X_{kv}\, W^V_h \in \mathbb{R}^{S \times d_v}",
            "Each row is what a token hands over once it is attended to. Keys decide *how "
            "much* flows, values decide *what* flows.",
            rows=KEY_SIDE,
            per_head=True,
        ),
        "scores": Stage(
            "scores",
            "Raw scores QKᵀ",
            "S",
            r"S_h = Q_h K_h^\top \in \mathbb{R}^{T \times S}",
            "Cell (i, j) is the dot product of query i with key j: large when the two vectors "
            "point the same way. Row i is token i's raw interest in every key.",
            kind="scores",
            rows=QUERY_SIDE,
            cols=KEY_SIDE,
            per_head=True,
        ),
        "scaled": Stage(
            "scaled", "Scaled scores", "S̃", "", "", kind="scores", cols=KEY_SIDE, per_head=True
        ),
        "masked": Stage(
            "masked",
            "Masked scores",
            "Ŝ",
            "",
            "",
            kind="scores",
            cols=KEY_SIDE,
            per_head=True,
            masked=True,
        ),
        "weights": Stage(
            "weights",
            "Attention weights",
            "A",
            "",
            "",
            kind="weights",
            cols=KEY_SIDE,
            per_head=True,
            masked=True,
        ),
        "context": Stage(
            "context",
            "Context vectors C",
            "C",
            r"C_h = A_h V_h \in \mathbb{R}^{T \times d_v}",
            "Each token's new vector is the weighted average of the value rows, using its row "
            "of weights. A token that attends mostly to one key ends up close to that key's value.",
            per_head=True,
        ),
        "concat": Stage(
            "concat",
            "Heads side by side",
            "[C₁…C_H]",
            r"[\,C_1 \;\cdots\; C_H\,] \in \mathbb{R}^{T \times H d_v}",
            "The heads' context vectors are laid next to each other, one block of columns per "
            "head. Nothing is mixed yet.",
        ),
        "output": Stage("output", "Output", "O", "", ""),
        "head_view": Stage(
            "head_view",
            "Head view",
            "A",
            r"\text{width}(i \to j) \propto A^{(h)}_{ij}",
            "Each line joins a query token (left) to a key token (right); the thicker and "
            "darker it is, the more that key counts. One colour per head shows how heads "
            "spread their attention differently.",
            kind="weights",
            cols=KEY_SIDE,
        ),
    }


def chosen_options(config: ac.AttentionConfig) -> dict[str, ac.Option]:
    """The registry entry of each choice in ``config``, by the stage it explains."""
    return {
        "p": ac.POSITIONAL_ENCODINGS[config.positional],
        "scaled": ac.SCALINGS[config.scaling],
        "masked": ac.MASKS[config.mask],
        "weights": ac.NORMALISERS[config.normaliser],
        "output": ac.COMBINATIONS[config.combine],
    }


def stages_for(config: ac.AttentionConfig, cross: bool = False) -> dict[str, Stage]:
    """Every stage, with the formulas and words that match ``config``.

    ``cross``: keys and values come from a second sentence (cross-attention).
    """
    stages = _base_stages()
    chosen = chosen_options(config)
    for key, option in chosen.items():
        stages[key] = replace(stages[key], formula=option.formula, explanation=option.words)
    for option in chosen.values():
        for key, formula in option.formulas.items():
            stages[key] = replace(stages[key], formula=formula)
    if cross:
        note = " In cross-attention these rows come from the second sentence."
        for key in ("k", "v"):
            stages[key] = replace(stages[key], explanation=stages[key].explanation + note)
    return stages


def shape_caption(symbol: str, shape: tuple[int, ...], head: int | None = None) -> str:
    """``"Q₁: 9 × 8"``: a matrix's name (with its head, counted from 1) and shape."""
    name = symbol if head is None else f"{symbol}{_subscript(head + 1)}"
    return f"{name}: {' × '.join(str(n) for n in shape)}"


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def axis_labels(
    side: str, query_labels: Sequence[str], key_labels: Sequence[str], width: int
) -> list[str]:
    """Labels for one axis: the query tokens, the key tokens, or columns ``0 .. width-1``."""
    if side == QUERY_SIDE:
        return list(query_labels)
    if side == KEY_SIDE:
        return list(key_labels)
    return [str(column) for column in range(width)]


def stage_title(stage: Stage, head: int | None = None, second_sentence: bool = False) -> str:
    """``"Queries Q · head 2"``; ``second_sentence`` marks the key/value side of cross-attention."""
    title = stage.title
    if second_sentence:
        title += " · second sentence"
    if head is not None:
        title += f" · head {head + 1}"
    return title


def base_stage(name: str) -> Stage:
    """Stage ``name`` as every page starts from it, before :func:`stages_for` fills in options.

    A page with its own model (the pretrained page) keeps the stage's title, symbol,
    colour scale and axes and replaces only the formula and words.
    """
    return _base_stages()[name]
