"""The pretrained page with decoders from this server's models folder (AppTest).

Tiny random GPT-2 and Llama checkpoints (grouped K/V heads, RoPE base 5000) are saved the
way the Hub serves them into a folder named by ``ATTENTION_MODELS_DIR``. Each view must
draw the numbers the core computes for that model: the causal mask, RoPE before and
after, the group of K/V heads, next-token ranks, the copying scores and the score split.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core.pretrained import (
    bert,
    circuits,
    load_checkpoint,
    loading,
    predictions,
)
from attention_core.pretrained.head_split import head_score_split
from attention_core.pretrained.slim import layer_steps, slim_forward
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model
from tests.plotly_specs import charts, decode, figure_titled
from tests.views.expanders import open_expanders
from tests.views.pretrained_pages import (
    PAGE,
    PLOTLY,
    PRESENTED,
    WALK_ONE,
    drawn_sizes,
    fresh_model_menu,
    markdown,
    page,
    unescaped,
)

TEXT = "w1 w2 w3 w4 w5 w1 w2 w3 w4"
GUIDED = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module", autouse=True)
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    for name in ("gpt2", "llama"):
        save_model(CONFIGS[name], root / name)
    broken = root / "broken"
    save_model(CONFIGS["gpt2"], broken)
    config = json.loads((broken / "config.json").read_text())
    (broken / "config.json").write_text(json.dumps(config | {"model_type": "t5"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_MODELS_DIR", str(root))
        patch.setenv("ATTENTION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        fresh_model_menu()
        yield root
        fresh_model_menu()


def loaded(models_dir: Path, name: str, text: str = TEXT):
    checkpoint = load_checkpoint(models_dir / name)
    tokens = checkpoint.tokenize(text)
    return checkpoint, tokens, slim_forward(checkpoint.model, tokens.ids)


def z_of(spec: dict, index: int = 0) -> np.ndarray:
    return decode(spec["data"][index]["z"]).reshape(-1)


def test_the_menu_offers_the_bundled_model_and_every_good_local_checkpoint() -> None:
    at = page()
    menu = at.selectbox(key="model")
    assert menu.options == ["all-MiniLM-L6-v2", "local:broken", "local:gpt2", "local:llama"]
    assert "BERT-style encoder" in markdown(at)


def test_a_checkpoint_of_another_family_is_refused_with_a_message() -> None:
    at = page(model="local:broken")
    message = unescaped(at.error[0].value)
    assert message.startswith("local:broken cannot be loaded: The model type 't5' is not supported")
    assert "gpt2 (GPT-2)" in message


def test_a_link_opens_a_decoder_with_its_own_sizes(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, layer="2", head="3")
    assert "Llama-family decoder" in markdown(at) and "2 key/value heads" in markdown(at)
    assert at.selectbox(key="layer").options == ["1", "2", "3"]
    assert at.selectbox(key="head").options == ["1", "2", "3", "4"]
    assert at.selectbox(key="layer").value == 2 and at.selectbox(key="head").value == 3
    assert "pair" not in [toggle.key for toggle in at.toggle]  # no sentence pair for a decoder


def test_every_step_of_a_rotary_head_draws_the_core_numbers(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Every step", layer="2", head="4")
    checkpoint, _, slim = loaded(models_dir, "llama")
    steps = layer_steps(checkpoint.model, slim, 1)
    head = 3
    drawn = {
        "Queries Q before RoPE · layer 2 · head 4": steps.q[head],
        "Keys K before RoPE · layer 2 · head 4": steps.k[head],
        "RoPE angles θ · layer 2": steps.angles,
        "Queries after RoPE · layer 2 · head 4": steps.q_rotated[head],
        "Keys after RoPE · layer 2 · head 4": steps.k_rotated[head],
        "Attention weights · layer 2 · head 4": steps.heads.weights[head],
    }
    for title, expected in drawn.items():
        shown = z_of(figure_titled(at, title))
        allowed = ~np.isnan(shown)
        np.testing.assert_allclose(shown[allowed], expected.reshape(-1)[allowed], atol=1e-6)
    weights = z_of(figure_titled(at, "Attention weights · layer 2 · head 4")).reshape(9, 9)
    assert np.isnan(weights[np.triu_indices(9, 1)]).all()  # the causal mask, greyed
    assert "Head 4 reads K/V head 2, with heads 3–4" in markdown(at)


def test_next_token_ranks_are_the_models(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Next token", query="3: w4")
    checkpoint, tokens, _ = loaded(models_dir, "gpt2")
    ranks, _ = predictions.rank_of_next(checkpoint.forward(tokens.ids).logits, tokens.ids)
    table = at.dataframe[0].value
    assert list(table["its rank"].dropna().astype(int)) == list(ranks)
    assert "median rank" in markdown(at) and "After “w4” (position 3" in unescaped(markdown(at))
    assert charts(at)  # the query's guesses as a bar chart


def test_an_encoder_says_it_has_no_next_token() -> None:
    at = page(view="Next token")
    assert "is an encoder" in at.info[0].value


def test_heads_that_copy_are_scored_on_a_repeated_random_sequence(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Heads that copy", detector="induction")
    checkpoint = load_checkpoint(models_dir / "gpt2")
    ids = circuits.repeated_sequence(np.random.default_rng(0), 96, 40, avoid=[], bos=None)
    expected = circuits.detect_heads(slim_forward(checkpoint.model, ids).weights, 40)
    shown = z_of(figure_titled(at, "Induction score of every head"))
    np.testing.assert_allclose(shown, expected["induction"].reshape(-1), atol=1e-6)
    layer, head, _ = circuits.strongest(expected["induction"], 1)[0]
    at.button(key=f"copy_open_{layer}_{head}").click().run()
    assert at.selectbox(key="layer").value == layer + 1
    assert at.selectbox(key="head").value == head + 1
    assert figure_titled(at, f"Head view · layer {layer + 1}")  # the head view is open


def test_why_a_gpt2_head_attends_sums_to_its_scores(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Why a head attends", layer="2", head="1")
    checkpoint, _, slim = loaded(models_dir, "gpt2")
    split, _ = head_score_split(checkpoint.model, slim, 1, 0)
    spec = figure_titled(at, "The parts of layer 2 · head 1")
    total = sum(np.nan_to_num(decode(trace["z"]).reshape(-1)) for trace in spec["data"])
    scores = layer_steps(checkpoint.model, slim, 1).heads.scores[0].reshape(-1)
    allowed = np.tril(np.ones((9, 9), dtype=bool)).reshape(-1)
    np.testing.assert_allclose(total[allowed], scores[allowed], rtol=1e-4, atol=1e-4)
    assert split is not None and re.search(r"The largest part is \*\*", markdown(at))


def test_a_rotary_model_explains_why_its_score_has_no_position_part() -> None:
    at = page(model="local:llama", text=TEXT, view="Why a head attends")
    assert "RoPE turns each query and key" in at.info[0].value


def test_the_guided_decoder_chapter_measures_copying(models_dir: Path) -> None:
    at = page(model="local:gpt2", view="Guided example")
    assert "Where looking back gives the real next token" in markdown(at)
    assert figure_titled(at, "layer ")  # the strongest induction head's lines


def test_a_model_the_server_does_not_offer_is_named_and_ignored() -> None:
    at = page(model="<b>nope</b>")
    assert at.selectbox(key="model").value == "all-MiniLM-L6-v2"
    assert any("model=<b>nope</b>" in unescaped(warning.value) for warning in at.warning)


def test_a_decoders_head_summary_leaves_out_what_it_cannot_have(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Head summary")
    columns = list(at.dataframe[0].value.columns)
    assert "→ [CLS]" not in columns and "→ [SEP]" not in columns and "→ next" not in columns
    assert "→ previous" in columns
    assert not [p for p in at.selectbox(key="preset").options if "[SEP]" in p or "next" in p]
    assert "log(t + 1)" in markdown(at)


def test_a_decoder_asks_for_its_next_token_guess_and_its_induction_head(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, query="2: w3")
    checkpoint, tokens, _ = loaded(models_dir, "gpt2")
    top_ids, _ = predictions.top_next(checkpoint.forward(tokens.ids).logits)
    best = checkpoint.tokenizer.whole.id_to_token(int(top_ids[2, 0]))
    prompts = [unescaped(block.value) for block in at.markdown]
    assert (
        f"Which token does the model think most likely to come after “{tokens.labels[2]}”?"
        in prompts
    )
    assert "Which head has the highest induction score?" in prompts
    box = at.selectbox(key=next(b.key for b in at.selectbox if "next-token" in b.key))
    assert best in box.options


@pytest.mark.parametrize("view", ["Next token", "Why a head attends", "Heads that copy"])
def test_the_new_views_take_the_bundled_encoders_sentence_pair(view: str) -> None:
    at = page(view=view, pair="true", layer="1")
    if view == "Next token":
        assert "is an encoder" in at.info[0].value
    elif view == "Why a head attends":
        assert "switch the sentence pair off" in unescaped(at.info[0].value)
    else:
        assert figure_titled(at, "Previous token score of every head")


def test_why_a_bert_head_attends_in_layer_one() -> None:
    at = page(view="Why a head attends", layer="1", head="3")
    spec = figure_titled(at, "The parts of layer 1 · head 3")
    total = sum(decode(trace["z"]).reshape(-1) for trace in spec["data"])
    model = bert.from_weights(loading.load_model().weights)
    ids = loading.encode(loading.load_model().tokenizer, GUIDED).ids
    scores = layer_steps(model, slim_forward(model, ids), 0).heads.scores[2]
    np.testing.assert_allclose(total, scores.reshape(-1), rtol=1e-4, atol=1e-4)
    assert "sentence-A embedding" in markdown(at)


def test_the_model_view_greys_a_decoders_causal_mask() -> None:
    at = page(model="local:llama", text=TEXT, view="Model view")
    spec = figure_titled(at, "Model view")
    panels = [decode(trace["z"]).reshape(9, 9) for trace in spec["data"] if "z" in trace][:12]
    assert len(panels) == 12  # 3 layers x 4 heads
    for panel in panels:
        assert np.isnan(panel[np.triu_indices(9, 1)]).all()
        assert not np.isnan(panel[np.tril_indices(9)]).any()


@pytest.mark.parametrize(
    "view", ["Every step", "Next token", "Heads that copy", "Why a head attends"]
)
def test_presentation_mode_and_numbers_work_for_a_decoder(view: str) -> None:
    presenting = AppTest.from_file(PAGE, default_timeout=120)
    presenting.session_state["present"] = True
    presenting.query_params.update({"model": "local:gpt2", "text": TEXT, "view": view})
    presenting.query_params["numbers"] = "true"
    presenting.run()
    assert not presenting.exception, [e.value for e in presenting.exception]
    for label in (PLOTLY, WALK_ONE):  # each walkable's plotly heatmap; a grid's first panel
        open_expanders(presenting, label)
    assert not presenting.exception, [e.value for e in presenting.exception]
    # every figure at the projector's size: titles 24 px; walkable matrices' text 20 px,
    # cells 40 px, 2 decimals (the next-token bars are the tab's only chart)
    expected = {("title", 24)} if view == "Next token" else PRESENTED
    assert drawn_sizes(presenting) == expected
    if view == "Every step":  # "Show numbers": each step's matrix as a table with its CSV
        assert len(presenting.get("download_button")) == 10  # one per step of a GPT-2 head


def test_a_decoders_shown_layer_is_recomputed_once_not_on_every_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ui.pretrained import passes

    calls: list[int] = []
    recompute = passes.layer_steps
    monkeypatch.setattr(
        passes,
        "layer_steps",
        lambda model, trace, layer: calls.append(layer) or recompute(model, trace, layer),
    )
    at = page(model="local:gpt2", text="w7 w8 w9 w7 w8", view="Every step", layer="3")
    at.toggle(key="numbers").set_value(True).run()
    at.selectbox(key="head").set_value(4).run()
    assert not at.exception and calls == [2]  # layer 3, once: the reruns reuse it
