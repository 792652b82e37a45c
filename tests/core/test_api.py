"""The public API refuses bad input with an InputError that says what to change.

Every case below is a call a page (or a student at a prompt) could make; each
must raise ``ac.InputError`` (a ``ValueError``) with a message a person can act
on, never a bare NumPy error. Then the text path: tokenizer edge cases,
embeddings, masks and ``run_text_attention`` shapes.
"""

from __future__ import annotations

import inspect
import re
import unicodedata

import numpy as np
import pytest

import attention_core as ac
from attention_core.boundary.registry import GRID, PADDING, WINDOW
from attention_core.maths import attention

ONES_3x2 = np.ones((3, 2))
ONES_3x12 = np.ones((3, 12))
W_12x12 = np.eye(12)
X_Q, X_KV, W_3x2, D_OUT = np.ones((1, 3)), np.ones((2, 3)), np.ones((3, 2)), np.ones((1, 2))


def test_input_error_is_a_value_error():
    assert issubclass(ac.InputError, ValueError)


# --- arrays: shapes, emptiness, NaN, non-numbers, masks -------------------------

# (id, call, fragment the message must contain)
BAD_ATTENTION_CALLS = [
    (
        "q-1d",
        lambda: ac.scaled_dot_product_attention(np.ones(3), ONES_3x2, ONES_3x2),
        "2 dimensions",
    ),
    (
        "q-3d",
        lambda: ac.scaled_dot_product_attention(np.ones((2, 3, 2)), ONES_3x2, ONES_3x2),
        "2 dimensions",
    ),
    (
        "q-empty",
        lambda: ac.scaled_dot_product_attention(np.zeros((0, 2)), ONES_3x2, ONES_3x2),
        "empty",
    ),
    (
        "k-no-columns",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, np.zeros((3, 0)), ONES_3x2),
        "empty",
    ),
    (
        "q-k-widths",
        lambda: ac.scaled_dot_product_attention(np.ones((3, 3)), ONES_3x2, ONES_3x2),
        "same width",
    ),
    (
        "k-v-rows",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, np.ones((4, 2))),
        "one row per key",
    ),
    (
        "q-nan",
        lambda: ac.scaled_dot_product_attention(ONES_3x2 * np.nan, ONES_3x2, ONES_3x2),
        "NaN",
    ),
    (
        "k-inf",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2 * np.inf, ONES_3x2),
        "NaN or infinite",
    ),
    (
        "v-nan-one-cell",
        lambda: ac.scaled_dot_product_attention(
            ONES_3x2, ONES_3x2, np.array([[1, 2], [3, np.nan], [5, 6]])
        ),
        "v contains NaN",
    ),
    ("q-string", lambda: ac.scaled_dot_product_attention("abc", ONES_3x2, ONES_3x2), "numbers"),
    (
        "q-strings",
        lambda: ac.scaled_dot_product_attention([["a", "b"]], ONES_3x2, ONES_3x2),
        "numbers",
    ),
    (
        "q-objects",
        lambda: ac.scaled_dot_product_attention(np.array([[object(), 1]]), ONES_3x2, ONES_3x2),
        "numbers",
    ),
    ("q-none", lambda: ac.scaled_dot_product_attention(None, ONES_3x2, ONES_3x2), "numbers"),
    (
        "q-ragged",
        lambda: ac.scaled_dot_product_attention([[1, 2], [3]], ONES_3x2, ONES_3x2),
        "numeric array",
    ),
    (
        "q-complex",
        lambda: ac.scaled_dot_product_attention(ONES_3x2 + 1j, ONES_3x2, ONES_3x2),
        "complex",
    ),
    (
        "mask-01-numbers",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, mask=np.ones((3, 3))),
        "True/False",
    ),
    (
        "mask-string",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, mask="causal"),
        "True/False",
    ),
    (
        "mask-shape",
        lambda: ac.scaled_dot_product_attention(
            ONES_3x2, ONES_3x2, ONES_3x2, mask=np.ones((3, 2), bool)
        ),
        "(3, 3)",
    ),
    (
        "mask-1d",
        lambda: ac.scaled_dot_product_attention(
            ONES_3x2, ONES_3x2, ONES_3x2, mask=np.ones(3, bool)
        ),
        "(3, 3)",
    ),
    (
        "scale-nan",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, scale=float("nan")),
        "finite",
    ),
    (
        "scale-inf",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, scale=float("inf")),
        "finite",
    ),
    (
        "normaliser",
        lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, normaliser="relu"),
        "'softmax' or 'hardmax'",
    ),
    # multi-head attention
    (
        "mha-x-1d",
        lambda: ac.multi_head_attention(np.ones(12), W_12x12, W_12x12, W_12x12),
        "2 dimensions",
    ),
    (
        "mha-x-nan",
        lambda: ac.multi_head_attention(ONES_3x12 * np.nan, W_12x12, W_12x12, W_12x12),
        "NaN",
    ),
    (
        "mha-x-strings",
        lambda: ac.multi_head_attention([["a"] * 12], W_12x12, W_12x12, W_12x12),
        "numbers",
    ),
    (
        "mha-w_q-rows",
        lambda: ac.multi_head_attention(ONES_3x12, np.ones((11, 12)), W_12x12, W_12x12),
        "w_q must have 12 rows",
    ),
    (
        "mha-w_v-rows",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, np.ones((5, 12))),
        "w_v must have 12 rows",
    ),
    (
        "mha-w_q-w_k-columns",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, np.ones((12, 6)), W_12x12),
        "same number of columns",
    ),
    (
        "mha-x_kv-width",
        lambda: ac.multi_head_attention(
            ONES_3x12, W_12x12, W_12x12, W_12x12, x_kv=np.ones((4, 11))
        ),
        "same width",
    ),
    (
        "mha-w_o-rows",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, w_o=np.ones((5, 5))),
        "w_o must have 12 rows",
    ),
    (
        "mha-mask-shape",
        lambda: ac.multi_head_attention(
            ONES_3x12, W_12x12, W_12x12, W_12x12, mask=np.ones((3, 4), bool)
        ),
        "(3, 3)",
    ),
    (
        "mha-mask-numbers",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, mask=np.ones((3, 3))),
        "True/False",
    ),
    (
        "mha-heads-zero",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, n_heads=0),
        "at least 1",
    ),
    (
        "mha-heads-bool",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, n_heads=True),
        "whole number",
    ),
    (
        "mha-heads-string",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, n_heads="2"),
        "whole number",
    ),
    (
        "mha-value-heads",
        lambda: ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, np.ones((12, 10)), n_heads=4),
        "value width = 10",
    ),
    (
        "mha-rotary-base",
        lambda: ac.multi_head_attention(
            ONES_3x12, W_12x12, W_12x12, W_12x12, rotary=True, rotary_base=1
        ),
        "greater than 1",
    ),
    # head combination
    ("combine-2d", lambda: ac.combine_heads(np.ones((3, 4))), "3 dimensions"),
    (
        "combine-unknown",
        lambda: ac.combine_heads(np.ones((2, 3, 4)), "sum"),
        "concat, mean, max, learned",
    ),
    (
        "combine-learned-without-weights",
        lambda: ac.combine_heads(np.ones((2, 3, 4)), "learned"),
        "one weight per head",
    ),
    (
        "combine-learned-wrong-count",
        lambda: ac.combine_heads(np.ones((2, 3, 4)), "learned", head_weights=np.ones(3)),
        "one weight per head (2)",
    ),
    (
        "combine-w_o-rows",
        lambda: ac.combine_heads(np.ones((2, 3, 4)), w_o=np.ones((7, 2))),
        "w_o must have 8 rows",
    ),
    ("combine-nan", lambda: ac.combine_heads(np.full((2, 3, 4), np.nan), "mean"), "NaN"),
    # backward pass: one query of width 3, two keys, projections to width 2
    (
        "backward-w_q-rows",
        lambda: ac.attention_backward(X_Q, X_KV, X_KV, np.ones((4, 2)), W_3x2, W_3x2, D_OUT),
        "w_q needs 3 rows",
    ),
    (
        "backward-d_output-shape",
        lambda: ac.attention_backward(X_Q, X_KV, X_KV, W_3x2, W_3x2, W_3x2, np.ones((2, 2))),
        "output's shape (1, 2)",
    ),
    (
        "backward-keys-values-rows",
        lambda: ac.attention_backward(X_Q, X_KV, np.ones((4, 3)), W_3x2, W_3x2, W_3x2, D_OUT),
        "one row per key",
    ),
    (
        "backward-nan",
        lambda: ac.attention_backward(X_Q * np.nan, X_KV, X_KV, W_3x2, W_3x2, W_3x2, D_OUT),
        "NaN",
    ),
    (
        "backward-mask-numbers",
        lambda: ac.attention_backward(
            X_Q, X_KV, X_KV, W_3x2, W_3x2, W_3x2, D_OUT, mask=np.ones((1, 2))
        ),
        "True/False",
    ),
    # masks
    ("causal-zero", lambda: ac.causal_mask(0), "at least 1"),
    ("causal-bool", lambda: ac.causal_mask(True), "whole number"),
    ("causal-string", lambda: ac.causal_mask("3"), "whole number"),
    ("causal-fraction", lambda: ac.causal_mask(2.5), "whole number"),
    ("causal-n_k-zero", lambda: ac.causal_mask(3, 0), "at least 1"),
    ("sliding-window-zero", lambda: ac.sliding_window_mask(3, 0), "window must be at least 1"),
    ("padding-numbers", lambda: ac.padding_mask([1, 0, 1]), "True (real token) or False"),
    ("padding-empty", lambda: ac.padding_mask([]), "non-empty"),
    ("padding-2d", lambda: ac.padding_mask([[True]]), "one per key"),
    ("temperature-zero", lambda: ac.with_temperature(ONES_3x2, 0), "positive"),
    ("temperature-negative", lambda: ac.with_temperature(ONES_3x2, -1.0), "positive"),
    ("temperature-nan", lambda: ac.with_temperature(ONES_3x2, float("nan")), "positive"),
    # positions
    ("sinusoidal-length-zero", lambda: ac.sinusoidal_encoding(0, 4), "at least 1"),
    ("sinusoidal-too-long", lambda: ac.sinusoidal_encoding(10_000, 4), "at most 512"),
    ("sinusoidal-too-wide", lambda: ac.sinusoidal_encoding(4, 10_000), "at most 512"),
    ("sinusoidal-base", lambda: ac.sinusoidal_encoding(4, 4, base=0.5), "greater than 1"),
    (
        "sinusoidal-base-nan",
        lambda: ac.sinusoidal_encoding(4, 4, base=float("nan")),
        "greater than 1",
    ),
    ("learned-length-bool", lambda: ac.learned_encoding(True, 4), "whole number"),
    ("rotary-base", lambda: ac.rotary_embedding(np.ones((3, 4)), base=0), "greater than 1"),
    (
        "positional-unknown",
        lambda: ac.positional_encoding("absolute", 3, 4),
        "none, sinusoidal, learned, rotary",
    ),
    ("positional-none-length-zero", lambda: ac.positional_encoding("none", 0, 4), "at least 1"),
    # heads, weights, embeddings
    ("valid-head-counts-zero", lambda: ac.valid_head_counts(0), "at least 1"),
    ("glorot-zero", lambda: ac.glorot_uniform(np.random.default_rng(0), 0, 3), "at least 1"),
    (
        "init-zero-heads",
        lambda: ac.init_projections(np.random.default_rng(0), 4, 0, 2, 2, 4),
        "at least 1",
    ),
    ("embed-unknown", lambda: ac.embed(("a",), "glove", 4), "onehot, random"),
    ("one-hot-d_model-zero", lambda: ac.one_hot_embeddings(("a",), 0), "at least 1"),
    ("random-d_model-too-wide", lambda: ac.random_embeddings(("a",), 10_000), "at most 512"),
]


@pytest.mark.parametrize(
    ("call", "fragment"),
    [pytest.param(call, fragment, id=name) for name, call, fragment in BAD_ATTENTION_CALLS],
)
def test_bad_argument_raises_input_error_with_a_helpful_message(call, fragment):
    with pytest.raises(ac.InputError) as caught:
        call()

    assert fragment in str(caught.value)


# Building blocks given nonsense: each must answer with InputError, never a bare
# NumPy or Python error.
BARE_ERROR_CALLS = [
    ("softmax-string", lambda: ac.softmax("abc")),
    ("softmax-objects", lambda: ac.softmax(np.array([object(), 1]))),
    ("softmax-axis", lambda: ac.softmax(ONES_3x2, axis=5)),
    ("hardmax-string", lambda: ac.hardmax("abc")),
    ("hardmax-empty", lambda: ac.hardmax(np.zeros((2, 0)))),
    ("masked_fill-mask-shape", lambda: ac.masked_fill(ONES_3x2, np.ones((2, 2), bool))),
    ("split_heads-heads-do-not-divide", lambda: ac.split_heads(np.ones((3, 12)), 5)),
    ("split_heads-zero-heads", lambda: ac.split_heads(np.ones((3, 12)), 0)),
    ("split_heads-1d", lambda: ac.split_heads(np.ones(12), 2)),
    ("merge_heads-2d", lambda: ac.merge_heads(np.ones((3, 12)))),
    ("softmax_backward-shapes", lambda: ac.softmax_backward(np.ones((2, 3)), np.ones((3, 2)))),
    ("rotary-1d", lambda: ac.rotary_embedding(np.ones(4))),
    ("rotary-string", lambda: ac.rotary_embedding("abc")),
    ("multiplicative-pitfall-string", lambda: ac.multiplicative_mask_pitfall("abc", ONES_3x2)),
    (
        "multiplicative-pitfall-mask-shape",
        lambda: ac.multiplicative_mask_pitfall(ONES_3x2, np.ones((4, 4), bool)),
    ),
    ("sequence-length-pitfall-1d", lambda: ac.sequence_length_scale_pitfall(np.ones(3))),
    ("sequence-length-pitfall-string", lambda: ac.sequence_length_scale_pitfall("abc")),
    ("wrong-axis-pitfall-1d", lambda: ac.wrong_axis_softmax_pitfall(np.ones(3))),
    ("wrong-axis-pitfall-string", lambda: ac.wrong_axis_softmax_pitfall("abc")),
    ("glorot-without-generator", lambda: ac.glorot_uniform(None, 2, 3)),
    ("random-embeddings-of-numbers", lambda: ac.random_embeddings((1, 2), 4)),
]


@pytest.mark.parametrize("call", [pytest.param(call, id=name) for name, call in BARE_ERROR_CALLS])
def test_bad_argument_to_a_building_block_raises_input_error(call):
    with pytest.raises(ac.InputError):
        call()


# --- numbers that are not numbers ------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: ac.with_temperature(ONES_3x2, "hot"), id="temperature-string"),
        pytest.param(lambda: ac.with_temperature(ONES_3x2, None), id="temperature-none"),
        pytest.param(
            lambda: ac.scaled_dot_product_attention(ONES_3x2, ONES_3x2, ONES_3x2, scale="big"),
            id="scale-string",
        ),
        pytest.param(lambda: ac.sinusoidal_encoding(4, 4, base="x"), id="base-string"),
        pytest.param(lambda: ac.rotary_embedding(np.ones((3, 4)), base=None), id="base-none"),
    ],
)
def test_a_word_where_a_number_belongs_raises_input_error(call):
    with pytest.raises(ac.InputError, match="number"):
        call()


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: ac.learned_encoding(4, 4, seed=-1), id="learned-negative"),
        pytest.param(lambda: ac.learned_encoding(4, 4, seed="x"), id="learned-string"),
        pytest.param(lambda: ac.learned_encoding(4, 4, seed=None), id="learned-none"),
        pytest.param(lambda: ac.learned_encoding(4, 4, seed=1.5), id="learned-fraction"),
        pytest.param(lambda: ac.learned_encoding(4, 4, seed=True), id="learned-bool"),
        pytest.param(lambda: ac.random_embeddings(("a",), 4, seed=-1), id="random-negative"),
        pytest.param(lambda: ac.random_embeddings(("a",), 4, seed="x"), id="random-string"),
        pytest.param(lambda: ac.embed(("a",), "random", 4, seed=2**31), id="random-too-big"),
        pytest.param(lambda: ac.positional_encoding("learned", 3, 4, seed=-5), id="pe-negative"),
    ],
)
def test_a_bad_seed_raises_input_error(call):
    with pytest.raises(ac.InputError, match="seed"):
        call()


def test_huge_finite_inputs_that_overflow_the_scores_raise_input_error_not_nan():
    # 1e200 * 1e200 overflows to inf, and softmax(inf - inf) would be NaN.
    q = np.full((2, 2), 1e200)

    with pytest.raises(ac.InputError, match="too large"):
        ac.scaled_dot_product_attention(q, q, np.ones((2, 2)))


# --- softmax / hardmax take plain Python lists ------------------------------------


def test_softmax_and_hardmax_accept_a_plain_list():
    np.testing.assert_allclose(ac.softmax([0.0, 0.0]), [0.5, 0.5], rtol=0, atol=0)
    np.testing.assert_array_equal(ac.softmax([[1, 1], [5, 5]]), [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_array_equal(ac.hardmax([[1, 3, 2]]), [[0.0, 1.0, 0.0]])


# --- heads ---------------------------------------------------------------------------


def test_heads_not_dividing_the_width_lists_the_valid_head_counts():
    with pytest.raises(ac.InputError) as caught:
        ac.multi_head_attention(ONES_3x12, W_12x12, W_12x12, W_12x12, n_heads=5)

    assert "5 heads" in str(caught.value)
    assert "1, 2, 3, 4, 6, 12" in str(caught.value)


def test_config_with_heads_not_dividing_d_model_lists_the_valid_head_counts():
    with pytest.raises(ac.InputError) as caught:
        ac.AttentionConfig(d_model=12, n_heads=5)

    assert "d_model = 12" in str(caught.value)
    assert "1, 2, 3, 4, 6, 12" in str(caught.value)


def test_config_with_explicit_head_widths_needs_no_division():
    config = ac.AttentionConfig(d_model=12, n_heads=5, d_k=3, d_v=2)

    assert (config.d_k, config.d_v) == (3, 2)


# --- AttentionConfig --------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "choices"),
    [
        ("mask", "diagonal", "none, causal, sliding, padding, custom"),
        ("positional", "absolute", "none, sinusoidal, learned, rotary"),
        ("scaling", "log", "sqrt_dk, none, temperature"),
        ("normaliser", "relu", "softmax, hardmax"),
        ("combine", "sum", "concat, mean, max, learned"),
        ("embedding", "glove", "onehot, random"),
        ("mask", "Causal", "none, causal, sliding, padding, custom"),
        ("mask", None, "none, causal, sliding, padding, custom"),
        ("combine", "", "concat, mean, max, learned"),
    ],
)
def test_config_rejects_an_unknown_option_and_lists_the_choices(field, value, choices):
    with pytest.raises(ac.InputError) as caught:
        ac.AttentionConfig(**{field: value})

    assert repr(value) in str(caught.value)
    assert choices in str(caught.value)


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("temperature", 0, "between 0.05 and 20.0"),
        ("temperature", 0.01, "between 0.05 and 20.0"),
        ("temperature", 100, "between 0.05 and 20.0"),
        ("temperature", float("nan"), "between 0.05 and 20.0"),
        ("temperature", float("inf"), "between 0.05 and 20.0"),
        ("temperature", "1", "between 0.05 and 20.0"),
        ("seed", -1, "between 0 and 2147483647"),
        ("seed", 2**31, "between 0 and 2147483647"),
        ("seed", 1.5, "whole number"),
        ("seed", "7", "whole number"),
        ("d_model", 0, "at least 1"),
        ("d_model", 513, "at most 512"),
        ("d_model", "16", "whole number"),
        ("n_heads", 0, "at least 1"),
        ("n_heads", 17, "at most 16"),
        ("window", 0, "at least 1"),
        ("window", 129, "at most 128"),
        ("d_k", 0, "at least 1"),
        ("d_v", 600, "at most 512"),
    ],
)
def test_config_rejects_out_of_range_values(field, value, fragment):
    with pytest.raises(ac.InputError, match=re.escape(fragment)):
        ac.AttentionConfig(**{field: value})


@pytest.mark.parametrize(
    "field", ["d_model", "n_heads", "window", "seed", "d_k", "d_v", "temperature"]
)
def test_config_rejects_a_bool_where_a_number_belongs(field):
    # True == 1 in Python; a checkbox value must not pass as a number.
    with pytest.raises(ac.InputError):
        ac.AttentionConfig(**{field: True})


def test_config_is_hashable_and_equal_configs_hash_equal():
    a = ac.AttentionConfig(d_model=12, n_heads=3, mask="causal")
    b = ac.AttentionConfig(d_model=12, n_heads=3, mask="causal")

    assert a == b
    assert hash(a) == hash(b)
    assert {a: "cached"}[b] == "cached"
    assert a != ac.AttentionConfig(d_model=12, n_heads=3, mask="none")


def test_config_derives_d_k_and_d_v_from_d_model_and_heads():
    config = ac.AttentionConfig(d_model=12, n_heads=3)

    assert (config.d_k, config.d_v) == (4, 4)
    assert config.scale == 1 / np.sqrt(4)
    assert ac.AttentionConfig(d_model=12, n_heads=3, scaling="none").scale == 1.0
    assert ac.AttentionConfig(
        d_model=12, n_heads=3, scaling="temperature", temperature=2.0
    ).scale == 1 / (2.0 * np.sqrt(4))


def test_config_is_frozen():
    config = ac.AttentionConfig()

    with pytest.raises(AttributeError):
        config.d_model = 32  # type: ignore[misc]


# --- tokenizer -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\t\n  \r", "\x00\x01\u200b"])
def test_text_without_words_raises_input_error(text):
    with pytest.raises(ac.InputError, match="at least one word"):
        ac.tokenize(text)


@pytest.mark.parametrize("text", [None, b"bytes", 42, ["a", "list"]])
def test_tokenize_needs_a_string(text):
    with pytest.raises(ac.InputError, match="string"):
        ac.tokenize(text)


def test_only_punctuation_gives_one_token_per_mark():
    tokens = ac.tokenize("...!?")

    assert tokens.tokens == (".", ".", ".", "!", "?")
    assert tokens.labels == (".", ".₂", ".₃", "!", "?")


def test_words_and_punctuation_are_separate_tokens():
    assert ac.tokenize("Hello, world!").tokens == ("Hello", ",", "world", "!")


def test_emoji_are_tokens_of_their_own():
    assert ac.tokenize("I love 🐍 and 🍕!").tokens == ("I", "love", "🐍", "and", "🍕", "!")


def test_emoji_with_a_variation_selector_stays_one_token():
    assert ac.tokenize("I ❤️ tea").tokens == ("I", "❤️", "tea")


def test_cjk_text_gives_one_token_per_character():
    assert ac.tokenize("注意力机制很酷").tokens == ("注", "意", "力", "机", "制", "很", "酷")
    assert ac.tokenize("日本語のテキスト").tokens == (
        "日",
        "本",
        "語",
        "の",
        "テ",
        "キ",
        "ス",
        "ト",
    )


def test_right_to_left_scripts_are_split_into_words_in_reading_order():
    assert ac.tokenize("مرحبا بالعالم").tokens == ("مرحبا", "بالعالم")
    assert ac.tokenize("שלום עולם").tokens == ("שלום", "עולם")


def test_combining_marks_stay_on_their_letter():
    assert ac.tokenize("नमस्ते दुनिया").tokens == ("नमस्ते", "दुनिया")
    assert ac.tokenize("e\u0301te\u0301").tokens == ("e\u0301te\u0301",)


def test_control_and_invisible_characters_are_stripped():
    tokens = ac.tokenize("a\x00b\x07c\u202ed\u200be\x1b[31m")

    assert tokens.tokens == ("a", "b", "c", "d", "e", "[", "31m")
    for token in tokens.tokens:
        assert all(unicodedata.category(ch)[0] != "C" for ch in token)


def test_html_is_tokenized_as_plain_tokens():
    tokens = ac.tokenize("<img src=x onerror=alert(1)>")

    assert tokens.tokens == (
        "<",
        "img",
        "src",
        "=",
        "x",
        "onerror",
        "=",
        "alert",
        "(",
        "1",
        ")",
        ">",
    )
    assert all(token == "<" or "<" not in token for token in tokens.tokens)


def test_repeated_words_get_numbered_labels():
    tokens = ac.tokenize("the cat saw the dog and the bird")

    assert tokens.tokens == ("the", "cat", "saw", "the", "dog", "and", "the", "bird")
    assert tokens.labels == ("the", "cat", "saw", "the₂", "dog", "and", "the₃", "bird")


def test_labels_stay_unique_when_a_typed_word_looks_like_a_label():
    tokens = ac.tokenize("the₂ the the")

    assert len(set(tokens.labels)) == 3
    assert tokens.labels[0] == "the₂"


def test_padding_markers_are_single_tokens():
    assert ac.tokenize("the cat <pad> [PAD]").tokens == ("the", "cat", "<pad>", "[PAD]")


def test_more_than_128_tokens_are_capped_and_the_dropped_ones_counted():
    text = " ".join(f"w{i}" for i in range(200))

    tokens = ac.tokenize(text)

    assert ac.limits.MAX_TOKENS == 128
    assert len(tokens.tokens) == 128
    assert tokens.tokens[-1] == "w127"
    assert tokens.n_dropped == 72
    assert tokens.chars_dropped == 0


def test_exactly_128_tokens_drop_nothing():
    tokens = ac.tokenize(" ".join(f"w{i}" for i in range(128)))

    assert len(tokens.tokens) == 128
    assert tokens.n_dropped == 0


def test_text_longer_than_the_character_cap_is_cut_before_tokenizing():
    text = "a " * 15_000  # 30 000 characters

    tokens = ac.tokenize(text)

    assert tokens.chars_dropped == 30_000 - ac.limits.MAX_TEXT_CHARS
    assert len(tokens.tokens) == 128
    assert tokens.n_dropped == 10_000 - 128 + 1  # + 1: the cut-off text counts as one more


def test_a_smaller_token_cap_is_respected():
    tokens = ac.tokenize("one two three four", max_tokens=2)

    assert tokens.tokens == ("one", "two")
    assert tokens.n_dropped == 2


@pytest.mark.parametrize("max_tokens", [0, -1, True, "3"])
def test_a_bad_token_cap_raises_input_error(max_tokens):
    with pytest.raises(ac.InputError):
        ac.tokenize("a b", max_tokens=max_tokens)


# --- embeddings --------------------------------------------------------------------


def test_one_hot_needs_d_model_at_least_the_number_of_distinct_words():
    with pytest.raises(ac.InputError) as caught:
        ac.one_hot_embeddings(("a", "b", "c"), 2)

    assert "at least 3" in str(caught.value)
    assert "d_model is 2" in str(caught.value)


def test_one_hot_repeated_and_case_folded_words_share_a_column():
    vectors = ac.one_hot_embeddings(("The", "cat", "the"), 2)

    np.testing.assert_array_equal(vectors, [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])


def test_random_embeddings_give_the_same_vector_to_the_same_word_in_any_sentence():
    first = ac.random_embeddings(("the", "cat", "sat"), 8, seed=3)
    second = ac.random_embeddings(("a", "dog", "and", "The", "cat"), 8, seed=3)

    np.testing.assert_array_equal(first[0], second[3])  # the / The
    np.testing.assert_array_equal(first[1], second[4])  # cat
    assert not np.array_equal(first[0], first[1])


def test_random_embeddings_depend_on_the_seed():
    assert not np.array_equal(
        ac.random_embeddings(("cat",), 8, seed=0), ac.random_embeddings(("cat",), 8, seed=1)
    )


def test_embed_dispatches_on_kind():
    tokens = ("to", "be", "or", "not", "to", "be")

    np.testing.assert_array_equal(ac.embed(tokens, "onehot", 4), ac.one_hot_embeddings(tokens, 4))
    np.testing.assert_array_equal(
        ac.embed(tokens, "random", 4, seed=2), ac.random_embeddings(tokens, 4, seed=2)
    )


# --- masks through the pipeline ----------------------------------------------------


def test_padding_tokens_are_masked_for_every_query():
    config = ac.AttentionConfig(d_model=8, n_heads=2, mask="padding")
    tokens = ("the", "cat", "<pad>", "[PAD]")

    run = ac.run_text_attention(tokens, config)

    expected = np.array([[True, True, False, False]] * 4)
    np.testing.assert_array_equal(run.mask, expected)
    is_padding = np.array([False, False, True, True])
    np.testing.assert_array_equal(ac.build_mask(config, 4, 4, is_padding), expected)
    assert np.all(run.trace.weights[:, :, 2:] == 0.0)
    np.testing.assert_allclose(run.trace.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_padding_on_the_key_side_of_cross_attention_is_masked():
    config = ac.AttentionConfig(d_model=8, n_heads=2, mask="padding")

    run = ac.run_text_attention(("le", "chat"), config, kv_tokens=("the", "cat", "<pad>"))

    np.testing.assert_array_equal(run.mask, [[True, True, False], [True, True, False]])
    assert np.all(run.trace.weights[:, :, 2] == 0.0)


def test_padding_vector_of_the_wrong_length_raises_input_error():
    config = ac.AttentionConfig(mask="padding")

    with pytest.raises(ac.InputError, match="3"):
        ac.build_mask(config, 3, 3, key_is_padding=np.array([False, True]))


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("none", None),
        ("causal", [[True, False, False], [True, True, False], [True, True, True]]),
        ("sliding", [[True, False, False], [True, True, False], [False, True, True]]),
    ],
)
def test_build_mask_for_each_kind(kind, expected):
    config = ac.AttentionConfig(mask=kind, window=2)

    mask = ac.build_mask(config, 3, 3)

    if expected is None:
        assert mask is None
    else:
        np.testing.assert_array_equal(mask, expected)


def test_custom_mask_must_match_queries_and_keys():
    config = ac.AttentionConfig(d_model=8, n_heads=2, mask="custom")

    with pytest.raises(ac.InputError, match=re.escape("(2, 2)")):
        ac.run_text_attention(("a", "b"), config, custom_mask=np.ones((3, 3), bool))
    with pytest.raises(ac.InputError, match="True/False"):
        ac.run_text_attention(("a", "b"), config, custom_mask=np.ones((2, 2)))
    with pytest.raises(ac.InputError, match="grid of True/False"):
        ac.run_text_attention(("a", "b"), config)


def test_custom_mask_is_used_as_given():
    config = ac.AttentionConfig(d_model=8, n_heads=2, mask="custom")
    custom = np.array([[False, True], [True, True]])

    run = ac.run_text_attention(("a", "b"), config, custom_mask=custom)

    np.testing.assert_array_equal(run.mask, custom)
    np.testing.assert_array_equal(run.trace.weights[:, 0], [[0.0, 1.0], [0.0, 1.0]])


# --- run_attention / run_text_attention --------------------------------------------


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        pytest.param(
            lambda: ac.run_attention(np.ones((3, 5)), ac.AttentionConfig()), "16", id="x-width"
        ),
        pytest.param(
            lambda: ac.run_attention(np.ones(16), ac.AttentionConfig()), "2 dimensions", id="x-1d"
        ),
        pytest.param(
            lambda: ac.run_attention("abc", ac.AttentionConfig()), "numbers", id="x-string"
        ),
        pytest.param(
            lambda: ac.run_attention(np.full((3, 16), np.nan), ac.AttentionConfig()),
            "NaN",
            id="x-nan",
        ),
        pytest.param(
            lambda: ac.run_attention(np.ones((3, 16)), ac.AttentionConfig(), x_kv=np.ones((2, 5))),
            "16",
            id="x_kv-width",
        ),
        pytest.param(
            lambda: ac.run_attention(np.ones((600, 16)), ac.AttentionConfig()),
            "at most 512",
            id="too-long",
        ),
    ],
)
def test_run_attention_rejects_bad_vectors(call, fragment):
    with pytest.raises(ac.InputError) as caught:
        call()

    assert fragment in str(caught.value)


def test_run_attention_accepts_vectors_as_nested_python_lists():
    run = ac.run_attention([[0.0] * 16] * 3, ac.AttentionConfig())

    assert run.trace.output.shape == (3, 16)


def test_run_text_attention_with_one_hot_and_too_many_distinct_words_raises():
    config = ac.AttentionConfig(d_model=4, n_heads=2, embedding="onehot")

    with pytest.raises(ac.InputError, match="at least 5"):
        ac.run_text_attention(("a", "b", "c", "d", "e"), config)


@pytest.mark.parametrize("combine", ["concat", "mean", "max", "learned"])
def test_run_text_attention_shapes_for_self_attention(combine):
    config = ac.AttentionConfig(d_model=12, n_heads=3, combine=combine)
    tokens = ac.tokenize("the cat sat on the mat").tokens

    run = ac.run_text_attention(tokens, config)

    assert not run.is_cross
    assert run.x.shape == run.p.shape == (6, 12)
    assert run.trace.q.shape == run.trace.k.shape == (3, 6, 4)
    assert run.trace.weights.shape == (3, 6, 6)
    assert run.trace.context.shape == (3, 6, 4)
    assert run.trace.output.shape == ((6, 12) if combine == "concat" else (6, 4))
    assert run.mask is None
    assert np.all(np.isfinite(run.trace.output))


@pytest.mark.parametrize("combine", ["concat", "mean", "max", "learned"])
def test_run_text_attention_shapes_for_cross_attention(combine):
    config = ac.AttentionConfig(d_model=12, n_heads=4, combine=combine, mask="causal")
    queries = ac.tokenize("le chat").tokens
    keys = ac.tokenize("the black cat sat").tokens

    run = ac.run_text_attention(queries, config, kv_tokens=keys)

    assert run.is_cross
    assert run.x.shape == (2, 12)
    assert run.x_kv.shape == run.p_kv.shape == (4, 12)
    assert run.trace.weights.shape == (4, 2, 4)
    assert run.trace.context.shape == (4, 2, 3)
    assert run.mask.shape == (2, 4)
    assert run.trace.output.shape == ((2, 12) if combine == "concat" else (2, 3))


@pytest.mark.parametrize("combine", ["concat", "mean", "max", "learned"])
def test_run_text_attention_with_free_head_widths(combine):
    config = ac.AttentionConfig(d_model=12, n_heads=5, d_k=3, d_v=2, combine=combine)

    run = ac.run_text_attention(("a", "b", "c"), config)

    assert run.trace.q.shape == (5, 3, 3)
    assert run.trace.v.shape == (5, 3, 2)
    assert run.trace.output.shape == ((3, 12) if combine == "concat" else (3, 2))


def test_run_text_attention_is_reproducible_for_the_same_config():
    config = ac.AttentionConfig(d_model=8, n_heads=2, seed=5)

    first = ac.run_text_attention(("to", "be", "or", "not"), config)
    second = ac.run_text_attention(("to", "be", "or", "not"), config)

    np.testing.assert_array_equal(first.trace.output, second.trace.output)
    np.testing.assert_array_equal(first.trace.weights, second.trace.weights)


def test_cross_attention_shares_one_hot_ids_between_the_two_sentences():
    config = ac.AttentionConfig(d_model=4, n_heads=1, embedding="onehot", positional="none")

    run = ac.run_text_attention(("cat", "dog"), config, kv_tokens=("dog", "cat"))

    np.testing.assert_array_equal(run.x, [[1, 0, 0, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(run.x_kv, [[0, 1, 0, 0], [1, 0, 0, 0]])


def test_run_text_attention_refuses_raw_text_instead_of_tokens():
    # A str is a sequence of characters: it would silently attend over letters.
    with pytest.raises(ac.InputError, match="tokenize"):
        ac.run_text_attention("hello world", ac.AttentionConfig())


def test_run_text_attention_needs_at_least_one_token():
    with pytest.raises(ac.InputError):
        ac.run_text_attention((), ac.AttentionConfig())
    with pytest.raises(ac.InputError):
        ac.run_text_attention(("a",), ac.AttentionConfig(), kv_tokens=())


def test_both_scaled_dot_product_attentions_take_the_same_arguments_in_the_same_order():
    checked = list(inspect.signature(ac.scaled_dot_product_attention).parameters)
    pure = list(inspect.signature(attention.scaled_dot_product_attention).parameters)
    assert checked == pure == ["q", "k", "v", "scale", "mask", "normaliser"]


def test_the_checked_attention_takes_the_normaliser_by_name():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    trace = ac.scaled_dot_product_attention(q, q, q, 1.0, None, "hardmax")
    np.testing.assert_array_equal(trace.weights, np.eye(2))


def test_a_page_is_offered_the_masks_whose_inputs_it_can_give():
    assert ac.MASKS.taking(frozenset({WINDOW})) == ("none", "causal", "sliding")
    assert ac.MASKS.taking(frozenset({WINDOW, PADDING, GRID})) == tuple(ac.MASKS)


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        ac.MASKS.register("causal", ac.MASKS["none"])
    assert ac.MASKS["causal"].label == "causal"
