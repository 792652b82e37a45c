"""The pretrained-model page (AppTest): every view draws the numbers the core computed,
"The code" is the code that computed them, and the forward pass runs once per input."""

from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core.maths import attention
from attention_core.pretrained import bert, head_measures, loading, rollout
from tests.plotly_specs import charts, decode, figure_titled, figures
from tests.views.expanders import CODE, open_expanders
from tests.views.pretrained_pages import PAGE, PLOTLY, PRESENTED, drawn_sizes, page, sizes_of
from ui.figures.style import NORMAL
from ui.pretrained import passes
from ui.pretrained.stages import FAMILY_STAGES
from ui.shared.safe import unescape_markdown

ROOT = Path(__file__).resolve().parents[2]
GUIDED = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module")
def model() -> loading.PretrainedModel:
    return loading.load_model()


def trace_for(model: loading.PretrainedModel, text: str, pair: str | None = None):
    encoded = loading.encode(model.tokenizer, text, pair)
    return encoded, bert.forward(model.weights, encoded.ids, encoded.type_ids)


def z_of(spec: dict, index: int = 0) -> np.ndarray:
    return decode(spec["data"][index]["z"]).reshape(-1)


def test_the_guided_table_lists_the_two_heads_it_measures(model) -> None:
    at = page()
    table = at.dataframe[0].value
    assert table["layer"].tolist() == [4, 6]
    assert table["head"].tolist() == [2, 12]
    encoded, trace = trace_for(model, GUIDED)
    it, animal = encoded.tokens.index("it"), encoded.tokens.index("animal")
    expected = [
        round(float(trace.weights[3, 1, it, animal]), 3),
        round(float(trace.weights[5, 11, it, animal]), 3),
    ]
    assert table["weight it → animal"].tolist() == expected == [0.677, 0.673]
    assert [
        plot["layout"]["title"]["text"]
        for plot in map(json.loads, (c.proto.spec for c in at.get("plotly_chart")))
    ] == [
        "Layer 4 · head 2: it → animal 0.68",
        "Layer 6 · head 12: it → animal 0.67",
    ]
    assert any("not explanations" in block.value for block in at.markdown)


def test_every_step_draws_what_its_code_computes(model) -> None:
    text = "The cat sat on the mat because it was warm."
    at = page(text=text, view="Every step", layer="2", head="5")
    _encoded, trace = trace_for(model, text)
    layer = trace.layers[1]
    n_heads, head = 12, 4
    recomputed = {
        "x": bert.encoder_layer(trace.layers[0].x, model.weights.layers[0], n_heads, 1e-12).output,
        "q": attention.project(
            layer.x, model.weights.layers[1].w_q, n_heads, model.weights.layers[1].b_q
        )[head],
        "k": attention.project(
            layer.x, model.weights.layers[1].w_k, n_heads, model.weights.layers[1].b_k
        )[head],
        "v": attention.project(
            layer.x, model.weights.layers[1].w_v, n_heads, model.weights.layers[1].b_v
        )[head],
        "scores": attention.attention_scores(layer.q, layer.k)[head],
        "scaled": attention.scale_scores(layer.heads.scores, 1 / math.sqrt(32))[head],
        "weights": attention.softmax(layer.heads.scaled)[head],
        "context": attention.attention_context(layer.heads.weights, layer.v)[head],
    }
    codes = [block.value for block in open_expanders(at, CODE).code]
    info, family = bert.from_weights(model.weights).info, FAMILY_STAGES["bert"]
    stages = family.layer_stages(info, 1)
    assert list(stages) == ["x", "q", "k", "v", "scores", "scaled", "weights", "context"]
    for key, step in stages.items():
        title = f"{step.title} · layer 2" if key == "x" else f"{step.title} · layer 2 · head 5"
        drawn = z_of(figure_titled(at, title))
        np.testing.assert_allclose(drawn, recomputed[key].reshape(-1), rtol=0, atol=1e-6)
        first = family.stage_code(key, 1)[0]
        assert inspect.getsource(first).rstrip() in [code.rstrip() for code in codes]
    assert family.stage_code("weights", 1) == (attention.softmax,)
    assert family.stage_code("x", 0)[0] is bert.embed


def test_model_view_and_opened_head_draw_the_forward_pass(model) -> None:
    text = "Where is the bank?"
    at = page(text=text, view="Model view", layer="3", head="7")
    _encoded, trace = trace_for(model, text)
    grid = figure_titled(at, "Model view")
    assert len(grid["data"]) == 72
    for index in (0, 30, 71):
        np.testing.assert_allclose(
            z_of(grid, index), trace.weights.reshape(72, -1)[index], atol=1e-6
        )
    opened = figure_titled(at, "Attention weights · layer 3 · head 7")
    np.testing.assert_allclose(z_of(opened), trace.weights[2, 6].reshape(-1), atol=1e-6)


def test_a_long_input_is_cut_with_a_message_and_the_model_view_pooled(model) -> None:
    at = page(text="word " * 300, view="Model view")
    assert any("only the first 128 are used" in warning.value for warning in at.warning)
    grid = figure_titled(at, "Model view")
    assert z_of(grid, 0).size == 32 * 32
    assert any("pooled into 32 runs" in caption.value for caption in at.caption)


def test_head_summary_shows_clark_measures_of_every_head(model) -> None:
    text = "Hello, world. How are you?"
    at = page(text=text, view="Head summary", preset="heads that look at the previous token")
    table = at.dataframe[0].value
    encoded, trace = trace_for(model, text)
    measures = head_measures.head_measures(trace.weights, encoded.tokens)
    assert len(table) == 72
    previous = table["→ previous"].to_numpy()
    assert np.all(np.diff(previous) <= 0)  # the preset sorts by it
    top = table.iloc[0]
    layer, head = int(top["layer"]) - 1, int(top["head"]) - 1
    assert top["→ previous"] == round(float(measures["previous"].max()), 3)
    assert top["entropy"] == round(float(measures["entropy"][layer, head]), 3)
    assert top["→ [SEP]"] == round(float(measures["sep"][layer, head]), 3)


def test_rollout_draws_abnar_zuidema_rollout(model) -> None:
    text = "The cat sat on the mat."
    at = page(text=text, view="Rollout", layer="6")
    _encoded, trace = trace_for(model, text)
    drawn = z_of(figure_titled(at, "Attention rollout · layers 1–6"))
    np.testing.assert_allclose(
        drawn, rollout.attention_rollout(trace.weights)[5].reshape(-1), atol=1e-6
    )


def test_a_pair_is_joined_with_sep_and_token_types(model) -> None:
    at = page(text="Is it raining?", pair="true", text2="Yes.", view="Head view", query="2")
    assert any("9 WordPiece tokens" in caption.value for caption in at.caption)
    assert figure_titled(at, "Head view · layer 4 · from “it”")


@pytest.mark.parametrize("text", ["", "   ", "\u200b\u200b"])
def test_empty_input_gets_a_message(text: str) -> None:
    at = page(text=text)
    assert any("empty" in error.value for error in at.error)


def test_changing_layer_head_or_query_does_not_rerun_the_forward_pass(monkeypatch) -> None:
    calls = []
    original = passes.slim_forward

    def counting(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(passes, "slim_forward", counting)
    at = page(text="A sentence used only by this test, 7f3a.", view="Every step")
    assert len(calls) == 1
    at.selectbox(key="layer").set_value(6).run()
    at.selectbox(key="head").set_value(11).run()
    at.selectbox(key="query").set_value(3).run()
    assert not at.exception
    assert len(calls) == 1
    assert figure_titled(at, "Attention weights · layer 6 · head 11")


def test_the_page_imports_neither_torch_nor_transformers() -> None:
    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({PAGE!r}, default_timeout=60).run()\n"
        "assert not at.exception, at.exception\n"
        "assert len(at.get('plotly_chart')) == 2\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_a_link_with_a_layer_the_model_lacks_is_named_and_ignored() -> None:
    at = page(layer="9", view="Every step")
    assert at.selectbox(key="layer").value == 4
    assert any("layer" in warning.value for warning in at.warning)
    assert figure_titled(at, "Attention weights · layer 4 · head 2")


def test_presentation_mode_enlarges_the_figures() -> None:
    normal = page(view="Rollout")
    presenting = AppTest.from_file(PAGE, default_timeout=60)
    presenting.session_state["present"] = True
    presenting.query_params["view"] = "Rollout"
    presenting.run()
    assert not presenting.exception
    for at in (normal, presenting):  # the walkable matrix, and the plotly heatmap under it
        open_expanders(at, PLOTLY)
        assert [spec["layout"]["title"]["text"] for spec in figures(at)] == [
            "Attention rollout · layers 1–4"
        ] * 2
    assert drawn_sizes(normal) == sizes_of(NORMAL)
    assert drawn_sizes(presenting) == PRESENTED  # title 24 px, text 20 px, cells 40 px


def test_weights_that_fail_the_hash_check_stop_the_page_with_a_message(monkeypatch) -> None:
    import streamlit as st

    monkeypatch.setattr(loading, "WEIGHTS_SHA256", "0" * 64)
    st.cache_resource.clear()  # the model the other tests loaded would hide the check
    try:
        at = page()
        shown = [unescape_markdown(error.value) for error in at.error]  # unescaped
        assert shown[0].startswith("model.safetensors is not the official all-MiniLM-L6-v2")
        assert not charts(at)
    finally:
        st.cache_resource.clear()


def test_head_view_draws_each_weight_of_the_query_row(model) -> None:
    text = "Is it raining?"
    at = page(text=text, view="Head view", layer="5", heads=["3", "9"], query="2")
    encoded, trace = trace_for(model, text)
    figure = figure_titled(at, "Head view · layer 5 · from “it”")
    drawn = {
        text
        for trace_data in figure["data"]
        for text in trace_data.get("text") or []
        if text and text.startswith("head ")
    }
    labels = encoded.labels
    expected = {
        f"head {head + 1}: it → {labels[key]}<br>weight {trace.weights[4, head, 2, key]:.3f}"
        for head in (2, 8)
        for key in range(len(labels))
        if trace.weights[4, head, 2, key] > 0.01  # head_view's MIN_WEIGHT
    }
    assert drawn == expected
    assert len(expected) >= 4


def test_the_guided_tab_says_it_keeps_its_own_sentence() -> None:
    at = page(text="Something else entirely.")
    assert any("always uses the guided sentence" in caption.value for caption in at.caption)
    assert at.dataframe[0].value["layer"].tolist() == [4, 6]
