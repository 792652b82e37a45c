r"""The stages of one decoder head (GPT-2 or the Llama family): what each matrix is, and its code.

The text page's steps (:func:`ui.shared.stages.base_stage`) with a decoder's formulas:
the normalised input attention reads, the causal mask, and for rotary models the
queries and keys before and after RoPE with the angle of every position and column pair.
Every stage reads one array of a layer's :class:`attention_core.pretrained.trace.BlockTrace`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from attention_core.maths import attention, layers, masks, positional
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from ui.shared.stages import WIDTH, Stage, base_stage


def _stage(name: str, formula: str, explanation: str, **changes: Any) -> Stage:
    return replace(base_stage(name), formula=formula, explanation=explanation, **changes)


# The step view's formula column is about 170 px wide on a 1200 px screen: the longer
# formulas take two lines (KaTeX cuts off what is wider).
def _two_lines(left: str, right: str) -> str:
    """``left = right`` with the right-hand side on a second line."""
    return rf"\begin{{aligned}} &{left} \\ &= {right} \end{{aligned}}"


def _norm(info: ModelInfo) -> tuple[str, str]:
    """The normalisation's name and formula: LayerNorm (GPT-2) or RMSNorm (Llama family)."""
    if info.family == "llama":
        return "RMSNorm", _two_lines(
            r"\mathrm{RMSNorm}(x)", r"g \odot \frac{x}{\sqrt{\overline{x^2} + \epsilon}}"
        )
    return "LayerNorm", _two_lines(
        r"\mathrm{LN}(x)", r"g \odot \frac{x - \bar x}{\sqrt{\sigma^2 + \epsilon}} + b"
    )


def _bias(info: ModelInfo) -> str:
    return " + b^{Q}_h" if info.family == "gpt2" else ""


def decoder_stages(info: ModelInfo) -> dict[str, Stage]:
    """Every stage of one head of ``info``'s model, in the order the step view shows them."""
    norm, norm_formula = _norm(info)
    rotary = info.positions == "rotary"
    d, dk = info.d_model, info.d_head
    stages = {
        "x": _stage(
            "x",
            r"\begin{aligned} X_{l+1} &= X_l + \mathrm{Attn}(\cdot) \\ "
            r"&\quad + \mathrm{MLP}(\cdot) \end{aligned}",
            f"The residual stream as this layer receives it: {d} numbers per token. "
            "Every layer adds what it computes to it.",
            title="Layer input X",
        ),
        "normed": _stage(
            "x",
            norm_formula,
            f"What attention reads: each row of X rescaled by {norm} (pre-norm: "
            "before attention, not after).",
            title=f"{norm}(X)",
            symbol="N",
            key="normed",
        ),
        "q": _stage(
            "q",
            rf"Q_h = N W^Q_h{_bias(info)}",
            f"What each token is looking for, in this head's {dk} dimensions"
            + (", before rotation." if rotary else "."),
            title="Queries Q" + (" before RoPE" if rotary else ""),
        ),
        "k": _stage(
            "k",
            rf"K_h = N W^K_h{_bias(info).replace('Q', 'K')}",
            "What each token offers to be found by" + (", before rotation." if rotary else "."),
            title="Keys K" + (" before RoPE" if rotary else ""),
        ),
    }
    if rotary:
        stages |= _rotary_stages(info)
    stages |= {
        "v": _stage(
            "v",
            rf"V_h = N W^V_h{_bias(info).replace('Q', 'V')}",
            "What each token hands over once attended to. Values are never rotated.",
        ),
        "scores": _stage(
            "scores",
            r"S_h = Q_h K_h^\top",
            "How well each query matches each key"
            + (" after both were rotated: it depends on their distance." if rotary else "."),
        ),
        "scaled": _stage(
            "scaled",
            rf"\tilde S_h = S_h / \sqrt{{{dk}}}",
            f"Divided by √{dk} so softmax does not put all the weight on one key.",
        ),
        "masked": _stage(
            "masked",
            r"\hat S_{ij} = -\infty \text{ for } j > i",
            "The causal mask: a token may not look at tokens after it, because a "
            "decoder predicts the next token from the ones before. Grey cells are "
            "−∞.",
        ),
        "weights": _stage(
            "weights",
            r"A_h = \mathrm{softmax}(\hat S_h)",
            "Each row spreads one token's attention over itself and the tokens "
            "before it; it sums to 1. Masked cells get exactly 0.",
        ),
        "context": _stage(
            "context",
            r"C_h = A_h V_h",
            "Each token's weighted average of the value rows: what this head adds.",
        ),
    }
    return stages


def _rotary_stages(info: ModelInfo) -> dict[str, Stage]:
    """RoPE: the angle of each position and column pair, and Q and K turned by it."""
    base = f"{info.rotary_base:g}"
    turned = (
        r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = R(\theta_{p,i}) "
        r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}"
    )
    return {
        "angles": Stage(
            "angles",
            "RoPE angles θ",
            "θ",
            rf"\theta_{{p,i}} = p \cdot {base}^{{-2i/{info.d_head}}}",
            f"Row p, column i: the angle that turns column pair i of position p "
            f"(base {base}). Early pairs turn fast, late pairs slowly; position 0 is "
            "never turned.",
            cols=WIDTH,
        ),
        "q_rotated": _stage(
            "q",
            rf"\begin{{gathered}} Q'_h = \mathrm{{RoPE}}(Q_h) \\ {turned} \end{{gathered}}",
            "The queries after each column pair of row p is turned by θ(p, i). "
            "A query and a key then score by their contents *and* their distance.",
            title="Queries after RoPE",
            symbol="Q'",
            key="q_rotated",
        ),
        "k_rotated": _stage(
            "k",
            r"K'_h = \mathrm{RoPE}(K_h)",
            "The keys turned the same way, by their own positions.",
            title="Keys after RoPE",
            symbol="K'",
            key="k_rotated",
        ),
    }


def stage_matrix(steps: BlockTrace, name: str, head: int) -> np.ndarray:
    """The matrix a stage draws from one layer's ``steps``: ``(T, d)``, ``(T, dk/2)`` or head
    ``head``'s ``(T, dk)`` / ``(T, T)``."""
    whole = {"x": steps.x, "normed": steps.attention_input, "angles": steps.angles}
    if name in whole:
        return np.asarray(whole[name])
    if name in ("q", "k", "v", "q_rotated", "k_rotated"):
        return getattr(steps, name)[head]
    return getattr(steps.heads, name)[head]


def stage_code(info: ModelInfo, name: str) -> tuple[Callable, ...]:
    """The core functions that computed a stage (first: the one whose result is drawn)."""
    norm = layers.rms_norm if info.family == "llama" else layers.layer_norm
    code: dict[str, tuple[Callable, ...]] = {
        "normed": (norm,),
        "q": (attention.project, attention.split_heads),
        "k": (attention.project, attention.split_heads, attention.repeat_kv),
        "v": (attention.project, attention.split_heads, attention.repeat_kv),
        "angles": (positional.rotary_angles,),
        "q_rotated": (positional.rotate,),
        "k_rotated": (positional.rotate,),
        "scores": (attention.attention_scores,),
        "scaled": (attention.scale_scores,),
        "masked": (attention.mask_scores, masks.causal_mask),
        "weights": (attention.softmax,),
        "context": (attention.attention_context,),
    }
    return code.get(name, ())


def group_sentence(info: ModelInfo, head: int) -> str:
    """Grouped-query attention in words: which K/V head this query head reads, and its group."""
    if info.n_kv_heads == info.n_heads:
        return f"Every one of the {info.n_heads} heads has its own keys and values."
    size = info.n_heads // info.n_kv_heads
    group = attention.kv_group(head, info.n_heads, info.n_kv_heads)
    first, last = group * size + 1, group * size + size
    return (
        f"Grouped-query attention: {info.n_heads} query heads share {info.n_kv_heads} key/value "
        f"heads, {size} each. Head {head + 1} reads K/V head {group + 1}, with heads "
        f"{first}–{last}: their K and V below are the same."
    )
