"""A selected cell of the walkthrough's, the learning page's, the time-series page's and the
positional-encoding page's matrices (AppTest): announced, and its computation written with the
core's numbers, the same number as the matrix entry shown: weights, context entries, the
heads' combined output and the weights' gradients, an encoding's entries and P Pᵀ, a sweep's
accuracy lost.

A cell is selected as the browser would: its walkable matrix's state in Session State
(``walk_<chart key>``; in a grid, ``walk_<chart key>_<panel>`` once "Walk a matrix cell by
cell" is open on that panel). The browser side: tests/browser/test_walk_pages_browser.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.learning.ablation import single_head_sweep
from attention_core.learning.config import DEFAULTS
from attention_core.learning.patterns import pattern_lines, target_pattern
from attention_core.learning.predict import predict
from attention_core.learning.shipped import shipped_run
from attention_core.learning.tasks import get_task
from attention_core.teaching import gradcheck, walkthrough_steps, word_order
from attention_core.teaching.cell_computation import (
    DIGITS,
    context_cell,
    given_value_cell,
    given_weight_cell,
    number,
    recorded_weight_cell,
    similarity_cell,
    weight_cell,
)
from attention_core.teaching.encoding_cells import encoding_cell
from attention_core.teaching.gradient_cells import backward_steps, gradient_cell
from attention_core.teaching.head_cells import accuracy_drop_cell, combined_cell
from tests.plotly_specs import decode, walkable_matrices
from ui.shared.safe import unescape_markdown
from ui.shared.walkable_data import cell_announcement, value_text
from ui.time_series import cache as series_cache
from ui.time_series.state import load_sample

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def through_app(page: str, **query_params: str) -> AppTest:
    """app.py with ``query_params`` in the URL, switched to ``views/<page>.py``."""
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in query_params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(f"views/{page}.py").run()


def select(at: AppTest, key: str, cell: tuple[int, int], panel: int | None = None) -> AppTest:
    """Select ``cell`` of the walkable matrix of chart ``key`` (of a grid's ``panel``), rerun."""
    row, col = cell
    if panel is None:
        at.session_state[f"walk_{key}"] = {"cell": {"row": row, "col": col}}
    else:
        at.session_state[f"walkpanel_{key}"] = True
        at.session_state[f"walkpick_{key}"] = panel
        at.session_state[f"walk_{key}_{panel}"] = {"cell": {"row": row, "col": col}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> list[str]:
    return [unescape_markdown(block.value) for block in at.markdown]


def walked(at: AppTest, title: str) -> dict:
    """The one walkable matrix whose title starts with ``title``."""
    specs = [s for s in walkable_matrices(at) if s["walkable"]["title"].startswith(title)]
    assert len(specs) == 1, [s["walkable"]["title"] for s in walkable_matrices(at)]
    return specs[0]


def assert_explained(
    at: AppTest, title: str, cell: tuple[int, int], lines: tuple[str, ...], entry: float
) -> None:
    """The matrix ``title`` draws ``entry`` at ``cell``; the page announces the cell and
    writes every line of its computation, whose last number is ``entry`` as the grid says it."""
    spec = walked(at, title)
    data = spec["walkable"]
    shown = float(decode(spec["data"][0]["z"])[cell])
    assert shown == pytest.approx(entry, abs=1e-6)  # float32 on the wire
    text = shown_text(at)
    assert cell_announcement(data, cell) in text
    for line in lines:
        assert line in text
    written = lines[-1].rstrip(".").split()[-1]  # "... = 0.123." -> "0.123"
    assert written == number(entry)
    said = float(value_text(shown, data["decimals"]).replace("−", "-"))  # as the grid says it
    assert abs(float(written.replace("−", "-")) - said) <= 0.5 * 10**-DIGITS + 1e-9


# --- The walkthrough ------------------------------------------------------------

COOL = "“attention is cool” (transformer notes)"  #: step 2's third example, by its tab


def test_a_walkthrough_weight_is_the_softmax_of_the_four_words_scores() -> None:
    at = through_app("walkthrough", step="2")
    at = select(at, "wt_four_words_weights", (2, 1))
    trace = ac.examples.four_words_attention()
    lines = weight_cell(trace.masked, 2, 1).lines
    assert_explained(at, "Attention weights (4, 4)", (2, 1), lines, float(trace.weights[2, 1]))


def test_a_walkthrough_context_entry_is_the_sum_of_the_given_weights_times_values() -> None:
    at = through_app("walkthrough", step="2", wt_example=COOL)
    at = select(at, "wt_cool_context", (2, 1))
    examples = ac.examples
    entry = walkthrough_steps.context_entry(examples.COOL_WEIGHTS, examples.COOL_VALUES, 2, 1)
    lines = context_cell(examples.COOL_WEIGHTS, examples.COOL_VALUES, 2, 1).lines
    assert_explained(at, "Context vectors C = W V", (2, 1), lines, entry.value)


def test_the_given_weights_and_values_say_they_are_given_and_where_they_go() -> None:
    at = through_app("walkthrough", step="2", wt_example=COOL)
    examples = ac.examples
    weights, values = examples.COOL_WEIGHTS, examples.COOL_VALUES
    at = select(at, "wt_cool_weights", (2, 0))
    lines = given_weight_cell(weights, 2, 0, "given by the notes, not computed here.").lines
    assert "add up to 1.000" in lines[1]
    assert_explained(at, "Weights W", (2, 0), lines, float(weights[2, 0]))
    at = select(at, "wt_cool_values", (1, 3))
    lines = given_value_cell(values, 1, 3, "given by the notes, not computed here.").lines
    assert_explained(at, "Values V", (1, 3), lines, float(values[1, 3]))


def test_a_masked_five_day_weight_and_a_wrong_masks_weight_say_how_they_came_about() -> None:
    at = through_app("walkthrough", step="4")
    result = walkthrough_steps.five_day_masking()
    at = select(at, "wt_mask_1", (0, 3))  # × 0/1 mask: day 1 still looks at day 4
    lines = weight_cell(result.scaled * result.mask, 0, 3).lines
    assert_explained(at, "Wrong: × 0/1 mask", (0, 3), lines, float(result.multiplied[0, 3]))
    assert any("0/1 mask's 0" in line for line in shown_text(at))
    at = select(at, "wt_mask_2", (3, 1))  # column softmax: the column of key 2
    masked = np.where(result.mask, result.scaled, -np.inf)
    lines = weight_cell(masked.T, 1, 3).lines
    assert_explained(at, "Wrong: column softmax", (3, 1), lines, float(result.wrong_axis[3, 1]))


def test_a_walkthrough_heads_weight_is_explained_in_its_own_panel() -> None:
    at = through_app("walkthrough", step="5", wt_head_width="4")
    at = select(at, "wt_head_weights", (4, 2), panel=1)
    trace = walkthrough_steps.multi_head_example(head_width=4).trace
    lines = weight_cell(trace.masked[1], 4, 2).lines
    title = "Each head's attention weights, head 2"
    assert_explained(at, title, (4, 2), lines, float(trace.weights[1, 4, 2]))


@pytest.mark.parametrize(("strategy", "cell"), [("concat", (2, 7)), ("learned", (2, 1))])
def test_a_combined_output_entry_is_written_from_the_heads_contexts(
    strategy: str, cell: tuple[int, int]
) -> None:
    at = through_app("walkthrough", step="5", wt_head_width="4", wt_combine=strategy)
    at = select(at, "wt_head_output", cell)
    example = walkthrough_steps.multi_head_example(head_width=4)
    projections = example.projections
    found = combined_cell(
        strategy, example.trace.context, *cell,
        w_o=projections.w_o, head_weights=projections.head_weights,
    )  # fmt: skip
    entry = float(example.combined[strategy][cell])
    assert_explained(at, "Combined output (5, ", cell, found.lines, entry)


def test_a_gradient_entry_is_followed_back_to_the_outputs_error() -> None:
    at = through_app("walkthrough", step="6", wt_grad_seed="3", wt_grad_causal="true")
    at = select(at, "wt_gradients", (1, 0), panel=2)  # ∂L/∂W_V
    example = gradcheck.gradient_example(3, causal=True)
    found = gradient_cell(backward_steps(example), "W_V", 1, 0)
    entry = float(gradcheck.check_gradients(example).hand["W_V"][1, 0])
    title = "Gradient each weight matrix receives (by hand), ∂L/∂W_V"
    assert_explained(at, title, (1, 0), found.lines, entry)
    assert any(line.startswith("Each output's error") for line in found.lines)


# --- The learning page ------------------------------------------------------------


def test_a_learning_weight_is_the_softmax_of_the_trained_models_scores() -> None:
    at = through_app("learning", learn_task="induction")
    model, train = DEFAULTS["induction"]
    result = shipped_run(model, train)
    assert result is not None
    task = get_task("induction")
    trace = predict(result.final, result.model, task.parse(task.default_probe)).trace
    at = select(at, "learn_try_heads", (6, 3), panel=2)  # layer 2 · head 1
    heads = trace.traces[1]
    lines = weight_cell(heads.masked[0], 6, 3).lines
    title = "Every head of the trained model on your sequence, layer 2 · head 1"
    assert_explained(at, title, (6, 3), lines, float(heads.weights[0, 6, 3]))


@pytest.mark.parametrize("name", ["reverse", "sort", "induction"])
def test_a_target_cell_says_the_tasks_rule(name: str) -> None:
    at = through_app("learning", learn_task=name)
    task = get_task(name)
    tokens = task.expand(task.parse(task.default_probe)).tokens[0]  # as the model reads it
    pattern = target_pattern(task, tokens)
    cell = tuple(int(a[-1]) for a in np.nonzero(pattern))  # the last place to look
    at = select(at, "learn_try_target", cell)
    data = walked(at, "Target (your sequence)")["walkable"]
    text = shown_text(at)
    assert cell_announcement(data, cell) in text
    lines = pattern_lines(task, tokens, *cell)
    for line in lines:
        assert line in text
    assert lines[-1].endswith("is 1: a place a head that solves the task looks.")


# --- The time-series page ---------------------------------------------------------


def window_run() -> series_cache.WindowRun:
    """The page's window for ``ts_seed=501`` on the seasonal sample (its defaults otherwise)."""
    config = ac.AttentionConfig(
        d_model=16, n_heads=2, positional="learned", mask="causal", seed=501
    )
    frame = load_sample("seasonal")
    inputs = series_cache.window_inputs(
        "sample:seasonal", (["sales"], "sales"), 28, "zscore", len(frame) - 1, config, "relu"
    )
    return series_cache.window_run(inputs, frame)


def test_a_time_series_weight_and_context_entry_are_computed_from_the_windows_run() -> None:
    at = AppTest.from_file(str(ROOT / "views" / "time_series.py"), default_timeout=90)
    at.query_params["ts_seed"] = "501"
    at.run()
    run = window_run()
    assert run.masked is not None and run.weights is not None and run.v is not None
    at = select(at, "ts_weights_chart", (20, 13))
    lines = weight_cell(run.masked[0], 20, 13).lines
    assert_explained(
        at, "Attention weights of head 1", (20, 13), lines, float(run.weights[0, 20, 13])
    )
    at = select(at, "ts_context", (5, 9))  # head 2's dimension 1 (d_v = 8)
    lines = context_cell(run.weights[1], run.v[1], 5, 1).lines
    assert run.concat is not None
    assert_explained(at, "Context vectors", (5, 9), lines, float(run.concat[5, 9]))


# --- The positional-encoding page -------------------------------------------------


def test_a_positional_similarity_is_the_dot_product_of_two_positions_encodings() -> None:
    params = {"pe_kind": "sinusoidal", "pe_length": "12", "pe_d_model": "16"}
    at = select(through_app("positional_encoding", **params), "pe_similarity_figure", (7, 2))
    encoding = word_order.position_matrix("sinusoidal", 12, 16)
    similarity = word_order.position_similarity(encoding)
    lines = similarity_cell(encoding, 7, 2).lines
    assert_explained(at, "How alike two positions are", (7, 2), lines, float(similarity[7, 2]))


@pytest.mark.parametrize("kind", ["sinusoidal", "rotary", "learned"])
def test_an_encoding_entry_is_recomputed_from_its_formula(kind: str) -> None:
    params = {"pe_kind": kind, "pe_length": "12", "pe_d_model": "16", "pe_base": "100"}
    at = select(through_app("positional_encoding", **params), "pe_matrix_figure", (7, 5))
    matrix = word_order.position_matrix(kind, 12, 16, 100.0)
    lines = encoding_cell(kind, 7, 5, 16, 100.0).lines
    assert_explained(at, f"{kind} encoding (12 positions", (7, 5), lines, float(matrix[7, 5]))


def test_a_swapped_sentences_weight_is_explained_in_its_own_order() -> None:
    at = through_app("positional_encoding", pe_kind="sinusoidal")
    at = select(at, "pe_swap_sinusoidal", (3, 1), panel=1)
    config = ac.AttentionConfig(d_model=16, n_heads=1, positional="sinusoidal")
    tokens = ac.tokenize("the dog bit the man").tokens
    comparison = word_order.compare_swapped(tokens, 1, 4, config)
    lines = weight_cell(comparison.realigned_masked[0], 3, 1).lines
    entry = float(comparison.realigned_weights[0, 3, 1])
    assert_explained(at, "Attention weights, swapped, put back", (3, 1), lines, entry)


def test_a_sweeps_accuracy_lost_is_every_head_on_minus_that_head_off() -> None:
    at = through_app("learning", learn_task="induction", learn_induction_sweep="true")
    at = select(at, "learn_sweep", (1, 0))  # layer 2 · head 1
    model, train = DEFAULTS["induction"]
    result = shipped_run(model, train)
    assert result is not None
    sweep = single_head_sweep(result)
    lines = accuracy_drop_cell(
        sweep.intact.accuracy, sweep.accuracy, sweep.intact.asked, 1, 0, "zero"
    ).lines
    assert_explained(at, "Held-out accuracy lost", (1, 0), lines, float(sweep.drops[1, 0]))


def test_a_replayed_weight_gives_its_place_and_its_rows_sum_at_that_step() -> None:
    at = through_app("learning", learn_task="induction")
    model, train = DEFAULTS["induction"]
    result = shipped_run(model, train)
    assert result is not None
    step = int(result.snapshot_steps[-1])  # the slider starts at the last snapshot
    weights = result.snapshot_weights[-1][1, 0]  # layer 2 · head 1 (panel 2)
    at = select(at, "learn_replay_heads", (6, 3), panel=2)
    lines = recorded_weight_cell(weights, 6, 3, f"at training step {step}").lines
    title = f"Every head at step {step}, layer 2 · head 1"
    assert_explained(at, title, (6, 3), lines, float(weights[6, 3]))
