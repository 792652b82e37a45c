"""The pretrained page with a deep decoder: a tiny random 30-layer Llama-family checkpoint (9
query heads sharing 3 K/V heads, SmolLM2-135M's layout at a width of 36) on a 128-token
sentence, every tab walked (:func:`tests.views.pretrained_walk.walk_every_tab`), and the model
view paged through its groups of layers by the link.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import transformers

from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, save_model
from tests.plotly_specs import decode, figures, walkable_matrices
from tests.views.cell_pages import select, shown_lines
from tests.views.pretrained_pages import fresh_model_menu, page, unescaped
from tests.views.pretrained_walk import walk_every_tab
from ui.figures.build import read_text
from ui.shared.walkable_data import cell_announcement

DEEP = "local:deep"
DEEP_CONFIG = transformers.LlamaConfig(
    vocab_size=VOCAB_SIZE, hidden_size=36, intermediate_size=48, num_hidden_layers=30,
    num_attention_heads=9, num_key_value_heads=3, rope_theta=100000.0,
    max_position_embeddings=256, tie_word_embeddings=True,
)  # fmt: skip
WIDE = "local:wide"
#: 48 layers of 32 query heads sharing 8 K/V heads: wider than any model the page has met.
WIDE_CONFIG = transformers.LlamaConfig(
    vocab_size=VOCAB_SIZE, hidden_size=64, intermediate_size=32, num_hidden_layers=48,
    num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=256,
)  # fmt: skip
DEEP_GPT2 = "local:deep-gpt2"
#: GPT-2 (absolute positions): its "Why a head attends" splits a head's scores at every layer.
DEEP_GPT2_CONFIG = transformers.GPT2Config(
    vocab_size=VOCAB_SIZE, n_embd=36, n_head=9, n_layer=30, n_positions=160,
)  # fmt: skip
#: 128 words of the tiny tokenizer, the page's token limit: 64 words, then the same 64 again.
WORDS = [f"w{(7 * i) % (VOCAB_SIZE - 1) + 1}" for i in range(64)]
TEXT = " ".join(WORDS + WORDS)


@pytest.fixture(scope="module", autouse=True)
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    save_model(DEEP_CONFIG, root / "deep")
    save_model(WIDE_CONFIG, root / "wide")
    save_model(DEEP_GPT2_CONFIG, root / "deep-gpt2")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_MODELS_DIR", str(root))
        patch.setenv("ATTENTION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        fresh_model_menu()
        yield root
        fresh_model_menu()


def model_view_title(at) -> str:
    (title,) = [
        spec["layout"]["title"]["text"]
        for spec in figures(at)
        if spec["layout"]["title"]["text"].startswith("Model view")
    ]
    return title


def test_every_tab_of_a_30_layer_decoder_draws_at_128_tokens() -> None:
    shown = walk_every_tab(DEEP, TEXT)
    assert shown["Model view pages"] == [
        f"Model view · layers {first}–{first + 5} of 30 (rows) and every head (columns)"
        for first in (1, 7, 13, 19, 25)
    ]
    assert "Attention weights · layer 4 · head 2" in shown["Model view"]


def test_the_model_view_opens_at_the_chosen_layers_group_and_the_link_keeps_its_page() -> None:
    at = page(model=DEEP, text=TEXT, view="Model view", layer="17")
    assert at.button_group(key="layers").options == ["1-6", "7-12", "13-18", "19-24", "25-30"]
    assert at.button_group(key="layers").value == "13-18"
    assert model_view_title(at).startswith("Model view · layers 13–18 of 30")
    at.button_group(key="layers").set_value("25-30").run()
    assert model_view_title(at).startswith("Model view · layers 25–30 of 30")
    assert at.selectbox(key="layer").value == 17  # paging opens no other head
    assert "Opened below: layer 17 · head 2, which is not among layers 25–30" in " ".join(
        caption.value for caption in at.caption
    )
    # The link of that view (AppTest does not write the link; the browser test reads it).
    linked = page(model=DEEP, text=TEXT, view="Model view", layer="17", layers="25-30")
    assert model_view_title(linked) == model_view_title(at)
    assert linked.button_group(key="layers").value == "25-30"


def test_choosing_another_layer_pages_the_model_view_to_it() -> None:
    at = page(model=DEEP, text=TEXT, view="Model view", layers="25-30")
    assert model_view_title(at).startswith("Model view · layers 25–30 of 30")
    at.selectbox(key="layer").set_value(8).run()
    assert at.button_group(key="layers").value == "7-12"
    assert model_view_title(at).startswith("Model view · layers 7–12 of 30")


def test_a_link_to_a_group_the_model_does_not_have_is_named_and_ignored() -> None:
    at = page(model=DEEP, text=TEXT, view="Model view", layers="31-36", layer="2")
    assert model_view_title(at).startswith("Model view · layers 1–6 of 30")
    assert any("layers=31-36" in unescaped(warning.value) for warning in at.warning)


def test_every_tab_of_a_48_layer_decoder_with_32_heads_draws() -> None:
    shown = walk_every_tab(WIDE, " ".join(WORDS[:16]))
    assert len(shown["Model view pages"]) == 24
    assert shown["Model view pages"][-1] == (
        "Model view · layers 47–48 of 48, each layer's 32 heads on 3 rows of up to 11"
    )


def test_the_head_view_of_a_32_head_model_draws_at_most_twelve_heads() -> None:
    at = page(model=WIDE, text=" ".join(WORDS[:16]), view="Head view")
    heads = at.multiselect(key="heads")
    assert heads.max_selections == 12 and len(heads.options) == 32
    heads.set_value(list(range(1, 13))).run()
    legend = [t["name"] for t in figures(at)[0]["data"] if t.get("showlegend")]
    assert legend == [f"head {h}" for h in range(1, 13)]


def test_why_the_last_head_of_a_30_layer_gpt2_attends_is_drawn_at_128_tokens() -> None:
    at = page(model=DEEP_GPT2, text=TEXT, view="Why a head attends", layer="30", head="9")
    drawn = [spec["layout"]["title"]["text"] for spec in figures(at)]
    assert drawn == [
        "Where layer 30 · head 9's scores come from",
        "The parts of layer 30 · head 9's scores QKᵀ",
    ]
    parts = [a["text"] for a in figures(at)[1]["layout"]["annotations"] if a.get("text")]
    assert "with earlier layers' output" in parts  # the 29 layers before, as one part


def test_the_model_views_walk_picker_offers_each_panel_of_the_group_and_walks_the_last() -> None:
    at = page(model=DEEP, text=TEXT, view="Model view", layer="30")
    at.session_state["walkpanel_model_view"] = True  # "Walk a matrix cell by cell" opened
    at.run()
    picker = at.selectbox(key="walkpick_model_view")
    grid = figures(at)[0]["layout"]["title"]["text"]  # the plotly grid, then the walked panel
    assert grid.startswith("Model view · layers 25–30 of 30")
    assert picker.options == [f"{grid}, L{layer} H{head}" for layer in range(25, 31)
                              for head in range(1, 10)]  # fmt: skip
    picker.set_value(53).run()
    assert not at.exception, [e.value for e in at.exception]
    walked, opened = walkable_matrices(at)  # the picked panel, then the opened head below
    assert walked["walkable"]["title"] == f"{grid}, L30 H9"
    assert opened["walkable"]["title"] == "Attention weights · layer 30 · head 2"
    (panel,) = [t for t in figures(at)[0]["data"] if t.get("name") == "L30 H9"]
    np.testing.assert_array_equal(decode(walked["data"][0]["z"]), decode(panel["z"]))
    assert walked["walkable"]["rows"] == [read_text(label) for label in panel["y"]]
    select(at, "walk_model_view_53", (31, 0))  # the last run of tokens, from the first
    said = cell_announcement(walked["walkable"], (31, 0))
    assert said.startswith(f"query '{walked['walkable']['rows'][-1]}', key ")
    assert said in shown_lines(at)
