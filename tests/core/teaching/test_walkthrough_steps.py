"""The numbers behind the walkthrough's steps 3-5 (attention_core.teaching.score_scaling and
walkthrough_steps)."""

from __future__ import annotations

import numpy as np

import attention_core as ac
from attention_core.teaching import score_scaling, walkthrough_steps


def test_unscaled_softmax_saturates_as_the_width_grows_and_scaled_does_not() -> None:
    table = score_scaling.softmax_saturation(widths=(4, 64, 512), n_keys=8, n_trials=400, seed=1)
    assert np.all(np.diff(table.max_weight_unscaled) > 0)
    assert table.max_weight_unscaled[-1] > 0.9
    assert np.all(table.max_weight_scaled < 0.45)
    assert table.entropy_unscaled[-1] < 0.25 < table.entropy_scaled[-1]
    assert np.all(table.entropy_scaled <= table.uniform_entropy)
    np.testing.assert_allclose(table.score_std_scaled, 1.0, atol=0.1)
    np.testing.assert_allclose(table.score_std_unscaled, np.sqrt([4, 64, 512]), rtol=0.1)
    assert table.gradient_unscaled[-1] < table.gradient_scaled[-1] / 3


def test_masking_right_and_wrong_side_by_side() -> None:
    result = walkthrough_steps.five_day_masking()
    np.testing.assert_allclose(result.right, ac.examples.five_day_attention(True).weights)
    assert np.all(result.forbidden_weight(result.right) == 0.0)
    np.testing.assert_allclose(result.row_sums(result.right), 1.0)
    leaked = result.forbidden_weight(result.multiplied)
    assert leaked[0] > 0.5  # day 1 may only see itself, yet most weight leaks to the future
    assert leaked[-1] == 0.0  # the last day may see everything: nothing to leak
    assert np.all(result.forbidden_weight(result.wrong_axis) == 0.0)
    assert not np.allclose(result.row_sums(result.wrong_axis), 1.0)
    np.testing.assert_allclose(result.wrong_axis.sum(axis=0), 1.0)


def test_twelve_features_in_heads_of_four_make_three_heads() -> None:
    example = walkthrough_steps.multi_head_example(head_width=4)
    assert example.trace.weights.shape == (3, 5, 5)
    assert example.trace.q.shape == (3, 5, 4)
    assert example.combined["concat"].shape == (5, 12)
    for strategy in ("mean", "max", "learned"):
        assert example.combined[strategy].shape == (5, 4)
    np.testing.assert_allclose(example.combined["mean"], example.trace.context.mean(axis=0))
    assert example.separate_difference == 0.0
