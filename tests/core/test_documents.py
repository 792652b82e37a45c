"""The course documents' worked examples, recomputed from the documents' own inputs.

Each test starts from the inputs a document gives (its seed, its matrices) and
compares with the numbers the document printed. Printed numbers that
``attention_core.teaching.examples`` does not already hold are written here as literals.
"""

from __future__ import annotations

import numpy as np

import attention_core as ac
from attention_core.teaching import examples

# A number printed with 8 decimals is within half a unit of the 8th decimal.
PRINTED_8_DECIMALS = 5e-9


# --- Five days x two variables, np.random.seed(42) (time-series notes) -------


def test_five_day_weights_rounded_to_3_decimals_equal_the_printed_weights():
    trace = examples.five_day_attention(masked=False)

    np.testing.assert_array_equal(np.round(trace.weights, 3), examples.FIVE_DAY_PRINTED_WEIGHTS)


def test_five_day_causal_weights_rounded_to_3_decimals_equal_the_printed_weights():
    trace = examples.five_day_attention(masked=True)

    np.testing.assert_array_equal(
        np.round(trace.weights, 3), examples.FIVE_DAY_PRINTED_MASKED_WEIGHTS
    )


def test_five_day_values_equal_the_printed_values():
    inputs = examples.five_day_inputs()
    values = inputs.x @ inputs.w_v

    np.testing.assert_allclose(
        values, examples.FIVE_DAY_PRINTED_VALUES, rtol=0, atol=PRINTED_8_DECIMALS
    )
    # The trace's context is built from the same values.
    trace = examples.five_day_attention(masked=False)
    np.testing.assert_array_equal(trace.context, trace.weights @ values)


def test_five_day_scale_is_one_over_sqrt_of_two_like_the_notes():
    # The notes divide by np.sqrt(X.shape[1]) = sqrt(2), which is also sqrt(d_k) here.
    assert examples.five_day_attention(masked=False).scale == 1 / np.sqrt(2)


def test_five_day_printed_output_is_the_rounded_weights_times_the_values():
    # The notes print A @ V with A = np.round(softmax(...), 3): the weights are
    # rounded *before* the product. The exact V is used here: the printed V is
    # itself rounded, and rounded V times rounded A drifts past 5e-9.
    inputs = examples.five_day_inputs()
    values = inputs.x @ inputs.w_v
    for masked, printed in (
        (False, examples.FIVE_DAY_PRINTED_OUTPUT),
        (True, examples.FIVE_DAY_PRINTED_MASKED_OUTPUT),
    ):
        trace = examples.five_day_attention(masked=masked)

        np.testing.assert_allclose(
            np.round(trace.weights, 3) @ values, printed, rtol=0, atol=PRINTED_8_DECIMALS
        )


def test_five_day_exact_context_differs_from_the_printed_output_in_the_third_decimal():
    # Documents the notes' rounding: the true context vectors are not what they print.
    for masked, printed in (
        (False, examples.FIVE_DAY_PRINTED_OUTPUT),
        (True, examples.FIVE_DAY_PRINTED_MASKED_OUTPUT),
    ):
        context = examples.five_day_attention(masked=masked).context

        assert np.max(np.abs(context - printed)) > 1e-5
        assert np.max(np.abs(context - printed)) < 5e-3


def test_five_day_unmasked_first_context_row_literal():
    # Unmasked day 0, exact (not rounded-weights) context, to 8 decimals.
    context = examples.five_day_attention(masked=False).context

    np.testing.assert_allclose(context[0], [0.37402037, -0.99924173], rtol=0, atol=5e-9)


def test_five_day_causal_first_context_row_is_exactly_the_first_value():
    inputs = examples.five_day_inputs()
    values = inputs.x @ inputs.w_v
    trace = examples.five_day_attention(masked=True)

    np.testing.assert_array_equal(trace.weights[0], [1.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(trace.context[0], values[0])
    np.testing.assert_allclose(
        trace.context[0], examples.FIVE_DAY_PRINTED_MASKED_OUTPUT[0], rtol=0, atol=5e-9
    )


def test_five_day_causal_mask_leaves_the_last_day_unchanged():
    # The last step may attend to every day, so masking changes nothing there.
    masked = examples.five_day_attention(masked=True)
    unmasked = examples.five_day_attention(masked=False)

    np.testing.assert_array_equal(masked.weights[-1], unmasked.weights[-1])
    np.testing.assert_array_equal(masked.context[-1], unmasked.context[-1])
    np.testing.assert_array_equal(
        examples.FIVE_DAY_PRINTED_MASKED_OUTPUT[-1], examples.FIVE_DAY_PRINTED_OUTPUT[-1]
    )


def test_five_day_causal_weights_are_zero_above_the_diagonal():
    trace = examples.five_day_attention(masked=True)

    assert np.all(trace.weights[np.triu_indices(5, k=1)] == 0.0)
    np.testing.assert_allclose(trace.weights.sum(axis=1), np.ones(5), rtol=0, atol=1e-15)


# --- Four one-hot words with integer weights (NLP lecture notes) -------------


def test_four_word_weights_are_the_seed_42_integer_matrices():
    w_q, w_k, w_v = examples.four_word_weights()

    np.testing.assert_array_equal(w_q, [[2, 0, 2], [2, 0, 0], [2, 1, 2]])
    np.testing.assert_array_equal(w_k, [[2, 2, 2], [0, 2, 1], [0, 1, 1]])
    np.testing.assert_array_equal(w_v, [[1, 1, 0], [0, 1, 1], [0, 0, 0]])


def test_four_words_attention_equals_all_twelve_printed_numbers():
    trace = examples.four_words_attention()

    assert trace.context.shape == (4, 3)
    np.testing.assert_allclose(
        trace.context, examples.FOUR_WORDS_PRINTED_OUTPUT, rtol=0, atol=PRINTED_8_DECIMALS
    )
    # The notes scale by K.shape[1] ** 0.5 = sqrt(3).
    assert trace.scale == 1 / np.sqrt(3)


def test_four_words_second_word_third_output_is_exactly_one_half():
    # Printed as "0.5": word_2's values have third entry 1 for word_2/word_3 and 0 otherwise.
    trace = examples.four_words_attention()

    np.testing.assert_allclose(trace.context[1, 2], 0.5, rtol=0, atol=1e-15)


# --- "attention is cool" (slides) -------------------------------------------


def test_cool_first_context_entry_is_the_slides_one_tenth():
    context = examples.cool_context()

    assert context[0, 0] == 0.1
    assert context[0, 0] == examples.COOL_PRINTED_C00


def test_cool_context_is_weights_times_values():
    context = examples.cool_context()

    assert context.shape == (3, 4)
    np.testing.assert_array_equal(context, examples.COOL_WEIGHTS @ examples.COOL_VALUES)
    # Worked by hand: row 1 = 0.6 v0 + 0.4 v1, row 2 = 0.2 v0 + 0.5 v1 + 0.3 v2.
    np.testing.assert_allclose(
        context,
        [[0.1, 0.2, 0.3, 0.3], [0.22, 0.216, 0.54, 0.3], [0.25, 0.4, 0.6, 0.3]],
        rtol=0,
        atol=1e-15,
    )


def test_cool_first_row_is_the_first_value_unchanged_under_the_causal_weights():
    # "in this masked case, the first row of the Values is actually unchanged"
    np.testing.assert_array_equal(examples.cool_context()[0], examples.COOL_VALUES[0])
    assert np.all(examples.COOL_WEIGHTS[np.triu_indices(3, k=1)] == 0.0)
    np.testing.assert_allclose(examples.COOL_WEIGHTS.sum(axis=1), np.ones(3), rtol=0, atol=1e-15)


def test_cool_dot_product_terms_are_the_slides_products():
    # C_00 = 1.0 * 0.1 + 0 * 0.4 + 0 * 0.1 = 0.1
    terms = examples.dot_product_terms(examples.COOL_WEIGHTS[0], examples.COOL_VALUES[:, 0])

    assert terms == [(1.0, 0.1), (0.0, 0.4), (0.0, 0.1)]
    assert sum(weight * value for weight, value in terms) == 0.1


def test_cool_dot_product_terms_sum_to_every_context_entry():
    context = examples.cool_context()
    for i in range(3):
        for j in range(4):
            terms = examples.dot_product_terms(examples.COOL_WEIGHTS[i], examples.COOL_VALUES[:, j])
            assert len(terms) == 3
            total = sum(weight * value for weight, value in terms)
            np.testing.assert_allclose(total, context[i, j], rtol=0, atol=1e-15)


# --- The documents' pitfalls -------------------------------------------------


def test_multiplying_by_a_01_mask_gives_masked_keys_weight_but_minus_inf_gives_zero():
    # The hand-written backward pass does `similarity = similarity * self.mask`.
    scaled = np.array([[1.0, -3.0]])
    mask = np.array([[True, False]])

    wrong = ac.multiplicative_mask_pitfall(scaled, mask)
    right = ac.softmax(ac.masked_fill(scaled, mask))

    e = np.e
    np.testing.assert_allclose(wrong, [[e / (1 + e), 1 / (1 + e)]], rtol=1e-15, atol=0)
    np.testing.assert_array_equal(right, [[1.0, 0.0]])
    # The forbidden key even gains weight: unmasked it would get only
    # e^-3 / (e^1 + e^-3), about 0.018, not 0.27.
    assert wrong[0, 1] > ac.softmax(scaled)[0, 1]


def test_multiplicative_mask_on_the_five_days_leaks_into_the_future():
    unmasked = examples.five_day_attention(masked=False)
    causal = np.tri(5, dtype=bool)
    upper = np.triu_indices(5, k=1)

    wrong = ac.multiplicative_mask_pitfall(unmasked.scaled, causal)
    right = examples.five_day_attention(masked=True).weights

    assert np.all(wrong[upper] > 0.0)
    assert np.all(right[upper] == 0.0)
    # Every forbidden score became 0, so all of them get e^0 / row sum.
    row_sums = np.sum(np.exp(unmasked.scaled * causal), axis=1)
    np.testing.assert_allclose(wrong[0, 1:], np.full(4, 1 / row_sums[0]), rtol=1e-14)


def test_wrong_axis_softmax_columns_sum_to_one_like_the_dmol_printout():
    # The dmol notebook prints np.sum(..., axis=0) = [1. 1. ... 1.] for 11 tokens:
    # the columns sum to 1, the rows (the queries) do not.
    rng = np.random.default_rng(11)
    tokens = rng.normal(size=(11, 4))
    symmetric_scores = tokens @ tokens.T / np.sqrt(4)

    wrong = ac.wrong_axis_softmax_pitfall(symmetric_scores)

    np.testing.assert_allclose(wrong.sum(axis=0), np.ones(11), rtol=0, atol=1e-14)
    assert np.max(np.abs(wrong.sum(axis=1) - 1.0)) > 1e-2


def test_wrong_axis_pitfall_equals_the_dmol_softmax_without_keepdims_on_symmetric_scores():
    # Literally the notebook's code: softmax(x, axis) = exp(x) / sum(exp(x), axis)
    # with no keepdims, on its self-attention scores einsum("ij,kj->ik", q, q) /
    # sqrt(q.shape[0]). Self-attention scores are symmetric, so dividing column j
    # by *row* sum j is dividing it by its own column sum.
    rng = np.random.default_rng(2020)
    i_batched_query = rng.normal(size=(11, 4))
    a = np.einsum("ij,kj->ik", i_batched_query, i_batched_query) / np.sqrt(i_batched_query.shape[0])
    assert np.array_equal(a, a.T)

    dmol = np.exp(a) / np.sum(np.exp(a), axis=1)

    np.testing.assert_allclose(ac.wrong_axis_softmax_pitfall(a), dmol, rtol=1e-13, atol=0)
    np.testing.assert_allclose(np.sum(dmol, axis=0), np.ones(11), rtol=0, atol=1e-14)
    # ... and it is not the row softmax a query needs.
    assert not np.allclose(dmol, ac.softmax(a, axis=-1))


def test_dmol_scaling_by_sqrt_of_the_sequence_length_is_the_sequence_length_pitfall():
    # The same notebook divides by np.sqrt(q.shape[0]) (T = 11), not sqrt(d_k = 4).
    rng = np.random.default_rng(2020)
    i_batched_query = rng.normal(size=(11, 4))
    raw_scores = i_batched_query @ i_batched_query.T
    notebook_scaled = np.einsum("ij,kj->ik", i_batched_query, i_batched_query) / np.sqrt(
        i_batched_query.shape[0]
    )

    np.testing.assert_allclose(
        ac.sequence_length_scale_pitfall(raw_scores),
        ac.softmax(notebook_scaled, axis=-1),
        rtol=1e-13,
        atol=0,
    )


def test_sequence_length_scaling_differs_from_sqrt_dk_when_t_differs_from_dk():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(11, 4))
    k = rng.normal(size=(11, 4))
    v = rng.normal(size=(11, 2))

    wrong = ac.sequence_length_scale_pitfall(q @ k.T)
    right = ac.scaled_dot_product_attention(q, k, v).weights

    assert np.max(np.abs(wrong - right)) > 1e-3
    np.testing.assert_allclose(right, ac.softmax(q @ k.T / 2.0), rtol=1e-14, atol=0)
    np.testing.assert_allclose(wrong, ac.softmax(q @ k.T / np.sqrt(11)), rtol=1e-14, atol=0)


def test_sequence_length_scaling_equals_sqrt_dk_when_t_equals_dk():
    rng = np.random.default_rng(8)
    q = rng.normal(size=(4, 4))
    k = rng.normal(size=(4, 4))
    v = rng.normal(size=(4, 3))

    wrong = ac.sequence_length_scale_pitfall(q @ k.T)
    right = ac.scaled_dot_product_attention(q, k, v).weights

    np.testing.assert_allclose(wrong, right, rtol=1e-14, atol=0)


def test_sequence_length_scaling_makes_the_weights_depend_on_sentence_length():
    # The same two tokens inside a longer sentence get different weights between
    # them under the pitfall, and the same ones under 1/sqrt(d_k).
    rng = np.random.default_rng(9)
    short = rng.normal(size=(2, 3))
    long = np.vstack([short, rng.normal(size=(6, 3))])

    def weights_between_first_two(scores):
        sub = scores[:2, :2]
        return sub / sub.sum(axis=1, keepdims=True)

    wrong_short = ac.sequence_length_scale_pitfall(short @ short.T)
    wrong_long = ac.sequence_length_scale_pitfall(long @ long.T)
    right_short = ac.softmax(short @ short.T / np.sqrt(3))
    right_long = ac.softmax(long @ long.T / np.sqrt(3))

    assert not np.allclose(
        weights_between_first_two(wrong_short), weights_between_first_two(wrong_long)
    )
    np.testing.assert_allclose(
        weights_between_first_two(right_short), weights_between_first_two(right_long), rtol=1e-12
    )
