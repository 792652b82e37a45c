"""Copying-head scores on hand-made attention where the right answer is known exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core.boundary.errors import InputError
from attention_core.pretrained import circuits


def one_head(pattern: np.ndarray) -> np.ndarray:
    """A single head's ``(T, T)`` weights as ``(1 layer, 1 head, T, T)``."""
    return pattern[None, None]


def looks_at(targets: list[int]) -> np.ndarray:
    """Row ``i`` puts all its weight on key ``targets[i]``."""
    pattern = np.zeros((len(targets), len(targets)))
    pattern[np.arange(len(targets)), targets] = 1.0
    return pattern


def uniform_causal(length: int) -> np.ndarray:
    """Row ``t`` spreads its weight evenly over keys ``0 .. t``: ``1 / (t + 1)`` each."""
    return np.tril(np.ones((length, length))) / np.arange(1, length + 1)[:, None]


# --- the repeated sequence --------------------------------------------------------


def test_the_sequence_is_n_distinct_tokens_twice_avoiding_special_ones() -> None:
    ids = circuits.repeated_sequence(np.random.default_rng(0), vocab_size=12, n=8, avoid={0, 11})

    assert ids.shape == (16,)
    np.testing.assert_array_equal(ids[:8], ids[8:])
    assert len(set(ids[:8].tolist())) == 8
    assert not {0, 11} & set(ids.tolist())
    assert ids.dtype == np.int64


def test_a_bos_token_comes_first_and_the_same_seed_gives_the_same_tokens() -> None:
    with_bos = circuits.repeated_sequence(np.random.default_rng(3), 50, 5, avoid={7}, bos=7)
    without = circuits.repeated_sequence(np.random.default_rng(3), 50, 5, avoid={7})

    assert with_bos.shape == (11,)
    assert with_bos[0] == 7
    np.testing.assert_array_equal(with_bos[1:], without)


def test_the_bos_token_is_never_drawn_into_the_copies() -> None:
    ids = circuits.repeated_sequence(np.random.default_rng(0), vocab_size=3, n=2, bos=1)

    np.testing.assert_array_equal(ids, [1, *ids[1:3], *ids[1:3]])
    assert sorted(ids[1:3].tolist()) == [0, 2]


def test_every_allowed_token_can_be_used() -> None:
    ids = circuits.repeated_sequence(np.random.default_rng(1), vocab_size=4, n=3, avoid={2})

    assert sorted(ids[:3].tolist()) == [0, 1, 3]


@pytest.mark.parametrize(
    ("vocab_size", "n", "avoid", "message"),
    [
        (5, 5, {0}, "Only 4 tokens may be drawn"),
        (5, 1, set(), "at least 2 tokens"),
        (5, 0, set(), "at least 1"),
        (0, 2, set(), "vocabulary size must be at least 1"),
        (5, 2.5, set(), "whole number"),
    ],
)
def test_impossible_sequences_are_refused_with_a_message(vocab_size, n, avoid, message) -> None:
    with pytest.raises(InputError, match=message):
        circuits.repeated_sequence(np.random.default_rng(0), vocab_size, n, avoid)


def test_a_bos_outside_the_vocabulary_is_refused() -> None:
    with pytest.raises(InputError, match=r"BOS id 5 is not in the vocabulary 0 \.\. 4"):
        circuits.repeated_sequence(np.random.default_rng(0), 5, 2, bos=5)


# --- scores of heads made by hand -------------------------------------------------


def test_a_perfect_previous_token_head_scores_one_and_nothing_else() -> None:
    n = 4
    weights = one_head(looks_at([0, *range(2 * n - 1)]))  # t -> t-1, row 0 itself

    scores = circuits.detect_heads(weights, n)

    assert scores["previous_token"][0, 0] == 1.0
    assert scores["duplicate_token"][0, 0] == 0.0
    assert scores["induction"][0, 0] == 0.0


def test_uniform_attention_scores_the_mean_of_one_over_t_plus_one() -> None:
    n = 3
    weights = one_head(uniform_causal(2 * n))  # rows 0..5

    scores = circuits.detect_heads(weights, n)

    assert scores["previous_token"][0, 0] == pytest.approx(
        (1 / 2 + 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6) / 5
    )
    second_copy = (1 / 4 + 1 / 5 + 1 / 6) / 3  # rows 3, 4, 5
    assert scores["duplicate_token"][0, 0] == pytest.approx(second_copy)
    assert scores["induction"][0, 0] == pytest.approx(second_copy)


def test_a_hand_built_induction_head_scores_one() -> None:
    # "a b c d a b c d": the second "a" (row 4) looks at "b" (key 1), ..., the second
    # "d" (row 7) at the second "a" (key 4), the token after the first "d".
    n = 4
    weights = one_head(looks_at([0, 1, 2, 3, 1, 2, 3, 4]))

    scores = circuits.detect_heads(weights, n)

    assert scores["induction"][0, 0] == 1.0
    assert scores["duplicate_token"][0, 0] == 0.0
    assert scores["previous_token"][0, 0] == 0.0


def test_a_hand_built_duplicate_head_after_a_bos_token_scores_one() -> None:
    # "<bos> a b c a b c": the second copy (rows 4..6) looks at keys 1..3; the rest at <bos>.
    n = 3
    weights = one_head(looks_at([0, 0, 0, 0, 1, 2, 3]))

    scores = circuits.detect_heads(weights, n)

    assert scores["duplicate_token"][0, 0] == 1.0
    assert scores["induction"][0, 0] == 0.0
    assert scores["previous_token"][0, 0] == pytest.approx(1 / 6)  # only row 1 -> <bos>


def test_half_on_the_pattern_scores_one_half_per_head_and_layer() -> None:
    n = 2
    induction = looks_at([0, 1, 1, 2])
    stay = looks_at([0, 1, 2, 3])
    weights = np.stack([[induction, stay], [stay, 0.5 * induction + 0.5 * stay]])  # (2, 2, T, T)

    np.testing.assert_array_equal(circuits.induction_score(weights, n), [[1.0, 0.0], [0.0, 0.5]])


def test_our_scores_are_transformerlens_mul_scores_over_the_rows_that_can_match() -> None:
    # TransformerLens builds a 0/1 pattern P from the tokens and scores sum(A * P) / sum(A).
    n = 5
    ids = circuits.repeated_sequence(np.random.default_rng(2), 40, n, bos=0, avoid={0})
    rng = np.random.default_rng(5)
    raw = np.tril(rng.random((2, 3, ids.size, ids.size)))
    weights = raw / raw.sum(axis=-1, keepdims=True)  # rows sum to 1, causal
    same = np.equal.outer(ids, ids) & ~np.eye(ids.size, dtype=bool)
    duplicate = np.tril(same).astype(float)
    induction = np.zeros_like(duplicate)
    induction[:, 1:] = duplicate[:, :-1]  # the key one to the right of each earlier copy

    for pattern, ours in [
        (duplicate, circuits.duplicate_token_score(weights, n)),
        (induction, circuits.induction_score(weights, n)),
    ]:
        theirs = (weights * pattern).sum(axis=(-2, -1)) / weights.sum(axis=(-2, -1))
        np.testing.assert_allclose(ours, theirs * ids.size / n)


def test_the_strongest_heads_come_best_first_with_ties_to_the_lower_layer_and_head() -> None:
    scores = np.array([[0.1, 0.9, 0.3], [0.9, 0.2, 0.3]])

    assert circuits.strongest(scores, 4) == [(0, 1, 0.9), (1, 0, 0.9), (0, 2, 0.3), (1, 2, 0.3)]
    assert len(circuits.strongest(scores, 100)) == 6


@pytest.mark.parametrize(
    ("shape", "n", "message"),
    [
        ((1, 1, 6, 5), 3, r"\(layers, heads, T, T\)"),
        ((6, 6), 3, r"\(layers, heads, T, T\)"),
        ((1, 1, 5, 5), 3, "at least 6 tokens"),
        ((1, 1, 8, 8), 3, "not two copies of 3"),
        ((1, 1, 6, 6), 1, "at least 2"),
    ],
)
def test_weights_that_do_not_fit_the_sequence_are_refused(shape, n, message) -> None:
    with pytest.raises(InputError, match=message):
        circuits.induction_score(np.zeros(shape), n)


# --- properties -------------------------------------------------------------------


@st.composite
def causal_weights(draw):
    """Softmax weights ``(L, H, T, T)`` of random scores under a causal mask, and ``n``."""
    n = draw(st.integers(2, 4))
    length = 2 * n + draw(st.integers(0, 1))
    layers, heads = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    scores = draw(arrays(np.float64, (layers, heads, length, length), elements=st.floats(-30, 30)))
    causal = np.tril(np.ones((length, length), dtype=bool))
    exponentials = np.where(causal, np.exp(scores - scores.max(axis=-1, keepdims=True)), 0.0)
    return exponentials / exponentials.sum(axis=-1, keepdims=True), n


@given(causal_weights())
def test_every_score_lies_in_zero_to_one(problem) -> None:
    weights, n = problem

    for scores in circuits.detect_heads(weights, n).values():
        assert scores.shape == weights.shape[:2]
        assert np.all((scores >= 0.0) & (scores <= 1.0))


@given(causal_weights(), st.randoms())
def test_permuting_the_heads_permutes_their_scores(problem, random) -> None:
    weights, n = problem
    order = list(range(weights.shape[1]))
    random.shuffle(order)

    before = circuits.detect_heads(weights, n)
    after = circuits.detect_heads(weights[:, order], n)

    for name in circuits.DETECTORS:
        np.testing.assert_array_equal(after[name], before[name][:, order])
