"""A selected cell of the real SmolLM2-135M-Instruct's last layer (layer 30 of 30; 9 query heads
sharing 3 K/V heads, RoPE) explained with the layer's own numbers (AppTest): the score with
q_i and k_j turned by RoPE and the K/V head it read, and the weight's softmax; the layer's
input X as layer 29's input plus its attention and MLP outputs, its RMSNorm N, and Q, K, V
before RoPE from the 4-bit weights dequantised as the forward pass does; each ending on the
entry the walkable matrix draws."""

from __future__ import annotations

from functools import partial

import pytest

from attention_core.pretrained import load_checkpoint
from attention_core.pretrained.slim import layer_steps, slim_forward
from attention_core.teaching.model_cells import kv_head_line
from tests.real.model_file import real_decoder_file
from tests.views.cell_pages import assert_explained, select, walkable
from tests.views.pretrained_pages import fresh_model_menu, page
from ui.pretrained.cell_view import LayerSource, stage_cell

MODEL = "SmolLM2-135M-Instruct"
TEXT = "The capital of France is Paris, and the capital of Italy is Rome."


@pytest.fixture(scope="module", autouse=True)
def _menu() -> None:
    real_decoder_file()
    fresh_model_menu()


@pytest.fixture(scope="module")
def last_layer():
    """The model's facts, its last layer's every step on :data:`TEXT` and what its input steps
    are explained from, as the page has them."""
    checkpoint = load_checkpoint(real_decoder_file())
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(TEXT).ids)
    steps_of = partial(layer_steps, checkpoint.model, slim)
    source = LayerSource(checkpoint.model, slim, 29, steps_of)
    return checkpoint.info, steps_of(29), source


TITLES = {
    "scores": "Raw scores QKᵀ",
    "weights": "Attention weights",
    "context": "Context vectors C",
}


@pytest.mark.parametrize(("key", "title"), TITLES.items())
def test_a_cell_of_layer_30s_last_head_is_explained_with_its_entry(last_layer, key, title) -> None:
    info, steps, _ = last_layer
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


#: A cell of each of layer 30's input steps, and how its title starts.
INPUTS = {
    "x": ((12, 100), "Layer input X · layer 30"),
    "normed": ((12, 100), "RMSNorm(X) · layer 30"),
    "q": ((12, 4), "Queries Q before RoPE · layer 30 · head 9"),
    "k": ((4, 60), "Keys K before RoPE · layer 30 · head 9"),
    "v": ((7, 33), "Values V · layer 30 · head 9"),
}


def test_layer_30s_input_norm_and_projections_are_explained_with_their_entries(last_layer) -> None:
    info, steps, source = last_layer
    at = page(model=MODEL, text=TEXT, view="Every step", layer="30", head="9")
    for key, ((row, col), _) in INPUTS.items():
        whole = key in ("x", "normed")
        at.session_state[f"walk_chart_{key}_l30" + ("" if whole else "h9")] = {
            "cell": {"row": row, "col": col}
        }
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    explained = {}
    for key, (cell, title) in INPUTS.items():
        lines = stage_cell(steps, info, key, 8, cell, source).lines
        assert_explained(at, walkable(at, title), cell, lines)
        explained[key] = lines
    assert explained["x"][0].startswith("Layer 30's input is layer 29's input plus what layer 29")
    assert explained["normed"][0].startswith("RMSNorm of token 13's row of X (576 numbers)")
    assert explained["q"][1] == "This is q13 before RoPE turns it by its position."
    assert explained["k"][1] == kv_head_line(8, 9, 3)
    assert explained["v"][-1].startswith("Sum: ")
