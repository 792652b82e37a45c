"""Next-token predictions: the top guesses and the real next token's rank, on hand-made logits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core.boundary.errors import InputError
from attention_core.pretrained import predictions


def test_top_guesses_are_sorted_by_probability_with_exact_softmax_values() -> None:
    logits = np.array([[0.0, 2.0, 1.0, math.log(3.0)]])  # e^z = 1, e^2, e, 3
    total = 1.0 + math.e**2 + math.e + 3.0

    ids, probabilities = predictions.top_next(logits, k=3)

    np.testing.assert_array_equal(ids, [[1, 3, 2]])
    np.testing.assert_allclose(probabilities, [[math.e**2 / total, 3 / total, math.e / total]])


def test_equal_probabilities_go_to_the_lower_id_first() -> None:
    logits = np.array([[1.0, 5.0, 1.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]])

    ids, probabilities = predictions.top_next(logits, k=3)

    np.testing.assert_array_equal(ids, [[1, 3, 0], [0, 1, 2]])
    np.testing.assert_allclose(probabilities[1], [0.2, 0.2, 0.2])


def test_huge_logits_do_not_overflow() -> None:
    logits = np.array([[1000.0, 999.0, -1000.0]])

    ids, probabilities = predictions.top_next(logits, k=3)

    np.testing.assert_array_equal(ids, [[0, 1, 2]])
    expected = np.array([1.0, math.exp(-1.0), 0.0]) / (1.0 + math.exp(-1.0))
    np.testing.assert_allclose(probabilities[0], expected, atol=1e-300)


def test_rank_of_the_real_next_token() -> None:
    logits = np.array(
        [
            [0.0, 3.0, 2.0, 1.0],  # next is id 3: third guess
            [9.0, 0.0, 0.0, 0.0],  # next is id 0: top guess
            [1.0, 1.0, 1.0, 1.0],  # the last position has no next token
        ]
    )
    ids = np.array([2, 3, 0])

    ranks, probabilities = predictions.rank_of_next(logits, ids)

    np.testing.assert_array_equal(ranks, [3, 1])
    first = np.exp([0.0, 3.0, 2.0, 1.0]) / np.exp([0.0, 3.0, 2.0, 1.0]).sum()
    second = np.exp([9.0, 0.0, 0.0, 0.0]) / np.exp([9.0, 0.0, 0.0, 0.0]).sum()
    np.testing.assert_allclose(probabilities, [first[3], second[0]])


def test_a_tie_ranks_the_real_token_after_lower_ids_only() -> None:
    logits = np.zeros((2, 4))  # four equally likely tokens
    ranks, probabilities = predictions.rank_of_next(logits, np.array([0, 2]))

    np.testing.assert_array_equal(ranks, [3])  # ids 0 and 1 come first
    np.testing.assert_allclose(probabilities, [0.25])


def test_one_token_has_no_next_token_to_rank() -> None:
    ranks, probabilities = predictions.rank_of_next(np.zeros((1, 3)), np.array([1]))

    assert ranks.shape == (0,)
    assert probabilities.shape == (0,)


@pytest.mark.parametrize(
    ("logits", "k", "message"),
    [
        (np.zeros(4), 1, "2 dimensions"),
        (np.zeros((2, 0)), 1, "empty"),
        (np.array([[0.0, np.nan]]), 1, "NaN"),
        (np.array([[0.0, np.inf]]), 1, "NaN or infinite"),
        (np.zeros((2, 3)), 4, "at most 3"),
        (np.zeros((2, 3)), 0, "at least 1"),
        (np.zeros((2, 3)), 2.5, "whole number"),
        ([["a", "b"]], 1, "numbers"),
    ],
)
def test_bad_logits_or_k_are_refused_with_a_message(logits, k, message) -> None:
    with pytest.raises(InputError, match=message):
        predictions.top_next(logits, k=k)


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (np.array([0, 1]), r"one id per position \(3\)"),
        (np.array([[0, 1, 2]]), "one id per position"),
        (np.array([0.0, 1.0, 2.0]), "whole numbers"),
        (np.array([0, 1, 5]), r"0 \.\. 3"),
        (np.array([-1, 1, 2]), r"0 \.\. 3"),
    ],
)
def test_bad_ids_are_refused_with_a_message(ids, message) -> None:
    with pytest.raises(InputError, match=message):
        predictions.rank_of_next(np.zeros((3, 4)), ids)


# --- properties ----------------------------------------------------------------

small_logits = st.integers(1, 5).flatmap(
    lambda length: st.integers(1, 8).flatmap(
        lambda vocab: arrays(
            np.float64,
            (length, vocab),
            # few distinct values, so ties happen often
            elements=st.sampled_from([-3.0, -1.0, 0.0, 0.5, 2.0, 40.0]),
        )
    )
)


@given(small_logits, st.data())
def test_the_top_guesses_are_the_head_of_one_full_order(logits, data) -> None:
    k = data.draw(st.integers(1, logits.shape[1]))

    ids, probabilities = predictions.top_next(logits, k=k)

    full = predictions.next_token_probabilities(logits)
    for row, row_ids, row_probabilities in zip(full, ids, probabilities, strict=True):
        expected = sorted(range(row.size), key=lambda token: (-row[token], token))[:k]
        assert row_ids.tolist() == expected
        np.testing.assert_array_equal(row_probabilities, row[expected])
    np.testing.assert_allclose(full.sum(axis=1), 1.0)


@given(small_logits, st.data())
def test_a_rank_within_k_points_at_the_real_token_in_the_top_guesses(logits, data) -> None:
    length, vocab = logits.shape
    ids = np.array(data.draw(st.lists(st.integers(0, vocab - 1), min_size=length, max_size=length)))

    ranks, probabilities = predictions.rank_of_next(logits, ids)
    top_ids, top_probabilities = predictions.top_next(logits, k=vocab)

    assert np.all((ranks >= 1) & (ranks <= vocab))
    for position, rank in enumerate(ranks):
        assert top_ids[position, rank - 1] == ids[position + 1]
        assert top_probabilities[position, rank - 1] == probabilities[position]


@given(
    rows=st.integers(1, 3 * predictions.ROWS_AT_ONCE + 1),
    vocab=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_summary_in_chunks_equals_the_guesses_and_ranks_row_by_row(
    rows: int, vocab: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    logits = rng.integers(-3, 3, (rows, vocab)).astype(np.float64)  # many ties
    ids = rng.integers(0, vocab, rows)
    k = min(3, vocab)
    top_ids, top_probabilities, ranks, rank_probabilities = predictions.next_token_summary(
        logits, ids, k
    )
    for t in range(rows):
        expected_ids, expected_p = predictions.top_next(logits[t : t + 1], k)
        np.testing.assert_array_equal(top_ids[t], expected_ids[0])
        np.testing.assert_allclose(top_probabilities[t], expected_p[0])
    expected_ranks = [
        predictions.rank_of_next(logits[t : t + 2], ids[t : t + 2])[0][0] for t in range(rows - 1)
    ]
    np.testing.assert_array_equal(ranks, expected_ranks)
    assert rank_probabilities.shape == (rows - 1,)
