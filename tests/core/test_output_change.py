"""What turning heads off did to an output, row by row (attention_core.output_change)."""

from __future__ import annotations

import numpy as np

import attention_core as ac


def test_the_change_is_the_difference_its_row_lengths_and_the_rows_by_how_far_they_moved() -> None:
    intact = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 0.0]])  # row lengths 5, 1, 0
    ablated = np.array([[3.0, 4.0], [1.0, 2.0], [0.0, 0.5]])
    change = ac.output_change(intact, ablated)
    np.testing.assert_array_equal(change.difference, [[0.0, 0.0], [0.0, 2.0], [0.0, 0.5]])
    np.testing.assert_array_equal(change.moved, [0.0, 2.0, 0.5])
    np.testing.assert_array_equal(change.relative, [0.0, 2.0, 0.0])  # 0 where |O_t| = 0
    np.testing.assert_array_equal(change.order, [1, 2, 0])


def test_ties_keep_the_earlier_row_first_and_nothing_off_moves_nothing() -> None:
    intact = np.ones((4, 3))
    change = ac.output_change(intact, intact.copy())
    np.testing.assert_array_equal(change.moved, np.zeros(4))
    np.testing.assert_array_equal(change.order, [0, 1, 2, 3])


def test_on_the_text_pages_run_the_change_is_the_run_with_heads_off_minus_the_intact_run() -> None:
    tokens = ac.tokenize("the cat sat on the mat").tokens
    for combine in ac.COMBINATIONS:
        config = ac.AttentionConfig(n_heads=4, combine=combine)
        intact = ac.run_text_attention(tokens, config)
        off = ac.run_text_attention(tokens, config, ablation=ac.Ablation.of([(0, 1), (0, 3)]))
        change = ac.output_change(intact.trace.output, off.trace.output)
        np.testing.assert_array_equal(change.difference, off.trace.output - intact.trace.output)
        assert change.moved.max() > 0, combine
