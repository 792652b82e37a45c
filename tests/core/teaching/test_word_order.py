"""Word order and positions: swaps, rotary offsets (attention_core.teaching.word_order)."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.maths.attention import softmax
from attention_core.teaching import word_order

TOKENS = ("the", "dog", "bit", "the", "man")


def test_without_encoding_swapped_weights_are_the_same_numbers_moved() -> None:
    config = ac.AttentionConfig(d_model=16, n_heads=2, positional="none")
    result = word_order.compare_swapped(TOKENS, 1, 4, config)
    assert result.swapped_tokens == ("the", "man", "bit", "the", "dog")
    assert result.weight_difference < 1e-12
    assert result.output_difference < 1e-12


@pytest.mark.parametrize("kind", ["sinusoidal", "learned", "rotary"])
def test_with_an_encoding_swapping_changes_the_weights(kind: str) -> None:
    config = ac.AttentionConfig(d_model=16, n_heads=1, positional=kind)
    result = word_order.compare_swapped(TOKENS, 1, 4, config)
    assert result.weight_difference > 0.01
    assert result.output_difference > 0.01


def test_realigned_weights_undo_the_swap() -> None:
    config = ac.AttentionConfig(d_model=8, n_heads=1, positional="none")
    result = word_order.compare_swapped(("a", "b", "c"), 0, 2, config)
    np.testing.assert_array_equal(result.order, [2, 1, 0])
    # Row "a" of the original is row 2 of the swapped run, column "c" its column 0.
    assert result.realigned_weights[0, 0, 2] == result.swapped_weights[0, 2, 0]


@pytest.mark.parametrize("positional", ["none", "sinusoidal"])
def test_each_weight_row_is_the_softmax_of_its_masked_scores_in_both_orders(
    positional: str,
) -> None:
    config = ac.AttentionConfig(d_model=8, n_heads=1, positional=positional, mask="causal")
    result = word_order.compare_swapped(TOKENS, 1, 4, config)
    np.testing.assert_allclose(softmax(result.masked.copy()), result.weights, atol=1e-15)
    realigned = softmax(result.realigned_masked.copy())
    np.testing.assert_allclose(realigned, result.realigned_weights, atol=1e-15)


@pytest.mark.parametrize("first, second", [(-1, 2), (0, 3), (1.5, 2), (True, 2)])
def test_swap_positions_outside_the_sentence_are_refused(first, second) -> None:
    with pytest.raises(ac.InputError):
        word_order.swap_order(3, first, second)


def test_rotary_score_depends_only_on_the_offset() -> None:
    result = word_order.rotary_offset_scores(width=12, max_offset=30, base=10_000.0, seed=3)
    assert result.scores.shape == (len(word_order.ROTARY_START_POSITIONS), 31)
    assert result.spread < 1e-9
    assert np.ptp(result.scores[0]) > 0.1


def test_rotary_reference_holds_cosine_and_sine_of_the_angles() -> None:
    reference = word_order.rotary_reference(6, 4, base=100.0)
    positions = np.arange(6)
    np.testing.assert_allclose(reference[:, 0], np.cos(positions), atol=1e-12)
    np.testing.assert_allclose(reference[:, 1], np.sin(positions), atol=1e-12)
    np.testing.assert_allclose(reference[:, 2], np.cos(positions / 10.0), atol=1e-12)
    np.testing.assert_allclose(reference[:, 3], np.sin(positions / 10.0), atol=1e-12)


def test_sinusoidal_similarity_is_constant_along_each_diagonal() -> None:
    similarity = word_order.position_similarity(ac.sinusoidal_encoding(16, 8))
    for offset in range(-15, 16):
        diagonal = np.diagonal(similarity, offset=offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-12)
    np.testing.assert_allclose(np.diag(similarity), 4.0)  # d/2 pairs of sin² + cos²


def test_no_encoding_is_all_zeros_and_unknown_kind_is_refused() -> None:
    assert not np.any(word_order.position_matrix("none", 5, 4))
    with pytest.raises(ac.InputError):
        word_order.position_matrix("../../etc", 5, 4)
