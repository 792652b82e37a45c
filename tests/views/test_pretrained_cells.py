"""The pretrained page's walkable matrices explain a selected cell with the layer's own numbers
(AppTest): tiny random GPT-2, Llama (4 query heads sharing 2 K/V heads, RoPE base 5000) and
Qwen2 (biases on Q, K, V) checkpoints and the bundled BERT, in every view that draws
attention matrices: every step (from the layer's input X, its norm N and Q, K, V, computed
from the model's weights, RoPE's angles θ, to the context), the model view's grid (a head's
softmax, or on a long input a pooled entry) and its opened head, the head view's matrix,
rollout, the guided example, why a head attends and the copying scores (each the mean of its
head's weights on the test input). A cell is selected through Session State, as Enter
sends it; "This cell" must say it as the browser does, then how it was computed
(:mod:`ui.pretrained.cell_view`), ending on the very number the matrix draws."""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attention_core.pretrained import circuits, load_checkpoint, pooling, rollout
from attention_core.pretrained.induction_experiment import COPY_LENGTH
from attention_core.pretrained.slim import layer_steps, slim_forward
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from attention_core.teaching.cell_computation import number, weight_cell
from attention_core.teaching.encoding_cells import angle_cell
from attention_core.teaching.model_cells import (
    kv_head_line,
    rollout_cell,
    rotated_pairs,
    rotation_lines,
)
from attention_core.teaching.pooled_cells import pooled_cell, stripe_cell
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model
from tests.plotly_specs import walkable_matrices
from tests.views.cell_pages import (
    assert_explained,
    entry,
    select,
    select_panel,
    shown_lines,
    walkable,
)
from tests.views.pretrained_pages import fresh_model_menu, page
from ui.pretrained.cell_view import EXPLAINED, LayerSource, stage_cell
from ui.pretrained.figures import MODEL_VIEW_BINS
from ui.pretrained.models import BUNDLED_KEY
from ui.pretrained.passes import PageModel
from ui.pretrained.stage_table import WHOLE_LAYER
from ui.pretrained.state import DEFAULT_TEXT
from ui.shared.walkable_data import cell_announcement

TEXT = "w1 w2 w3 w4 w5 w1 w2 w3 w4"
#: How each explained step's title at layer 2, head 4 starts (the Llama family's).
TITLES = {
    "x": "Layer input X",
    "normed": "RMSNorm(X)",
    "q": "Queries Q before RoPE",
    "k": "Keys K before RoPE",
    "v": "Values V",
    "angles": "RoPE angles θ",
    "q_rotated": "Queries after RoPE",
    "k_rotated": "Keys after RoPE",
    "scores": "Raw scores QKᵀ",
    "scaled": "Scaled scores",
    "masked": "Masked scores",
    "weights": "Attention weights",
    "context": "Context vectors C",
}


@pytest.fixture(scope="module", autouse=True)
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    for name in ("gpt2", "llama", "qwen2"):
        save_model(CONFIGS[name], root / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_MODELS_DIR", str(root))
        patch.setenv("ATTENTION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        fresh_model_menu()
        yield root
        fresh_model_menu()


def layer_of(models_dir: Path, name: str, layer: int) -> tuple[ModelInfo, BlockTrace]:
    """The checkpoint's facts and its every step of ``layer`` (0-based) on :data:`TEXT`."""
    checkpoint = load_checkpoint(models_dir / name)
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(TEXT).ids)
    return checkpoint.info, layer_steps(checkpoint.model, slim, layer)


def layer_source(
    models_dir: Path, name: str, layer: int
) -> tuple[ModelInfo, BlockTrace, LayerSource]:
    """The checkpoint's facts, its every step of ``layer`` (0-based) on :data:`TEXT`, and
    what its input steps are explained from, as the page has them."""
    checkpoint = load_checkpoint(models_dir / name)
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(TEXT).ids)
    steps_of = partial(layer_steps, checkpoint.model, slim)
    return checkpoint.info, steps_of(layer), LayerSource(checkpoint.model, slim, layer, steps_of)


def walk_key(key: str, layer: int, head: int) -> str:
    """The Session State key of step ``key``'s walkable matrix (0-based layer and head)."""
    whole = key in WHOLE_LAYER
    return f"walk_chart_{key}_l{layer + 1}" + ("" if whole else f"h{head + 1}")


def select_many(at: AppTest, cells: dict[str, tuple[int, int]], layer: int, head: int) -> AppTest:
    """A cell of each step ``key`` of ``cells`` selected at once (one rerun)."""
    for key, (row, col) in cells.items():
        at.session_state[walk_key(key, layer, head)] = {"cell": {"row": row, "col": col}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def step_title(at: AppTest, start: str) -> str:
    """The one walkable matrix's title that starts with ``start``."""
    (title,) = [s["title"] for s in map(itemgetter("walkable"), walkable_matrices(at))
                if s["title"].startswith(start)]  # fmt: skip
    return title


def test_a_gpt2_weight_of_every_step_is_its_softmax_of_the_layers_masked_scores(
    models_dir: Path,
) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Every step", layer="2", head="4")
    info, steps = layer_of(models_dir, "gpt2", 1)
    cell = (6, 2)
    at = select(at, "walk_chart_weights_l2h4", cell)
    lines = weight_cell(steps.heads.masked[3], *cell).lines
    shown = assert_explained(at, walkable(at, "Attention weights · layer 2 · head 4"), cell, lines)
    assert shown == f"{float(steps.heads.weights[3, 6, 2]):.3f}"
    assert lines == stage_cell(steps, info, "weights", 3, cell).lines


def test_a_gpt2_score_is_the_dot_product_of_its_own_query_and_key(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Every step", layer="2", head="4")
    info, steps = layer_of(models_dir, "gpt2", 1)
    at = select(at, "walk_chart_scores_l2h4", (4, 1))
    lines = stage_cell(steps, info, "scores", 3, (4, 1)).lines
    assert lines[0].startswith("Score of query 5 and key 2: the dot product q5 · k2")
    assert not any("RoPE" in line or "K/V head" in line for line in lines)  # its own K, no RoPE
    assert_explained(at, walkable(at, "Raw scores QKᵀ · layer 2 · head 4"), (4, 1), lines)


def test_a_llama_score_says_how_rope_turned_its_query_and_key_and_which_kv_head_it_read(
    models_dir: Path,
) -> None:
    at = page(model="local:llama", text=TEXT, view="Every step", layer="2", head="4")
    info, steps = layer_of(models_dir, "llama", 1)
    cell = (7, 3)
    at = select(at, "walk_chart_scores_l2h4", cell)
    lines = stage_cell(steps, info, "scores", 3, cell).lines
    assert steps.angles is not None
    rope = (
        *rotation_lines("q", 7, rotated_pairs(steps.q[3], steps.angles, 7)),
        *rotation_lines("k", 3, rotated_pairs(steps.k[3], steps.angles, 3)),
    )
    assert lines[: 1 + len(rope)] == (kv_head_line(3, 4, 2), *rope)
    assert lines[0] == (
        "Query head 4 reads keys and values from K/V head 2, which query heads 3 to 4 share "
        "(4 query heads, 2 K/V heads)."
    )
    assert lines[1].startswith("RoPE turns q8 before the dot product")
    assert_explained(at, walkable(at, "Raw scores QKᵀ · layer 2 · head 4"), cell, lines)


@pytest.mark.parametrize("key", EXPLAINED)
def test_every_explained_step_of_a_llama_head_ends_on_the_entry_it_draws(
    models_dir: Path, key: str
) -> None:
    at = page(model="local:llama", text=TEXT, view="Every step", layer="2", head="4")
    info, steps, source = layer_source(models_dir, "llama", 1)
    cell = (8, 5)  # the last query; for Q' and K' row 9, column 6
    at = select(at, walk_key(key, 1, 3), cell)
    data = walkable(at, step_title(at, TITLES[key]))
    assert_explained(at, data, cell, stage_cell(steps, info, key, 3, cell, source).lines)


#: A cell of each of the layer's input steps: X and N (the layer's), Q, K, V (head 4's).
INPUT_CELLS = {"x": (8, 31), "normed": (4, 5), "q": (6, 2), "k": (3, 7), "v": (8, 0)}
#: How their titles start, whatever the family ("Queries Q" or "Queries Q before RoPE").
INPUT_TITLES = {
    "x": "Layer input X",
    "normed": "",  # LayerNorm(X) or RMSNorm(X): found by its norm's name
    "q": "Queries Q",
    "k": "Keys K",
    "v": "Values V",
}
NORMS = {"gpt2": "LayerNorm", "llama": "RMSNorm", "qwen2": "RMSNorm"}


@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("name", ["gpt2", "llama", "qwen2"])
def test_a_decoders_input_norm_and_projections_end_on_the_entries_they_draw(
    models_dir: Path, name: str, layer: int
) -> None:
    at = page(model=f"local:{name}", text=TEXT, view="Every step", layer=str(layer + 1), head="4")
    info, steps, source = layer_source(models_dir, name, layer)
    at = select_many(at, INPUT_CELLS, layer, 3)
    explained = {}
    for key, cell in INPUT_CELLS.items():
        start = INPUT_TITLES[key] or f"{NORMS[name]}(X)"
        lines = stage_cell(steps, info, key, 3, cell, source).lines
        assert_explained(at, walkable(at, step_title(at, start)), cell, lines)
        explained[key] = lines
    x, normed, q, k = explained["x"], explained["normed"], explained["q"], explained["k"]
    if layer == 0:
        parts = "the sum of its token embedding and its position embedding"
        assert parts in x[0] if name == "gpt2" else "just its token embedding" in x[0]
    else:
        assert x[0].startswith("Layer 2's input is layer 1's input plus what layer 1's attention")
    assert normed[0].startswith(f"{NORMS[name]} of token 5's row of X")
    assert q[0] == f"Attention reads N, the layer's input after {NORMS[name]}: token 7's row of N."
    assert any(line.startswith("Plus the bias") for line in q) == (name != "llama")
    grouped = any(line.startswith("Query head 4 reads keys and values from K/V head") for line in k)
    assert grouped == (name != "gpt2")


def test_bert_layer_1s_input_is_the_layernorm_of_its_three_embeddings() -> None:
    at = page(view="Every step", layer="1", head="3")
    bundled = PageModel(BUNDLED_KEY)
    trace = bundled.trace(bundled.encode(DEFAULT_TEXT))
    steps_of = partial(bundled.steps, trace)
    cells = {"x": (3, 100), "q": (5, 7), "v": (0, 31)}
    at = select_many(at, cells, 0, 2)
    source = LayerSource(bundled.checkpoint.model, trace, 0, steps_of)
    for key, cell in cells.items():
        lines = stage_cell(steps_of(0), bundled.info, key, 2, cell, source).lines
        assert_explained(at, walkable(at, step_title(at, INPUT_TITLES[key])), cell, lines)
        if key == "x":
            assert lines[0] == (
                "Layer 1's input, token 4, dimension 101: the sum of its word embedding, its "
                "position embedding and its sentence embedding."
            )
            assert any(line.startswith("LayerNorm of token 4's row of the sum") for line in lines)
        else:
            assert lines[0].startswith("BERT's attention reads the layer's input X itself")


def test_a_later_bert_layers_input_is_the_layernorm_of_what_the_layer_before_added() -> None:
    at = select_many(page(view="Every step", layer="3", head="1"), {"x": (7, 5)}, 2, 0)
    bundled = PageModel(BUNDLED_KEY)
    trace = bundled.trace(bundled.encode(DEFAULT_TEXT))
    source = LayerSource(bundled.checkpoint.model, trace, 2, partial(bundled.steps, trace))
    lines = stage_cell(bundled.steps(trace, 2), bundled.info, "x", 0, (7, 5), source).lines
    assert lines[0].startswith("Layer 3's input is layer 2's output. BERT normalises after each")
    assert any(line.startswith("LayerNorm of token 8's row of Z") for line in lines)
    assert_explained(at, walkable(at, "Layer input X · layer 3"), (7, 5), lines)


def test_a_rope_angle_is_its_position_times_its_pairs_speed(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Every step", layer="2", head="4")
    info, steps = layer_of(models_dir, "llama", 1)
    assert steps.angles is not None and info.rotary_base == 5000
    cell = (6, 1)  # position 6, pair 1
    at = select(at, "walk_chart_angles_l2", cell)
    lines = angle_cell(*cell, info.d_head, info.rotary_base).lines
    shown = assert_explained(at, walkable(at, step_title(at, "RoPE angles θ")), cell, lines)
    assert shown == f"{float(steps.angles[cell]):.3f}"
    assert lines[-1].startswith(
        f"The angle θ in radians: p × b^(−2i/d) = 6 × 5 000^(−2/{info.d_head})"
    )


def test_a_masked_cell_says_it_is_masked_and_its_weight_zero(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Every step", layer="1", head="1")
    at = select(at, "walk_chart_weights_l1h1", (2, 5))  # a later key: masked
    shown = shown_lines(at)
    assert "query 'w3', key 'w1₂': masked" in shown  # the second w1, after w3
    assert "Key 6 is masked for query 3: weight 0." in shown


def test_the_model_views_opened_head_explains_its_weights(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Model view", layer="3", head="2")
    info, steps = layer_of(models_dir, "llama", 2)
    cell = (5, 4)
    at = select(at, "walk_opened_head", cell)
    data = walkable(at, "Attention weights · layer 3 · head 2")
    assert_explained(at, data, cell, stage_cell(steps, info, "weights", 1, cell).lines)


def test_a_bert_context_entry_is_its_weighted_sum_of_values() -> None:
    at = page(view="Every step", layer="2", head="3")
    at = select(at, "walk_chart_context_l2h3", (3, 7))
    bundled = PageModel(BUNDLED_KEY)
    steps = bundled.steps(bundled.trace(bundled.encode(DEFAULT_TEXT)), 1)
    lines = stage_cell(steps, bundled.info, "context", 2, (3, 7)).lines
    assert lines[0].startswith("Context of query 4, dimension 8")
    assert not any("K/V head" in line for line in lines)  # BERT's heads have their own
    assert_explained(at, walkable(at, "Context vectors · layer 2 · head 3"), (3, 7), lines)


def test_the_head_views_matrix_explains_a_weight_of_the_drawn_head(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Head view", layer="2", heads=["3"])
    info, steps = layer_of(models_dir, "llama", 1)
    at = select(at, "walk_head_view_matrix", (7, 6))
    data = walkable(at, "Attention weights · layer 2 · head 3")
    assert_explained(at, data, (7, 6), stage_cell(steps, info, "weights", 2, (7, 6)).lines)


def test_a_rollout_entry_is_the_layers_mixed_attention_times_the_rollout_before() -> None:
    at = page(view="Rollout", layer="3")
    at = select(at, "walk_rollout", (5, 2))
    bundled = PageModel(BUNDLED_KEY)
    weights = bundled.trace(bundled.encode(DEFAULT_TEXT)).weights  # (L, H, T, T)
    rolled = rollout.attention_rollout(weights)
    lines = rollout_cell(rollout.residual_attention(weights[2]), rolled[1], 2, 5, 2).lines
    assert lines[0].startswith("Rollout after layer 3, token 6 from input token 3")
    assert_explained(at, walkable(at, "Attention rollout · layers 1–3"), (5, 2), lines)


def test_the_guided_examples_heads_explain_their_weights() -> None:
    at = page()
    assert not walkable_matrices(at)  # built only once their expander is opened
    at.session_state["guided_matrices"] = True
    at = select(at, "walk_guided_matrix_l4h2", (9, 2))
    bundled = PageModel(BUNDLED_KEY)
    steps = bundled.steps(bundled.trace(bundled.encode(DEFAULT_TEXT)), 3)
    lines = stage_cell(steps, bundled.info, "weights", 1, (9, 2)).lines
    assert_explained(at, walkable(at, "Attention weights · layer 4 · head 2"), (9, 2), lines)


def test_the_decoder_chapters_induction_head_explains_its_weights(models_dir: Path) -> None:
    at = select(page(model="local:gpt2", text=TEXT), "walk_guided_induction_matrix", (20, 3))
    (data,) = [s["walkable"] for s in walkable_matrices(at)
               if s["walkable"]["title"].endswith("the sentence read twice")]  # fmt: skip
    said = cell_announcement(data, (20, 3))
    assert said in shown_lines(at)
    assert any(line.startswith("Softmax of row 21") for line in shown_lines(at))


def test_a_part_of_a_gpt2_score_adds_up_to_the_heads_raw_score(models_dir: Path) -> None:
    at = page(model="local:gpt2", text=TEXT, view="Why a head attends", layer="2", head="1")
    at.session_state["walkpanel_why_parts"] = True  # "Walk a matrix cell by cell" opened
    at = select(at, "walk_why_parts_0", (6, 2))
    _, steps = layer_of(models_dir, "gpt2", 1)
    shown = shown_lines(at)
    (part,) = [line for line in shown if line.startswith("Part “token-token”")]
    data = walkable(at, "The parts of layer 2 · head 1's scores QKᵀ, token-token")
    assert part.endswith(f": {number(entry(data, (6, 2)))}.")
    (total,) = [line for line in shown if line.startswith("Its ")]
    raw = float(steps.heads.scores[0, 6, 2])
    assert total.endswith(f"= {number(raw)}.")
    assert f"The head's raw score q7 · k3: {number(raw)}." in shown


def test_a_copying_score_is_read_as_that_score() -> None:
    at = page(view="Heads that copy", detector="induction")
    (data,) = [s["walkable"] for s in walkable_matrices(at)]
    assert data["value_name"] == "induction score"
    assert cell_announcement(data, (5, 11)).startswith("layer 'layer 6', head 'head 12': induction")


def test_the_head_view_shows_the_drawn_head_its_link_names_as_a_matrix(models_dir: Path) -> None:
    at = page(model="local:llama", text=TEXT, view="Head view", heads=["2", "4"], matrix_head="4")
    assert at.selectbox(key="matrix_head").options == ["2", "4"]
    assert at.selectbox(key="matrix_head").value == 4
    assert [s["walkable"]["title"] for s in walkable_matrices(at)] == [
        "Attention weights · layer 3 · head 4"
    ]
    at.selectbox(key="matrix_head").set_value(2).run()
    assert [s["walkable"]["title"] for s in walkable_matrices(at)] == [
        "Attention weights · layer 3 · head 2"
    ]
    alone = page(model="local:llama", text=TEXT, view="Head view", matrix_head="3")
    assert not alone.warning  # one head drawn (the chosen one): no choice, and nothing refused
    assert [s["walkable"]["title"] for s in walkable_matrices(alone)] == [
        "Attention weights · layer 3 · head 2"
    ]


def panel_ending(at: AppTest, name: str) -> dict:
    """The data of the one walkable matrix whose title ends with the panel's ``name``."""
    (data,) = [s["walkable"] for s in walkable_matrices(at)
               if s["walkable"]["title"].endswith(f", {name}")]  # fmt: skip
    return data


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_a_model_view_panel_is_its_heads_softmax(models_dir: Path, name: str) -> None:
    at = page(model=f"local:{name}", text=TEXT, view="Model view", layer="1", head="1")
    panel, cell = 1 * 4 + 2, (7, 3)  # layer 2, head 3 (4 heads a layer)
    at = select_panel(at, "model_view", panel, cell)
    info, steps = layer_of(models_dir, name, 1)
    lines = stage_cell(steps, info, "weights", 2, cell).lines
    assert lines[0].startswith("Softmax of row 8")
    assert_explained(at, panel_ending(at, "L2 H3"), cell, lines)


#: 45 words: the model view pools them into 32 runs of one or two tokens.
LONG_TEXT = " ".join(f"w{i}" for i in range(1, 46))


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_a_pooled_model_view_panel_is_its_runs_mean_sum(models_dir: Path, name: str) -> None:
    at = page(model=f"local:{name}", text=LONG_TEXT, view="Model view")
    panel, cell = 2 * 4 + 1, (30, 6)  # layer 3, head 2; runs 31 and 7
    at = select_panel(at, "model_view", panel, cell)
    checkpoint = load_checkpoint(models_dir / name)
    slim = slim_forward(checkpoint.model, checkpoint.tokenize(LONG_TEXT).ids)
    length = slim.weights.shape[-1]
    assert length > MODEL_VIEW_BINS
    edges = pooling.bin_edges(length, MODEL_VIEW_BINS)
    lines = pooled_cell(slim.weights[2, 1], edges, *cell, slim.mask).lines
    assert lines[0].startswith("Run 31 of queries (tokens ")
    assert lines[-1].startswith("Mean: ")
    assert_explained(at, panel_ending(at, "L3 H2"), cell, lines)
    at = select_panel(at, "model_view", panel, (6, 30))  # a later run: masked
    shown = shown_lines(at)
    said = cell_announcement(panel_ending(at, "L3 H2"), (6, 30))
    assert said.endswith(": masked")
    forbidden = shown[shown.index(said) + 1]
    assert forbidden == pooled_cell(slim.weights[2, 1], edges, 6, 30, slim.mask).lines[0]
    assert "the causal mask forbids every one of these pairs, so it is 0: 0.000." in forbidden


@pytest.mark.parametrize("name", ["gpt2", "llama"])
@pytest.mark.parametrize("detector", list(circuits.DETECTORS))
def test_a_copying_score_is_its_heads_mean_weight_on_the_stripe(
    models_dir: Path, name: str, detector: str
) -> None:
    found = circuits.DETECTORS[detector]  # the link names a score by its label
    at = page(model=f"local:{name}", view="Heads that copy", detector=found.label)
    cell = (2, 1)  # layer 3, head 2
    at = select(at, "walk_copy_scores", cell)
    weights = PageModel(f"local:{name}", str(models_dir / name)).copy_weights()  # (L, H, T, T)
    rows, offset = found.stripe(weights.shape[-1], COPY_LENGTH)
    lines = stripe_cell(weights[cell], rows, offset, found.label, found.looks_at, cell).lines
    assert lines[0].startswith(f"The {found.label} score of layer 3 · head 2: on the test input")
    (data,) = [s["walkable"] for s in walkable_matrices(at)]
    assert_explained(at, data, cell, lines)
