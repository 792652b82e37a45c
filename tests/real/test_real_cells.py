"""A selected cell of the real SmolLM2-135M-Instruct's last layer (layer 30 of 30; 9 query heads
sharing 3 K/V heads, RoPE) explained with the layer's own numbers (AppTest): the score with
q_i and k_j turned by RoPE and the K/V head it read, and the weight's softmax, each ending on
the entry the walkable matrix draws."""

from __future__ import annotations

import pytest

from attention_core.pretrained import load_checkpoint
from attention_core.pretrained.slim import layer_steps, slim_forward
from attention_core.teaching.model_cells import kv_head_line
from tests.real.model_file import real_decoder_file
from tests.views.cell_pages import assert_explained, select, walkable
from tests.views.pretrained_pages import fresh_model_menu, page
from ui.pretrained.cell_view import stage_cell

MODEL = "SmolLM2-135M-Instruct"
TEXT = "The capital of France is Paris, and the capital of Italy is Rome."


@pytest.fixture(scope="module", autouse=True)
def _menu() -> None:
    real_decoder_file()
    fresh_model_menu()


@pytest.fixture(scope="module")
def last_layer():
    """The model's facts and its last layer's every step on :data:`TEXT`, as the page has them."""
    checkpoint = load_checkpoint(real_decoder_file())
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(TEXT).ids)
    return checkpoint.info, layer_steps(checkpoint.model, slim, 29)


TITLES = {
    "scores": "Raw scores QKᵀ",
    "weights": "Attention weights",
    "context": "Context vectors C",
}


@pytest.mark.parametrize(("key", "title"), TITLES.items())
def test_a_cell_of_layer_30s_last_head_is_explained_with_its_entry(last_layer, key, title) -> None:
    info, steps = last_layer
    assert (info.n_layers, info.n_heads, info.n_kv_heads) == (30, 9, 3)
    at = page(model=MODEL, text=TEXT, view="Every step", layer="30", head="9")
    cell = (12, 4)  # "Italy" (or so) looking back at an earlier token
    at = select(at, f"walk_chart_{key}_l30h9", cell)
    lines = stage_cell(steps, info, key, 8, cell).lines
    assert_explained(at, walkable(at, f"{title} · layer 30 · head 9"), cell, lines)
    if key != "weights":
        assert (
            lines[0]
            == kv_head_line(8, 9, 3)
            == (
                "Query head 9 reads keys and values from K/V head 3, which query heads 7 to 9 "
                "share (9 query heads, 3 K/V heads)."
            )
        )
    if key == "scores":
        assert lines[1].startswith("RoPE turns q13 before the dot product")
        assert any(line.startswith("RoPE turns k5 before") for line in lines)
