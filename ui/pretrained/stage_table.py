r"""The step view's one table of stages for every model family: what each matrix is, where a
layer's trace keeps it, and the code that computed it.

:func:`table` is the table as a pre-norm decoder layer fills it (the layer's input X, what
attention reads N, Q, K, V, the scores, scaled, masked, the weights and the context), its
texts sized to the model's :class:`~attention_core.pretrained.trace.ModelInfo`, the text
page's steps (:func:`ui.shared.stages.base_stage`) with a pretrained model's formulas. A
family draws it through its :class:`FamilyStages` entry in
:data:`ui.pretrained.stages.FAMILY_STAGES`, registered once as the core registers its
options: the stages it adds (RoPE's angles and turned Q and K), the ones it has not (BERT
normalises after attention and masks nothing), its own words for the others (BERT's biases
and post-LayerNorm formulas), the code it adds (grouped K/V heads) and a sentence for the
caption. Every stage reads one array of the trace every family returns,
:class:`~attention_core.pretrained.trace.BlockTrace` (:func:`stage_matrix`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from attention_core.maths import attention, layers, masks
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from ui.shared.stages import Stage, base_stage

#: Every stage any family draws, in the order the step view shows them; a family's own
#: stages (RoPE's) take their place here.
ORDER = (
    "x",
    "normed",
    "q",
    "k",
    "angles",
    "q_rotated",
    "k_rotated",
    "v",
    "scores",
    "scaled",
    "masked",
    "weights",
    "context",
)


def page_stage(name: str, formula: str, explanation: str, **changes: Any) -> Stage:
    """The text page's stage ``name`` (symbol, colour scale, axes) with this page's formula
    and words, and any other field in ``changes`` (title, symbol, key …)."""
    return replace(base_stage(name), formula=formula, explanation=explanation, **changes)


# The step view's formula column is about 170 px wide on a 1200 px screen: the longer
# formulas take two lines (KaTeX cuts off what is wider).
def two_lines(left: str, right: str) -> str:
    """``left = right`` with the right-hand side on a second line."""
    return rf"\begin{{aligned}} &{left} \\ &= {right} \end{{aligned}}"


def normed_stage(norm: str, formula: str) -> Stage:
    """N, what a pre-norm layer's attention reads: X rescaled by ``norm`` ("LayerNorm")."""
    return page_stage(
        "x",
        formula,
        f"What attention reads: each row of X rescaled by {norm} (pre-norm: "
        "before attention, not after).",
        title=f"{norm}(X)",
        symbol="N",
        key="normed",
    )


def table(info: ModelInfo) -> dict[str, Stage]:
    """The stages of one head of a pre-norm decoder layer, for ``info``'s sizes (no RoPE)."""
    d, dk = info.d_model, info.d_head
    return {
        "x": page_stage(
            "x",
            r"\begin{aligned} X_{l+1} &= X_l + \mathrm{Attn}(\cdot) \\ "
            r"&\quad + \mathrm{MLP}(\cdot) \end{aligned}",
            f"The residual stream as this layer receives it: {d} numbers per token. "
            "Every layer adds what it computes to it.",
            title="Layer input X",
        ),
        "normed": normed_stage(
            "LayerNorm",
            two_lines(
                r"\mathrm{LN}(x)", r"g \odot \frac{x - \bar x}{\sqrt{\sigma^2 + \epsilon}} + b"
            ),
        ),
        "q": page_stage(
            "q",
            r"Q_h = N W^Q_h",
            f"What each token is looking for, in this head's {dk} dimensions.",
        ),
        "k": page_stage("k", r"K_h = N W^K_h", "What each token offers to be found by."),
        "v": page_stage(
            "v",
            r"V_h = N W^V_h",
            "What each token hands over once attended to. Values are never rotated.",
        ),
        "scores": page_stage(
            "scores", r"S_h = Q_h K_h^\top", "How well each query matches each key."
        ),
        "scaled": page_stage(
            "scaled",
            rf"\tilde S_h = S_h / \sqrt{{{dk}}}",
            f"Divided by √{dk} so softmax does not put all the weight on one key.",
        ),
        "masked": page_stage(
            "masked",
            r"\hat S_{ij} = -\infty \text{ for } j > i",
            "The causal mask: a token may not look at tokens after it, because a "
            "decoder predicts the next token from the ones before. Grey cells are "
            "−∞.",
        ),
        "weights": page_stage(
            "weights",
            r"A_h = \mathrm{softmax}(\hat S_h)",
            "Each row spreads one token's attention over itself and the tokens "
            "before it; it sums to 1. Masked cells get exactly 0.",
        ),
        "context": page_stage(
            "context",
            r"C_h = A_h V_h",
            "Each token's weighted average of the value rows: what this head adds.",
        ),
    }


#: stage -> the core functions that computed it (first: the one whose result is drawn)
CODE: dict[str, tuple[Callable, ...]] = {
    "normed": (layers.layer_norm,),
    "q": (attention.project, attention.split_heads),
    "k": (attention.project, attention.split_heads),
    "v": (attention.project, attention.split_heads),
    "scores": (attention.attention_scores,),
    "scaled": (attention.scale_scores,),
    "masked": (attention.mask_scores, masks.causal_mask),
    "weights": (attention.softmax,),
    "context": (attention.attention_context,),
}


def _nothing(info: ModelInfo) -> Mapping[str, Stage]:
    return {}


@dataclass(frozen=True)
class FamilyStages:
    """How one model family's step view differs from :func:`table`, so the page asks the
    family's entry instead of testing its name.

    ``stages(info)``: its own stages by key, new ones (RoPE's) in their place in
    :data:`ORDER` or its own version of the table's; ``formulas``: the table's formulas it
    rewrites (stage key -> LaTeX: GPT-2's biases); ``drops``: the table's stages it does not
    have; ``first_layer``: layer 1's own formulas (stage key -> LaTeX: BERT's X is its
    embeddings). ``code``: a stage's code where the family's differs from :data:`CODE`
    (stage key -> functions, first the one whose result is drawn), ``first_code`` layer 1's;
    ``more_code``: functions it adds to a stage's code (grouped K/V heads' ``repeat_kv``);
    ``caption(info, head)``: a sentence after the step view's caption, None for none.
    """

    stages: Callable[[ModelInfo], Mapping[str, Stage]] = _nothing
    formulas: Mapping[str, str] = field(default_factory=dict)
    drops: frozenset[str] = frozenset()
    first_layer: Mapping[str, str] = field(default_factory=dict)
    code: Mapping[str, tuple[Callable, ...]] = field(default_factory=dict)
    first_code: Mapping[str, tuple[Callable, ...]] = field(default_factory=dict)
    more_code: Mapping[str, tuple[Callable, ...]] = field(default_factory=dict)
    caption: Callable[[ModelInfo, int], str] | None = None

    def layer_stages(self, info: ModelInfo, layer: int) -> dict[str, Stage]:
        """Every stage the step view draws of layer ``layer`` (0-based), in :data:`ORDER`."""
        stages = table(info) | dict(self.stages(info))
        rewritten = {**self.formulas, **(self.first_layer if layer == 0 else {})}
        for key, formula in rewritten.items():
            stages[key] = replace(stages[key], formula=formula)
        return {key: stages[key] for key in ORDER if key in stages and key not in self.drops}

    def stage_code(self, key: str, layer: int) -> tuple[Callable, ...]:
        """The functions that computed stage ``key`` of layer ``layer`` (first: the one whose
        result is drawn; none for X of a decoder)."""
        own = self.first_code if layer == 0 and key in self.first_code else self.code
        return own.get(key, CODE.get(key, ())) + self.more_code.get(key, ())

    def step_caption(self, info: ModelInfo, layer: int, head: int) -> str:
        """The caption above the step view: which head of which model, and the family's own."""
        said = (
            f"Layer {layer + 1}, head {head + 1} of {info.name}, computed by attention_core: "
            "the same functions, step views and figures as the text page."
        )
        return said if self.caption is None else f"{said} {self.caption(info, head)}"


#: The stages that read one array of the whole layer; every other stage reads one head's.
WHOLE_LAYER = {"x": "x", "normed": "attention_input", "angles": "angles"}
#: The stages kept per head in the layer's trace itself; the rest are its heads' (scores …).
PER_HEAD = ("q", "k", "v", "q_rotated", "k_rotated")


def stage_matrix(steps: BlockTrace, key: str, head: int) -> np.ndarray:
    """The matrix stage ``key`` draws of one layer's ``steps``: ``(T, d)``, ``(T, dk/2)`` or
    head ``head``'s ``(T, dk)`` / ``(T, T)``."""
    if key in WHOLE_LAYER:
        return np.asarray(getattr(steps, WHOLE_LAYER[key]))
    if key in PER_HEAD:
        return getattr(steps, key)[head]
    return getattr(steps.heads, key)[head]
