"""The pretrained page's one table of stages: each model family draws it through its entry in
FAMILY_STAGES, adding, dropping or rewording stages, and every stage reads the same trace."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attention_core.maths import attention, layers, positional
from attention_core.pretrained import bert, loading
from attention_core.pretrained.trace import ModelInfo
from ui.pretrained.stage_table import CODE, ORDER, stage_matrix, table
from ui.pretrained.stages import EMBEDDING_FORMULA, FAMILY_STAGES


def info_of(family: str, n_heads: int = 4, n_kv_heads: int = 4) -> ModelInfo:
    return ModelInfo(
        name=f"tiny-{family}",
        family=family,  # type: ignore[arg-type]
        model_type=family,
        n_layers=2,
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        d_model=32,
        d_head=8,
        vocab_size=96,
        max_positions=64,
        causal=family != "bert",
        positions="rotary" if family == "llama" else "absolute",
        rotary_base=5000.0 if family == "llama" else None,
    )


def test_every_family_draws_the_table_in_its_order_with_its_own_stages() -> None:
    drawn = {
        family: list(FAMILY_STAGES[family].layer_stages(info_of(family), 1))
        for family in ("bert", "gpt2", "llama")
    }
    assert drawn["bert"] == ["x", "q", "k", "v", "scores", "scaled", "weights", "context"]
    assert drawn["gpt2"] == [key for key in table(info_of("gpt2")) if key in ORDER]
    assert drawn["llama"] == list(ORDER)  # RMSNorm, then RoPE's angles, Q' and K'
    assert list(FAMILY_STAGES) == ["bert", "gpt2", "llama"]


def test_a_family_rewords_the_tables_stages_and_layer_one_may_differ() -> None:
    bert_info, gpt2_info = info_of("bert", n_heads=12), info_of("gpt2")
    first, later = (FAMILY_STAGES["bert"].layer_stages(bert_info, layer) for layer in (0, 1))
    assert first["x"].formula == EMBEDDING_FORMULA != later["x"].formula
    assert later["q"].formula == r"Q_h = X W^Q_h + b^Q_h"  # BERT: biases, attention on X
    assert "The 12 heads' contexts" in later["context"].explanation
    gpt2 = FAMILY_STAGES["gpt2"].layer_stages(gpt2_info, 1)
    assert gpt2["k"].formula == r"K_h = N W^K_h + b^{K}_h"
    assert gpt2["k"].explanation == table(gpt2_info)["k"].explanation
    llama = FAMILY_STAGES["llama"].layer_stages(info_of("llama"), 1)
    assert (llama["normed"].title, llama["q"].title) == ("RMSNorm(X)", "Queries Q before RoPE")
    assert llama["angles"].formula == r"\theta_{p,i} = p \cdot 5000^{-2i/8}"


def test_a_stages_code_is_the_tables_with_the_familys_own_and_additions() -> None:
    bert_stages, gpt2, llama = (FAMILY_STAGES[name] for name in ("bert", "gpt2", "llama"))
    assert bert_stages.stage_code("x", 0) == (bert.embed, layers.layer_norm)
    assert bert_stages.stage_code("x", 3) == (bert.encoder_layer, layers.gelu)
    assert bert_stages.stage_code("k", 3) == CODE["k"] == (attention.project, attention.split_heads)
    assert gpt2.stage_code("x", 0) == ()  # a decoder's X has no code of its own
    assert gpt2.stage_code("v", 1) == (*CODE["v"], attention.repeat_kv)
    assert llama.stage_code("normed", 1) == (layers.rms_norm,)
    assert llama.stage_code("q_rotated", 1) == (positional.rotate,)


def test_a_decoder_names_the_key_value_head_each_query_head_reads() -> None:
    grouped = info_of("llama", n_heads=4, n_kv_heads=2)
    caption = FAMILY_STAGES["llama"].step_caption(grouped, 0, 3)
    assert caption.startswith("Layer 1, head 4 of tiny-llama, computed by attention_core")
    assert caption.endswith(
        "Head 4 reads K/V head 2, with heads 3–4: their K and V below are the same."
    )
    assert FAMILY_STAGES["bert"].step_caption(info_of("bert"), 0, 0).endswith("the text page.")


def test_a_registered_family_entry_changes_what_the_step_view_draws() -> None:
    original = FAMILY_STAGES["gpt2"]
    own = replace(
        original,
        formulas={"scores": r"S_h = Q_h K_h^\top / 2"},
        drops=frozenset({"normed"}),
        more_code={"scores": (np.negative,)},
        caption=None,
    )
    FAMILY_STAGES.unregister("gpt2")
    FAMILY_STAGES.register("gpt2", own)
    try:
        entry = FAMILY_STAGES["gpt2"]
        stages = entry.layer_stages(info_of("gpt2"), 1)
        assert "normed" not in stages and stages["scores"].formula.endswith("/ 2")
        assert entry.stage_code("scores", 1) == (attention.attention_scores, np.negative)
        assert entry.step_caption(info_of("gpt2"), 0, 0).endswith("the text page.")
    finally:
        FAMILY_STAGES.unregister("gpt2")
        FAMILY_STAGES.register("gpt2", original)


def test_every_stage_reads_one_array_of_the_trace_every_family_returns() -> None:
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "Stages read one trace.")
    steps = bert.forward(model.weights, encoded.ids, encoded.type_ids).layers[1]
    assert stage_matrix(steps, "x", 5) is steps.x
    assert stage_matrix(steps, "normed", 5) is steps.attention_input  # BERT: X itself
    np.testing.assert_array_equal(stage_matrix(steps, "q_rotated", 5), steps.q[5])
    np.testing.assert_array_equal(stage_matrix(steps, "weights", 5), steps.heads.weights[5])
