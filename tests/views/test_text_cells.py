"""The text page's walkable matrices (AppTest): mounted for one head's attention stages, and a
selected cell shown with its computation beside the matrix; so are the stages around the heads
(P, X + P, the heads side by side, the output) and the heads-off experiment's matrices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching.cell_computation import CellComputation, number, weight_cell
from attention_core.teaching.head_cells import change_cell
from tests.plotly_specs import decode, walkable_matrices
from ui.shared.safe import unescape_markdown
from ui.shared.walkable_data import announcement
from ui.text.cache import HEADS_OFF_MATRICES, RunInputs
from ui.text.cell_view import (
    FROM_RUN,
    WALKABLE,
    cell_computation,
    concat_computation,
    heads_off_lines,
    token_computation,
    whole_computation,
)
from ui.text.stage_arrays import stage_matrix

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "text.py")
SENTENCE = "the animal was tired because it walked"
CONCAT_OFF = HEADS_OFF_MATRICES["concat"][0]


def run_page(**params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def shown_text(at: AppTest) -> list[str]:
    return [unescape_markdown(block.value) for block in at.markdown]


def test_the_weights_tab_walks_head_ones_scores_scaled_masked_and_weights() -> None:
    at = run_page(text=SENTENCE, mask="causal", view="4 Weights")
    assert not at.exception
    titles = [spec["layout"]["title"]["text"] for spec in walkable_matrices(at)]
    assert titles == [
        "Raw scores QKᵀ · head 1",
        "Scaled scores · head 1",
        "Masked scores · head 1",
        "Attention weights · head 1",
    ]
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, ac.AttentionConfig(mask="causal"))
    weights = walkable_matrices(at)[-1]
    expected = np.where(run.mask, run.trace.weights[0], np.nan).astype(np.float32)
    np.testing.assert_array_equal(decode(weights["data"][0]["z"]), expected)
    assert weights["walkable"]["rows"] == list(ac.tokenize(SENTENCE).labels)
    # its description starts with the chart's text alternative, as the plotly chart's label did
    assert weights["alt"].startswith("Attention weights · head 1: ")
    assert "Strongest links" in weights["alt"]
    assert "**This cell**" not in [block.value for block in at.markdown]  # nothing selected


def test_the_output_tab_walks_head_ones_context() -> None:
    at = run_page(text=SENTENCE, view="6 Output")
    assert not at.exception
    spec = next(s for s in walkable_matrices(at) if s["walkable"]["value_name"] == "context")
    assert spec["walkable"]["col_title"] == "column"


def test_a_selected_weight_is_announced_and_its_softmax_written_out() -> None:
    at = run_page(text=SENTENCE, view="4 Weights")
    at.session_state["walk_chart_weights_head1"] = {"cell": {"row": 5, "col": 1}}
    at.run()
    assert not at.exception
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, ac.AttentionConfig())
    labels = ac.tokenize(SENTENCE).labels
    z = run.trace.weights[0].astype(np.float32)
    said = announcement(z, labels, labels, 5, 1)
    assert said.startswith("query 'it', key 'animal': weight ")
    text = shown_text(at)
    assert said in text
    for line in weight_cell(run.trace.masked[0], 5, 1).lines:
        assert line in text


def test_a_selection_outside_a_shorter_sentence_is_dropped() -> None:
    at = run_page(text="one two", view="4 Weights")
    at.session_state["walk_chart_weights_head1"] = {"cell": {"row": 5, "col": 1}}
    at.run()
    assert not at.exception
    assert "**This cell**" not in [block.value for block in at.markdown]  # nothing selected


@pytest.mark.parametrize("name", WALKABLE)
def test_every_walkable_stage_explains_a_cell_with_the_matrix_entry(name: str) -> None:
    config = ac.AttentionConfig(n_heads=2, mask="causal")
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, config)
    entry = getattr(run.trace, name)[1, 4, 2]  # head 2, row 5, column 3
    computed = cell_computation(run, name, 1, (4, 2))
    assert computed.value == pytest.approx(float(entry), rel=1e-9)
    assert computed.lines


def test_the_plotly_heatmap_is_sent_only_once_its_expander_is_opened() -> None:
    at = run_page(text=SENTENCE, view="4 Weights")
    titles = [chart.proto.spec for chart in at.get("plotly_chart")]
    assert len(titles) == 1  # the all-heads grid; head 1's matrices are walkable
    at.session_state["plotly_chart_weights_head1"] = True
    at.run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("positional", ["sinusoidal", "rotary"])
def test_a_projection_cell_is_the_inputs_times_the_heads_column(name: str, positional: str) -> None:
    config = ac.AttentionConfig(n_heads=2, positional=positional)
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, config)
    entry = getattr(run.trace, name)[1, 3, 5]  # head 2, token 4, column 6
    computed = cell_computation(run, name, 1, (3, 5))
    assert computed.value == pytest.approx(float(entry), rel=1e-6, abs=1e-9)
    turned = positional == "rotary" and name != "v"
    assert any(line.startswith("RoPE then turns columns 5 and 6") for line in computed.lines) == (
        turned
    )
    if turned:  # the projection before the turn equals the unrotated entry
        before = getattr(run.trace, f"{name}_unrotated")[1, 3, 5]
        assert f"Sum: {number(float(before))}." in computed.lines


def test_a_cell_of_any_heads_weights_is_walked_from_the_grid() -> None:
    at = run_page(text=SENTENCE, view="4 Weights", heads="4")
    at.session_state["walkpanel_grid_weights"] = True
    at.run()
    at.session_state["walkpick_grid_weights"] = 2
    at.session_state["walk_grid_weights_2"] = {"cell": {"row": 6, "col": 3}}
    at.run()
    assert not at.exception
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, ac.AttentionConfig(n_heads=4))
    text = shown_text(at)
    computed = cell_computation(run, "weights", 2, (6, 3))
    assert computed.value == pytest.approx(float(run.trace.weights[2, 6, 3]), rel=1e-9)
    for line in computed.lines:
        assert line in text


def assert_lines_shown(
    at: AppTest, key: str, title: str, cell: tuple[int, int], found: CellComputation
) -> None:
    """Cell ``cell`` of the walkable matrix of chart ``key``, titled ``title``, selected: its
    computation is written and ends on the entry the matrix draws."""
    at.session_state[f"walk_{key}"] = {"cell": {"row": cell[0], "col": cell[1]}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    text = shown_text(at)
    for line in found.lines:
        assert line in text
    (spec,) = [s for s in walkable_matrices(at) if s["walkable"]["title"] == title]
    drawn = float(decode(spec["data"][0]["z"])[cell])
    assert drawn == pytest.approx(found.value, abs=1e-6)  # float32 on the wire
    assert found.lines[-1].endswith(f"{number(found.value)}.")


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "rotary", "none"])
@pytest.mark.parametrize("combine", list(ac.COMBINATIONS))
def test_every_cell_around_the_heads_equals_the_runs_entry(positional: str, combine: str) -> None:
    config = ac.AttentionConfig(n_heads=2, positional=positional, combine=combine, seed=5)
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, config)
    for name in FROM_RUN:
        matrix = stage_matrix(run, name)
        for cell in np.ndindex(*matrix.shape):
            found = whole_computation(run, name, cell)
            assert found.value == pytest.approx(float(matrix[cell]), rel=1e-9, abs=1e-12), name


@pytest.mark.parametrize("embedding", ["onehot", "random"])
def test_every_token_vector_entry_equals_the_runs_on_both_sentences(embedding: str) -> None:
    queries, keys = ac.tokenize(SENTENCE), ac.tokenize("an animal sleeps")
    config = ac.AttentionConfig(embedding=embedding, seed=2)
    run = ac.run_text_attention(queries.tokens, config, kv_tokens=keys.tokens)
    inputs = RunInputs(queries, keys, config, None)
    for second, x in ((False, run.x), (True, run.x_kv)):
        for cell in np.ndindex(*x.shape):
            assert token_computation(inputs, cell, second).value == x[cell]
    said = token_computation(inputs, (0, 0), second=True).text  # "an": the 8th distinct word
    assert ("distinct word number 8 of the 9" in said) == (embedding == "onehot")


def test_the_tokens_tab_writes_out_a_token_vectors_entry() -> None:
    at = run_page(text=SENTENCE, view="1 Tokens", embedding="onehot")
    config = ac.AttentionConfig(embedding="onehot")
    inputs = RunInputs(ac.tokenize(SENTENCE), None, config, None)
    found = token_computation(inputs, (5, 5))  # "it", the 6th distinct word: its own 1
    assert found.value == 1.0
    assert_lines_shown(at, "chart_x", "Token vectors X", (5, 5), found)


def test_the_positions_tab_writes_out_p_and_x_plus_p() -> None:
    at = run_page(text=SENTENCE, view="2 Positions", pe="sinusoidal")
    run = ac.run_text_attention(
        ac.tokenize(SENTENCE).tokens, ac.AttentionConfig(positional="sinusoidal")
    )
    assert_lines_shown(
        at, "chart_p", "Positional encoding P", (5, 3), whole_computation(run, "p", (5, 3))
    )
    found = whole_computation(run, "x_plus_p", (5, 3))
    assert_lines_shown(at, "chart_x_plus_p", "Input X + P", (5, 3), found)
    assert "the token vector's" in found.lines[-1]


def test_the_output_tab_writes_out_the_heads_side_by_side_and_their_output() -> None:
    at = run_page(text=SENTENCE, view="6 Output", heads="2")
    run = ac.run_text_attention(ac.tokenize(SENTENCE).tokens, ac.AttentionConfig(n_heads=2))
    width = run.trace.context.shape[2]
    found = whole_computation(run, "concat", (3, width + 1))  # head 2's second dimension
    assert_lines_shown(at, "chart_concat", "Heads side by side", (3, width + 1), found)
    assert found.lines[0].startswith("Context of query 4, dimension 2")
    assert_lines_shown(
        at, "chart_output", "Output", (3, 2), whole_computation(run, "output", (3, 2))
    )


def test_the_heads_off_matrices_write_out_what_the_combination_got() -> None:
    at = run_page(text=SENTENCE, view="6 Output", heads="4", off=["L1 H2"], off_kind="mean")
    tokens, config = ac.tokenize(SENTENCE).tokens, ac.AttentionConfig(n_heads=4)
    ablation = ac.Ablation.of([(0, 1)], "mean")
    intact = ac.run_text_attention(tokens, config)
    off = ac.run_text_attention(tokens, config, ablation=ablation)
    width = off.trace.context.shape[2]
    replaced = concat_computation(off, (2, width), ablation)  # head 2, off: its average
    assert replaced.lines[0].startswith("Head 2 is off: at every token its context is replaced")
    assert_lines_shown(at, "off_concat", CONCAT_OFF, (2, width), replaced)
    found = change_cell(off.trace.output, intact.trace.output, 4, 1)
    assert_lines_shown(at, "off_change", HEADS_OFF_MATRICES["change"][0], (4, 1), found)
    lines = heads_off_lines("output", intact, off, ablation)(0, (4, 1))
    assert lines[0].startswith("Turned off: head 2.")
