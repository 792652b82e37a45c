"""Properties that hold for every input, checked with Hypothesis.

The strategies below only describe the space of inputs (sizes, finite numbers,
boolean masks); every test builds its arrays from them in the open.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as ac

sizes = st.integers(min_value=1, max_value=6)
finite = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False)


def matrices(rows, cols, elements=finite):
    return arrays(np.float64, (rows, cols), elements=elements)


@st.composite
def attention_problems(draw, elements=finite):
    """q (T, dk), k (S, dk), v (S, dv) and a boolean mask (T, S)."""
    t, s, d_k, d_v = draw(sizes), draw(sizes), draw(sizes), draw(sizes)
    q = draw(matrices(t, d_k, elements))
    k = draw(matrices(s, d_k, elements))
    v = draw(matrices(s, d_v, elements))
    mask = draw(arrays(np.bool_, (t, s)))
    return q, k, v, mask


# --- weights -----------------------------------------------------------------


@given(attention_problems())
def test_weights_of_every_query_with_an_allowed_key_sum_to_one(problem):
    q, k, v, mask = problem

    weights = ac.scaled_dot_product_attention(q, k, v, mask=mask).weights

    has_key = mask.any(axis=1)
    np.testing.assert_allclose(weights[has_key].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all((weights >= 0.0) & (weights <= 1.0))


@given(attention_problems())
def test_masked_keys_get_exactly_zero_weight(problem):
    q, k, v, mask = problem

    trace = ac.scaled_dot_product_attention(q, k, v, mask=mask)

    assert np.all(trace.weights[~mask] == 0.0)
    assert np.all(np.isneginf(trace.masked[~mask]))
    np.testing.assert_array_equal(trace.masked[mask], trace.scaled[mask])


@given(attention_problems())
def test_fully_masked_query_has_zero_weights_and_zero_context(problem):
    q, k, v, mask = problem
    mask = mask.copy()
    mask[0] = False  # the first query may attend to nothing

    trace = ac.scaled_dot_product_attention(q, k, v, mask=mask)

    np.testing.assert_array_equal(trace.weights[0], np.zeros(k.shape[0]))
    np.testing.assert_array_equal(trace.context[0], np.zeros(v.shape[1]))
    assert np.all(np.isfinite(trace.weights)) and np.all(np.isfinite(trace.context))


@given(attention_problems())
def test_without_mask_every_row_sums_to_one_and_context_is_weights_times_values(problem):
    q, k, v, _ = problem

    trace = ac.scaled_dot_product_attention(q, k, v)

    np.testing.assert_allclose(trace.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.context, trace.weights @ v, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(trace.scaled, trace.scores * (1 / math.sqrt(q.shape[1])))


# --- numerical range ----------------------------------------------------------


@given(arrays(np.float64, st.tuples(sizes, sizes), elements=st.floats(-1e300, 1e300)))
def test_softmax_is_finite_and_normalised_for_scores_up_to_1e300(scores):
    weights = ac.softmax(scores)

    assert np.all(np.isfinite(weights))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_softmax_of_1e300_puts_all_weight_on_the_largest_score():
    np.testing.assert_array_equal(ac.softmax(np.array([1e300, -1e300, 0.0])), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(ac.softmax(np.array([1e300, 1e300])), [0.5, 0.5])


def test_softmax_of_an_all_minus_inf_row_is_zeros_not_nan():
    scores = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 0.0]])

    np.testing.assert_array_equal(ac.softmax(scores), [[0.0, 0.0, 0.0], [0.5, 0.0, 0.5]])


@given(attention_problems(elements=st.floats(-1e6, 1e6)))
def test_attention_is_finite_for_inputs_of_magnitude_1e6(problem):
    q, k, v, mask = problem

    trace = ac.scaled_dot_product_attention(q, k, v, mask=mask)

    assert np.all(np.isfinite(trace.weights))
    assert np.all(np.isfinite(trace.context))
    has_key = mask.any(axis=1)
    np.testing.assert_allclose(trace.weights[has_key].sum(axis=1), 1.0, rtol=0, atol=1e-12)


# --- hardmax ---------------------------------------------------------------------


@given(arrays(np.float64, st.tuples(sizes, sizes), elements=finite))
def test_hardmax_is_one_hot_at_the_first_maximum(scores):
    one_hot = ac.hardmax(scores)

    expected = np.zeros_like(scores)
    expected[np.arange(scores.shape[0]), np.argmax(scores, axis=1)] = 1.0
    np.testing.assert_array_equal(one_hot, expected)


def test_hardmax_ties_go_to_the_first_maximum_and_masked_rows_stay_zero():
    scores = np.array([[1.0, 3.0, 3.0], [-np.inf, -np.inf, -np.inf], [-np.inf, 2.0, -np.inf]])

    np.testing.assert_array_equal(
        ac.hardmax(scores), [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )


@given(attention_problems())
def test_hardmax_attention_copies_the_value_of_the_best_allowed_key(problem):
    q, k, v, mask = problem

    trace = ac.scaled_dot_product_attention(q, k, v, mask=mask, normaliser="hardmax")

    for i in range(q.shape[0]):
        if mask[i].any():
            best = np.argmax(np.where(mask[i], trace.scaled[i], -np.inf))
            np.testing.assert_array_equal(trace.context[i], v[best])
        else:
            np.testing.assert_array_equal(trace.context[i], np.zeros(v.shape[1]))


# --- order ---------------------------------------------------------------------


@st.composite
def multi_head_problems(draw):
    """x (T, d_in), projections for H heads, and a permutation of the T tokens."""
    t, n_heads, d_k, d_v, d_in = (
        draw(sizes),
        draw(st.integers(1, 3)),
        draw(sizes),
        draw(sizes),
        draw(sizes),
    )
    x = draw(matrices(t, d_in))
    w_q = draw(matrices(d_in, n_heads * d_k))
    w_k = draw(matrices(d_in, n_heads * d_k))
    w_v = draw(matrices(d_in, n_heads * d_v))
    w_o = draw(matrices(n_heads * d_v, d_in))
    order = np.array(draw(st.permutations(range(t))))
    return x, w_q, w_k, w_v, w_o, n_heads, order


@given(multi_head_problems())
def test_without_positions_permuting_tokens_permutes_weights_and_outputs(problem):
    x, w_q, w_k, w_v, w_o, n_heads, order = problem

    plain = ac.multi_head_attention(x, w_q, w_k, w_v, w_o=w_o, n_heads=n_heads)
    shuffled = ac.multi_head_attention(x[order], w_q, w_k, w_v, w_o=w_o, n_heads=n_heads)

    np.testing.assert_allclose(
        shuffled.weights, plain.weights[:, order][:, :, order], rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(shuffled.output, plain.output[order], rtol=1e-9, atol=1e-9)


@given(multi_head_problems(), st.data())
def test_causal_attention_ignores_changes_to_future_tokens(problem, data):
    x, w_q, w_k, w_v, w_o, n_heads, _ = problem
    length = x.shape[0]
    step = data.draw(st.integers(0, length - 1))
    changed = x.copy()
    changed[step + 1 :] = data.draw(matrices(length - step - 1, x.shape[1]))
    mask = ac.causal_mask(length)

    before = ac.multi_head_attention(x, w_q, w_k, w_v, w_o=w_o, n_heads=n_heads, mask=mask)
    after = ac.multi_head_attention(changed, w_q, w_k, w_v, w_o=w_o, n_heads=n_heads, mask=mask)

    np.testing.assert_allclose(
        after.output[: step + 1], before.output[: step + 1], rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        after.weights[:, : step + 1], before.weights[:, : step + 1], rtol=1e-12, atol=1e-12
    )


# --- positional encodings ---------------------------------------------------------


@pytest.mark.parametrize("d_model", [1, 2, 3, 7, 8, 33, 64])
def test_sinusoidal_encoding_matches_the_formula_elementwise(d_model):
    length = 50

    encoding = ac.sinusoidal_encoding(length, d_model)

    assert encoding.shape == (length, d_model)
    for pos in range(length):
        for column in range(d_model):
            i = column // 2
            angle = pos / 10_000 ** (2 * i / d_model)
            expected = math.sin(angle) if column % 2 == 0 else math.cos(angle)
            assert abs(encoding[pos, column] - expected) <= 1e-12, (pos, column)


@given(st.integers(1, 512), st.integers(1, 512))
def test_sinusoidal_encoding_starts_at_sin_0_cos_0_and_stays_in_unit_range(length, d_model):
    encoding = ac.sinusoidal_encoding(length, d_model)

    assert encoding.shape == (length, d_model)
    np.testing.assert_array_equal(encoding[0, 0::2], 0.0)
    np.testing.assert_array_equal(encoding[0, 1::2], 1.0)
    assert np.all(np.abs(encoding) <= 1.0)


@given(st.integers(1, 512), st.integers(1, 512), st.integers(1, 64), st.integers(0, 2**31 - 1))
def test_learned_encoding_row_p_does_not_depend_on_the_length(short, long, d_model, seed):
    short, long = min(short, long), max(short, long)

    a = ac.learned_encoding(short, d_model, seed)
    b = ac.learned_encoding(long, d_model, seed)

    assert a.shape == (short, d_model) and b.shape == (long, d_model)
    np.testing.assert_array_equal(a, b[:short])


def test_learned_encoding_depends_on_the_seed():
    assert not np.array_equal(ac.learned_encoding(4, 8, seed=0), ac.learned_encoding(4, 8, seed=1))


@pytest.mark.parametrize("kind", ["none", "rotary"])
def test_none_and_rotary_add_a_zero_positional_encoding(kind):
    np.testing.assert_array_equal(ac.positional_encoding(kind, 5, 6), np.zeros((5, 6)))


# --- heads -------------------------------------------------------------------------


@given(sizes, st.integers(1, 4), sizes, st.data())
def test_merge_heads_inverts_split_heads(length, n_heads, width, data):
    projected = data.draw(matrices(length, n_heads * width))

    per_head = ac.split_heads(projected, n_heads)

    assert per_head.shape == (n_heads, length, width)
    for h in range(n_heads):
        np.testing.assert_array_equal(per_head[h], projected[:, h * width : (h + 1) * width])
    np.testing.assert_array_equal(ac.merge_heads(per_head), projected)
    np.testing.assert_array_equal(ac.split_heads(ac.merge_heads(per_head), n_heads), per_head)


def test_valid_head_counts_are_the_divisors():
    assert ac.valid_head_counts(12) == [1, 2, 3, 4, 6, 12]
    assert ac.valid_head_counts(12, maximum=5) == [1, 2, 3, 4]
    assert ac.valid_head_counts(7) == [1, 7]


@given(st.integers(1, 4), sizes, sizes, st.data())
def test_combine_heads_concat_mean_max_and_learned(n_heads, length, d_v, data):
    context = data.draw(arrays(np.float64, (n_heads, length, d_v), elements=finite))
    w_o = data.draw(matrices(n_heads * d_v, 3))
    head_weights = data.draw(arrays(np.float64, (n_heads,), elements=finite))
    stacked = np.concatenate(list(context), axis=1)  # (T, H*dv), head h in block h

    concat = ac.combine_heads(context, "concat")
    projected = ac.combine_heads(context, "concat", w_o=w_o)
    mean = ac.combine_heads(context, "mean")
    largest = ac.combine_heads(context, "max")
    learned = ac.combine_heads(context, "learned", head_weights=head_weights)

    np.testing.assert_array_equal(concat, stacked)
    np.testing.assert_allclose(projected, stacked @ w_o, rtol=1e-12, atol=1e-12)
    assert mean.shape == largest.shape == learned.shape == (length, d_v)
    np.testing.assert_allclose(mean, sum(context) / n_heads, rtol=1e-12, atol=1e-12)
    for i in range(length):
        for j in range(d_v):
            assert largest[i, j] == max(context[h, i, j] for h in range(n_heads))
    np.testing.assert_allclose(
        learned, sum(head_weights[h] * context[h] for h in range(n_heads)), rtol=1e-12, atol=1e-12
    )


def test_combine_heads_with_literal_numbers():
    context = np.array([[[1.0, -2.0]], [[3.0, 4.0]]])  # H=2, T=1, dv=2

    np.testing.assert_array_equal(ac.combine_heads(context, "concat"), [[1.0, -2.0, 3.0, 4.0]])
    np.testing.assert_array_equal(ac.combine_heads(context, "mean"), [[2.0, 1.0]])
    np.testing.assert_array_equal(ac.combine_heads(context, "max"), [[3.0, 4.0]])
    np.testing.assert_array_equal(
        ac.combine_heads(context, "learned", head_weights=np.array([0.5, 2.0])), [[6.5, 7.0]]
    )


# --- temperature -------------------------------------------------------------------


@given(arrays(np.float64, st.tuples(sizes, st.integers(2, 6)), elements=finite))
def test_lower_temperature_never_flattens_the_largest_weight(scores):
    cold = ac.softmax(ac.with_temperature(scores, 0.5))
    warm = ac.softmax(ac.with_temperature(scores, 2.0))

    assert np.all(cold.max(axis=1) >= warm.max(axis=1) - 1e-12)
    np.testing.assert_array_equal(ac.with_temperature(scores, 2.0), scores / 2.0)
