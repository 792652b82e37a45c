"""A selected cell of the real SmolLM2-135M-Instruct's last layer (layer 30 of 30; 9 query heads
sharing 3 K/V heads, RoPE) explained with the layer's own numbers (AppTest): the score with
q_i and k_j turned by RoPE and the K/V head it read, and the weight's softmax; the layer's
input X as layer 29's input plus its attention and MLP outputs, its RMSNorm N, and Q, K, V
before RoPE from the 4-bit weights dequantised as the forward pass does; RoPE's angle θ from
the model's base; a panel of the model view's grid (layers 25–30) as its head's softmax; and
an induction score as the mean of its head's weights on the test input. Each ends on the
entry the walkable matrix draws."""

from __future__ import annotations

from functools import partial

import pytest
from streamlit.testing.v1 import AppTest

from attention_core.pretrained import circuits, load_checkpoint, pooling
from attention_core.pretrained.induction_experiment import COPY_LENGTH
from attention_core.pretrained.slim import layer_steps, slim_forward
from attention_core.teaching.encoding_cells import angle_cell
from attention_core.teaching.model_cells import kv_head_line
from attention_core.teaching.pooled_cells import pooled_cell, stripe_cell
from tests.plotly_specs import walkable_matrices
from tests.real.model_file import real_decoder_file
from tests.views.cell_pages import assert_explained, select, select_panel, walkable
from tests.views.pretrained_pages import fresh_model_menu, page
from ui.pretrained.cell_view import LayerSource, stage_cell
from ui.pretrained.figures import MODEL_VIEW_BINS
from ui.pretrained.passes import PageModel

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


def test_a_rope_angle_of_layer_30_is_its_position_times_its_pairs_turn(last_layer) -> None:
    info = last_layer[0]
    assert (info.rotary_base, info.d_head) == (100_000.0, 64)
    at = select(
        page(model=MODEL, text=TEXT, view="Every step", layer="30"),
        "walk_chart_angles_l30",
        (12, 5),
    )
    lines = angle_cell(12, 5, 64, 100_000.0).lines
    assert_explained(at, walkable(at, "RoPE angles θ · layer 30"), (12, 5), lines)


PANEL = 5 * 9 + 8  #: layer 30, head 9 of the model view's last group (layers 25–30)


def layer_30_head_9(at: AppTest) -> dict:
    """The walkable panel of layer 30, head 9 of the model view's grid."""
    (data,) = [s["walkable"] for s in walkable_matrices(at)
               if s["walkable"]["title"].endswith(", L30 H9")]  # fmt: skip
    return data


def test_a_model_view_panel_of_layer_30_is_its_heads_softmax(last_layer) -> None:
    info, steps, _ = last_layer
    at = page(model=MODEL, text=TEXT, view="Model view", layer="30", head="1")
    at = select_panel(at, "model_view", PANEL, (12, 4))
    lines = stage_cell(steps, info, "weights", 8, (12, 4)).lines
    assert_explained(at, layer_30_head_9(at), (12, 4), lines)


def test_a_pooled_model_view_panel_of_layer_30_is_its_runs_mean_sum() -> None:
    text = f"{TEXT} {TEXT} {TEXT}"  # about 50 tokens: pooled into 32 runs
    at = page(model=MODEL, text=text, view="Model view", layer="30", head="1")
    at = select_panel(at, "model_view", PANEL, (25, 9))
    checkpoint = load_checkpoint(real_decoder_file())
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(text).ids)
    length = slim.weights.shape[-1]
    assert length > MODEL_VIEW_BINS
    edges = pooling.bin_edges(length, MODEL_VIEW_BINS)
    lines = pooled_cell(slim.weights[29, 8], edges, 25, 9, slim.mask).lines
    assert lines[0].startswith("Run 26 of queries (tokens ")
    assert_explained(at, layer_30_head_9(at), (25, 9), lines)


def test_an_induction_score_is_its_heads_mean_weight_after_the_earlier_copy() -> None:
    page_model = PageModel(MODEL, str(real_decoder_file()))
    scores = page_model.copying_scores()["induction"]  # (30, 9)
    layer, head, _ = circuits.strongest(scores, 1)[0]
    at = page(model=MODEL, view="Heads that copy", detector="induction")
    at = select(at, "walk_copy_scores", (layer, head))
    weights = page_model.copy_weights()[layer, head]  # (T, T): 40 random tokens twice
    assert weights.shape == (2 * COPY_LENGTH, 2 * COPY_LENGTH)  # its tokenizer adds no BOS
    found = circuits.DETECTORS["induction"]
    rows, offset = found.stripe(len(weights), COPY_LENGTH)
    cell = stripe_cell(weights, rows, offset, found.label, found.looks_at, (layer, head))
    assert cell.value == pytest.approx(float(scores[layer, head]), rel=1e-5)
    assert cell.value > 0.5  # a trained model's strongest induction head
    (data,) = [s["walkable"] for s in walkable_matrices(at)]
    assert_explained(at, data, (layer, head), cell.lines)
