r"""Each model family's step view, registered once: what it adds to or changes in the one table
of stages (:mod:`ui.pretrained.stage_table`).

- **BERT** (post-LayerNorm, biased projections, no mask): attention reads X itself, so there
  is no N and no masked step; its own words for every stage, and layer 1's X is the
  embeddings (:data:`EMBEDDING_FORMULA`).
- **GPT-2**: the table's pre-LayerNorm decoder, with biases on Q, K and V.
- **Llama family**: RMSNorm, and RoPE's stages: the angle of every position and column pair,
  then Q and K turned by it.

Every decoder shows how its query heads share key/value heads (:func:`group_sentence`).
A new family is one ``FAMILY_STAGES.register(family, FamilyStages(...))``: the page reads
the entry of ``ModelInfo.family``.
"""

from __future__ import annotations

from dataclasses import replace

from attention_core.boundary.registry import Table
from attention_core.maths import attention, layers, positional
from attention_core.pretrained import bert
from attention_core.pretrained.trace import ModelInfo
from ui.pretrained.stage_table import FamilyStages, normed_stage, page_stage, two_lines
from ui.shared.stages import WIDTH, Stage

#: How each model family (``ModelInfo.family``) draws the table of stages.
FAMILY_STAGES: Table[FamilyStages] = Table("model family")

EMBEDDING_FORMULA = r"X_0 = \mathrm{LN}(E_{\text{word}} + E_{\text{pos}} + E_{\text{type}})"


def bert_stages(info: ModelInfo) -> dict[str, Stage]:
    """BERT's words for each stage: Q, K, V with biases, attention on X itself, no mask."""
    d, dk, n_heads = info.d_model, info.d_head, info.n_heads
    return {
        "x": page_stage(
            "x",
            r"X_{l+1} = \mathrm{LN}(Y + \mathrm{FFN}(Y))",
            f"Each row is one token as this layer receives it: {d} learned numbers. Layer 1 "
            "gets the word, position and sentence embeddings; later layers get the previous "
            "output.",
            title="Layer input X",
        ),
        "q": page_stage(
            "q",
            r"Q_h = X W^Q_h + b^Q_h",
            f"What each token is looking for, in this head's {dk} dimensions. Unlike the text "
            "page, the projections were learned from data and have a bias b.",
        ),
        "k": page_stage(
            "k",
            r"K_h = X W^K_h + b^K_h",
            "What each token offers to be found by. A query and a key that point the same way "
            "give a high score.",
        ),
        "v": page_stage(
            "v",
            r"V_h = X W^V_h + b^V_h",
            "What each token passes on when it is attended to. The weights below mix these rows.",
        ),
        "scores": page_stage(
            "scores",
            r"S_h = Q_h K_h^\top",
            "How well each query matches each key: one dot product per pair of tokens.",
            title="Scores QKᵀ",
        ),
        "scaled": page_stage(
            "scaled",
            rf"\tilde S_h = S_h / \sqrt{{d_k}},\quad d_k = {dk}",
            f"Divided by √{dk} so the scores stay in a range where softmax does not put all "
            "the weight on one key. BERT uses no mask here: every token may attend to every "
            "other.",
        ),
        "weights": page_stage(
            "weights",
            r"A_h = \mathrm{softmax}(\tilde S_h)",
            "Each row is how one token spreads its attention over all tokens; it sums to 1. "
            "These are the patterns the trained model really uses.",
            masked=False,  # BERT masks nothing
        ),
        "context": page_stage(
            "context",
            r"C_h = A_h V_h",
            f"Each token's weighted average of the value rows: what this head hands on. The "
            f"{n_heads} heads' contexts are joined and mixed by W^O, then added to X.",
            title="Context vectors",
        ),
    }


FAMILY_STAGES.register(
    "bert",
    FamilyStages(
        stages=bert_stages,
        drops=frozenset({"normed", "masked"}),  # post-LayerNorm, and no mask
        first_layer={"x": EMBEDDING_FORMULA},
        code={"x": (bert.encoder_layer, layers.gelu)},  # X is the previous layer's output
        first_code={"x": (bert.embed, layers.layer_norm)},
    ),
)


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


#: What every decoder adds: K and V repeated for the query heads that share them, and a
#: caption naming the K/V head each query head reads.
DECODER = FamilyStages(
    more_code={"k": (attention.repeat_kv,), "v": (attention.repeat_kv,)},
    caption=group_sentence,
)

FAMILY_STAGES.register(
    "gpt2",
    replace(
        DECODER,
        formulas={
            "q": r"Q_h = N W^Q_h + b^{Q}_h",
            "k": r"K_h = N W^K_h + b^{K}_h",
            "v": r"V_h = N W^V_h + b^{V}_h",
        },
    ),
)


def llama_stages(info: ModelInfo) -> dict[str, Stage]:
    """RMSNorm, and RoPE: the angle of each position and column pair, Q and K before and after
    it turns them, and scores that depend on the distance."""
    base, dk = f"{info.rotary_base:g}", info.d_head
    turned = (
        r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = R(\theta_{p,i}) "
        r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}"
    )
    return {
        "normed": normed_stage(
            "RMSNorm",
            two_lines(
                r"\mathrm{RMSNorm}(x)", r"g \odot \frac{x}{\sqrt{\overline{x^2} + \epsilon}}"
            ),
        ),
        "q": page_stage(
            "q",
            r"Q_h = N W^Q_h",
            f"What each token is looking for, in this head's {dk} dimensions, before rotation.",
            title="Queries Q before RoPE",
        ),
        "k": page_stage(
            "k",
            r"K_h = N W^K_h",
            "What each token offers to be found by, before rotation.",
            title="Keys K before RoPE",
        ),
        "angles": Stage(
            "angles",
            "RoPE angles θ",
            "θ",
            rf"\theta_{{p,i}} = p \cdot {base}^{{-2i/{dk}}}",
            f"Row p, column i: the angle that turns column pair i of position p "
            f"(base {base}). Early pairs turn fast, late pairs slowly; position 0 is "
            "never turned.",
            cols=WIDTH,
        ),
        "q_rotated": page_stage(
            "q",
            rf"\begin{{gathered}} Q'_h = \mathrm{{RoPE}}(Q_h) \\ {turned} \end{{gathered}}",
            "The queries after each column pair of row p is turned by θ(p, i). "
            "A query and a key then score by their contents *and* their distance.",
            title="Queries after RoPE",
            symbol="Q'",
            key="q_rotated",
        ),
        "k_rotated": page_stage(
            "k",
            r"K'_h = \mathrm{RoPE}(K_h)",
            "The keys turned the same way, by their own positions.",
            title="Keys after RoPE",
            symbol="K'",
            key="k_rotated",
        ),
        "scores": page_stage(
            "scores",
            r"S_h = Q_h K_h^\top",
            "How well each query matches each key after both were rotated: it depends on "
            "their distance.",
        ),
    }


FAMILY_STAGES.register(
    "llama",
    replace(
        DECODER,
        stages=llama_stages,
        code={
            "normed": (layers.rms_norm,),
            "angles": (positional.rotary_angles,),
            "q_rotated": (positional.rotate,),
            "k_rotated": (positional.rotate,),
        },
    ),
)
