"""A gradient entry written out (attention_core.teaching.gradient_cells) equals the hand-written
backward pass's and PyTorch autograd's, and its chain holds the numbers of each step back."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.boundary.gradients import attention_backward
from attention_core.teaching import gradcheck
from attention_core.teaching.cell_computation import number
from attention_core.teaching.gradient_cells import (
    MADE,
    backward_steps,
    gradient_cell,
    score_lines,
)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seed", [0, 7, 42])
def test_every_gradient_entry_equals_the_hand_written_pass_and_autograd(
    seed: int, causal: bool
) -> None:
    example = gradcheck.gradient_example(seed, causal)
    check = gradcheck.check_gradients(example)
    steps = backward_steps(example)
    for name in MADE:
        rows, columns = check.hand[name].shape
        for m in range(rows):
            for e in range(columns):
                cell = gradient_cell(steps, name, m, e)
                assert cell.value == pytest.approx(check.hand[name][m, e], rel=1e-9, abs=1e-12)
                assert cell.value == pytest.approx(check.autograd[name][m, e], rel=1e-9, abs=1e-12)
                assert cell.lines[-1] == f"Sum: {number(cell.value)}."


def test_each_step_back_equals_the_cores_backward_pass() -> None:
    example = gradcheck.gradient_example(3, causal=True)
    steps = backward_steps(example)
    d_output = steps.output - example.target
    core = attention_backward(
        example.x, example.x, example.x, example.w_q, example.w_k, example.w_v, d_output,
        mask=example.mask,
    )  # fmt: skip
    for ours, theirs in (
        (steps.d_v, core.d_v),
        (steps.d_q, core.d_q),
        (steps.d_k, core.d_k),
        (steps.d_scores, core.d_scores),
    ):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def test_a_value_weights_chain_reaches_the_outputs_error() -> None:
    steps = backward_steps(gradcheck.gradient_example(0))
    cell = gradient_cell(steps, "W_V", 1, 0)
    products = steps.x[:, 1] * steps.d_v[:, 0]
    t = int(np.argmax(np.abs(products)))
    assert f"The largest term is token {t}'s" in cell.lines[1]
    assert cell.lines[2].startswith(f"∂v{t}[0], token {t}'s share")
    assert f"together {number(steps.d_v[t, 0])}." in cell.lines[3]
    error = f"∂o0[0] = {number(steps.output[0, 0])} − "
    assert cell.lines[4].startswith("Each output's error") and error in cell.lines[4]


def test_a_query_weights_chain_goes_through_the_softmax() -> None:
    steps = backward_steps(gradcheck.gradient_example(0))
    cell = gradient_cell(steps, "W_Q", 0, 1)
    t = int(np.argmax(np.abs(steps.x[:, 0] * steps.d_q[:, 1])))
    j = int(np.argmax(np.abs(steps.d_scores[t] * steps.k[:, 1])))
    softmax = next(line for line in cell.lines if line.startswith(f"∂s[{t}, {j}], through"))
    assert f"= {number(steps.d_scores[t, j])}." in softmax
    assert f"{number(steps.weights[t, j])} × ({number(steps.d_weights[t, j])} − " in softmax
    assert any(line.startswith(f"∂A[{t}, {j}] = ∂o{t} · v{j}") for line in cell.lines)


def test_a_masked_score_says_it_passes_no_gradient() -> None:
    steps = backward_steps(gradcheck.gradient_example(0, causal=True))
    assert steps.d_scores[0, 3] == 0.0  # query 0 may not look at key 3
    assert score_lines(steps, 0, 3) == (
        "∂s[0, 3]: key 3 is masked for query 0, its weight is 0, so ∂s = 0.",
    )
