"""An entry of the heads' combined output written out (attention_core.teaching.head_cells)
equals the core's own: every way of combining heads, the heads side by side, a head turned
off, the change it makes, and a sweep's accuracy lost."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.learning.ablation import HeldOutScore, Sweep
from attention_core.maths.ablation import Ablation, ablate_heads
from attention_core.maths.attention import merge_heads, output_projection
from attention_core.maths.projections import Projections
from attention_core.teaching import walkthrough_steps
from attention_core.teaching.cell_computation import SHOWN_TERMS, number
from attention_core.teaching.head_cells import (
    accuracy_drop_cell,
    change_cell,
    combined_cell,
    concat_cell,
    projected_cell,
    replaced_cell,
)


def every_entry(matrix: np.ndarray) -> list[tuple[int, int]]:
    return [(t, c) for t in range(matrix.shape[0]) for c in range(matrix.shape[1])]


@pytest.mark.parametrize("strategy", ["concat", "mean", "max", "learned"])
@pytest.mark.parametrize("head_width", [1, 4, 6])
def test_every_combined_entry_equals_the_walkthroughs_output(
    strategy: str, head_width: int
) -> None:
    example = walkthrough_steps.multi_head_example(head_width=head_width)
    projections, output = example.projections, example.combined[strategy]
    for t, c in every_entry(output):
        cell = combined_cell(
            strategy,
            example.trace.context,
            t,
            c,
            w_o=projections.w_o,
            head_weights=projections.head_weights,
        )
        assert cell.value == pytest.approx(output[t, c], rel=1e-9, abs=1e-12), (t, c)
        assert cell.lines[-1].endswith(f"{number(cell.value)}.")


def test_concat_and_w_o_with_a_bias_writes_the_largest_products_and_the_bias() -> None:
    rng = np.random.default_rng(3)
    context = rng.normal(size=(3, 4, 5))  # 3 heads, 4 tokens, dv = 5: 15 products
    w_o, b_o = rng.normal(size=(15, 6)), rng.normal(size=6)
    expected = output_projection(context, Projections(w_o, w_o, w_o, w_o, None, b_o=b_o))
    for t, c in every_entry(expected):
        assert projected_cell(context, w_o, b_o, t, c).value == pytest.approx(expected[t, c])
    cell = projected_cell(context, w_o, b_o, 2, 4)
    assert cell.lines[1].count(" × ") == SHOWN_TERMS
    assert "the other 7 terms together" in cell.lines[1]
    assert f"Plus the bias b^O[4] = {number(b_o[4])}." in cell.lines
    products = context[:, 2, :].reshape(-1) * w_o[:, 4]
    largest = int(np.argmax(np.abs(products)))
    assert f"concat[{largest}] (head {largest // 5 + 1}) × W^O[{largest}, 4]" in cell.lines[1]


def test_the_heads_side_by_side_are_split_back_and_named_by_head_and_dimension() -> None:
    context = np.random.default_rng(0).normal(size=(3, 4, 2))
    concat = merge_heads(context)
    np.testing.assert_array_equal(ac.split_heads(concat, 3), context)
    for t, c in every_entry(concat):
        assert concat_cell(context, t, c).value == concat[t, c]
    assert "is dimension 2 of head 3's context" in concat_cell(context, 1, 5).text


def test_the_max_names_the_head_it_came_from_and_the_mean_its_sum() -> None:
    context = np.array([[[1.0]], [[3.0]], [[2.0]]])  # 3 heads, one token, one dimension
    assert combined_cell("max", context, 0, 0).lines[-1].startswith("Head 2's is the largest")
    mean = combined_cell("mean", context, 0, 0)
    assert mean.value == 2.0 and "Their sum 6.000 divided by 3 heads: 2.000." in mean.lines


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_a_head_turned_off_gives_what_the_ablation_hands_the_combination(kind: str) -> None:
    context = np.random.default_rng(1).normal(size=(2, 5, 3))
    ablated = ablate_heads(context, Ablation.of([(0, 1)], kind))
    for t in range(5):
        for d in range(3):
            cell = replaced_cell(context[1], kind, t, d, 1)
            assert cell.value == pytest.approx(ablated[1, t, d], rel=1e-12, abs=1e-15)


def test_the_change_is_the_output_with_heads_off_minus_the_intact_one() -> None:
    tokens = ("the", "cat", "sat", "on", "the", "mat")
    config = ac.AttentionConfig(d_model=8, n_heads=2)
    intact = ac.run_text_attention(tokens, config)
    off = ac.run_text_attention(tokens, config, ablation=ac.Ablation.of([(0, 0)]))
    change = ac.output_change(intact.trace.output, off.trace.output).difference
    for t, c in every_entry(change):
        cell = change_cell(off.trace.output, intact.trace.output, t, c)
        assert cell.value == change[t, c]


def test_a_sweeps_accuracy_lost_is_the_intact_accuracy_minus_the_heads() -> None:
    accuracy = np.array([[0.5, 0.95], [0.9, 0.875]])  # (L, H)
    sweep = Sweep("zero", HeldOutScore(0.9, 0.1, 80), accuracy, np.zeros((2, 2)))
    for layer in range(2):
        for head in range(2):
            cell = accuracy_drop_cell(0.9, accuracy, 80, layer, head, "zero")
            assert cell.value == sweep.drops[layer, head]
    first = accuracy_drop_cell(0.9, accuracy, 80, 0, 0, "zero")
    assert "gets 40 of the 80 held-out answers right (50.0%), against 72 (90.0%)" in first.text
    assert first.lines[-1] == "Accuracy lost: 0.900 − 0.500 = 0.400."
    assert "does better without" in accuracy_drop_cell(0.9, accuracy, 80, 0, 1, "zero").text
