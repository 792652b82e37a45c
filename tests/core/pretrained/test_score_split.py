"""Splitting a head's score by where its input came from: the parts sum to the real score."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core.boundary.errors import InputError
from attention_core.maths.layers import layer_norm
from attention_core.pretrained import bert, loading, score_split

EPS = 1e-5


def real_scores(x, gain, bias, w_q, b_q, w_k, b_k) -> np.ndarray:
    """The score the head really computes: (LN(x) W_q + b_q)(LN(x) W_k + b_k)^T."""
    normalised = layer_norm(x, gain, bias, EPS)
    queries = normalised @ w_q + (0.0 if b_q is None else b_q)
    keys = normalised @ w_k + (0.0 if b_k is None else b_k)
    return queries @ keys.T


def random_head(rng: np.random.Generator, length: int, width: int, head_width: int) -> dict:
    """Three random residual parts and a random LayerNorm and head, all in the open."""
    return {
        "parts": {name: rng.normal(size=(length, width)) for name in ("token", "position", "rest")},
        "gain": rng.normal(1.0, 0.3, size=width),
        "bias": rng.normal(size=width),
        "w_q": rng.normal(size=(width, head_width)),
        "b_q": rng.normal(size=head_width),
        "w_k": rng.normal(size=(width, head_width)),
        "b_k": rng.normal(size=head_width),
    }


def test_the_linearised_parts_sum_to_layer_norm_of_the_sum() -> None:
    head = random_head(np.random.default_rng(0), length=6, width=8, head_width=4)
    x = head["parts"]["token"] + head["parts"]["position"] + head["parts"]["rest"]

    shares = score_split.linearised_parts(head["parts"], head["gain"], head["bias"], EPS)

    assert list(shares) == ["token", "position", "rest", "bias"]
    np.testing.assert_allclose(sum(shares.values()), layer_norm(x, head["gain"], head["bias"], EPS))
    np.testing.assert_array_equal(shares["bias"], np.broadcast_to(head["bias"], x.shape))


def test_one_part_alone_is_exactly_layer_norm_without_beta() -> None:
    x = np.array([[1.0, 2.0, 3.0, 6.0]])
    gain = np.array([1.0, 2.0, 1.0, 0.5])

    shares = score_split.linearised_parts({"token": x}, gain, np.zeros(4), eps=0.0)

    centred = np.array([[-2.0, -1.0, 0.0, 3.0]])  # mean 3, variance 14/4
    np.testing.assert_allclose(shares["token"], centred / np.sqrt(3.5) * gain)


@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.integers(1, 7),
    width=st.integers(2, 9),
    head_width=st.integers(1, 5),
    with_biases=st.booleans(),
)
def test_the_terms_sum_to_the_real_score(seed, length, width, head_width, with_biases) -> None:
    head = random_head(np.random.default_rng(seed), length, width, head_width)
    b_q, b_k = (head["b_q"], head["b_k"]) if with_biases else (None, None)
    x = head["parts"]["token"] + head["parts"]["position"] + head["parts"]["rest"]

    split = score_split.self_attention_split(
        head["parts"], head["gain"], head["bias"], EPS, head["w_q"], b_q, head["w_k"], b_k
    )

    expected = real_scores(x, head["gain"], head["bias"], head["w_q"], b_q, head["w_k"], b_k)
    assert len(split) == 16  # (token, position, rest, bias) squared
    assert all(scores.shape == (length, length) for scores in split.values())
    np.testing.assert_allclose(sum(split.values()), expected, rtol=1e-5, atol=1e-9)


@given(
    scores=arrays(np.float64, (3, 3), elements=st.floats(-5, 5)),
    other=arrays(np.float64, (3, 3), elements=st.floats(-5, 5)),
)
def test_the_shares_sum_to_one_or_are_all_zero(scores, other) -> None:
    shares = score_split.share({("token", "token"): scores, ("position", "bias"): other})

    assert set(shares) == {"token-token", "position-bias"}
    assert all(0.0 <= value <= 1.0 for value in shares.values())
    total = sum(shares.values())
    assert total == pytest.approx(1.0) or (total == 0.0 and not scores.any() and not other.any())


def test_a_head_that_reads_only_positions_has_only_position_position_mass() -> None:
    # Token embeddings live in dimensions 0-2, positions in 3-5; the head reads 3-5 only.
    # Each part is centred within its row, so LayerNorm's centring keeps it in its own
    # dimensions; with beta = 0 and no biases, nothing but positions reaches q and k.
    rng = np.random.default_rng(1)
    length, width = 5, 6
    token = np.zeros((length, width))
    token[:, :3] = rng.normal(size=(length, 3))
    token[:, :3] -= token[:, :3].mean(axis=1, keepdims=True)  # mean 0 within each row
    position = np.zeros((length, width))
    position[:, 3:] = rng.normal(size=(length, 3))
    position[:, 3:] -= position[:, 3:].mean(axis=1, keepdims=True)
    reads_positions = np.zeros((width, 2))
    reads_positions[3:, :] = rng.normal(size=(3, 2))

    split = score_split.self_attention_split(
        {"token": token, "position": position},
        np.ones(width),
        np.zeros(width),
        EPS,
        reads_positions,
        None,
        2.0 * reads_positions,
        None,
    )
    shares = score_split.share(split, mask=np.tril(np.ones((length, length), dtype=bool)))

    assert shares["position-position"] == pytest.approx(1.0)
    assert np.abs(split[("position", "position")]).sum() > 0
    for term in ("token-token", "token-position", "position-token", "bias-position"):
        assert shares[term] == pytest.approx(0.0, abs=1e-12)


def test_the_mask_counts_only_the_cells_a_head_may_use() -> None:
    split = {
        ("token", "token"): np.array([[1.0, 100.0], [1.0, 1.0]]),  # 100 is above the diagonal
        ("position", "position"): np.array([[3.0, 0.0], [-3.0, 3.0]]),
    }

    causal = score_split.share(split, mask=np.array([[True, False], [True, True]]))

    assert causal == {"token-token": pytest.approx(0.25), "position-position": pytest.approx(0.75)}


def test_centred_shares_give_nothing_to_a_term_softmax_ignores() -> None:
    split = {
        ("token", "bias"): np.array([[5.0, 5.0, 5.0], [-2.0, -2.0, -2.0]]),  # same for every key
        ("position", "position"): np.array([[1.0, -1.0, 0.0], [0.0, 2.0, 4.0]]),
    }

    raw = score_split.share(split)
    centred = score_split.share(split, centre_rows=True)
    causal = score_split.share(split, mask=np.tril(np.ones((2, 3), dtype=bool)), centre_rows=True)

    assert raw == {"token-bias": pytest.approx(21 / 29), "position-position": pytest.approx(8 / 29)}
    assert centred == {"token-bias": 0.0, "position-position": 1.0}
    # causal rows: [1] alone (centred 0) and [0, 2] (centred -1, 1)
    assert causal == {"token-bias": 0.0, "position-position": 1.0}


def test_biases_are_collected_under_terms_with_bias() -> None:
    x = np.array([[1.0, -1.0], [2.0, 0.0]])
    identity = np.eye(2)

    split = score_split.split_scores(
        {"token": x}, {"token": x}, identity, np.array([1.0, 0.0]), identity, None
    )

    assert set(split) == {("token", "token"), ("bias", "token")}
    np.testing.assert_array_equal(split[("bias", "token")], [[1.0, 2.0], [1.0, 2.0]])


def test_head_columns_follow_the_head_split() -> None:
    weights = np.arange(12.0).reshape(2, 6)  # (d = 2, H * dk = 3 * 2)

    np.testing.assert_array_equal(score_split.head_columns(weights, 1, 3), [[2.0, 3.0], [8.0, 9.0]])
    np.testing.assert_array_equal(score_split.head_columns(np.arange(6.0), 2, 3), [4.0, 5.0])


def test_a_part_named_bias_or_parts_of_different_shapes_are_refused() -> None:
    with pytest.raises(InputError, match="beta"):
        score_split.linearised_parts({"bias": np.ones((2, 3))}, np.ones(3), np.zeros(3), EPS)
    with pytest.raises(InputError, match="one shape"):
        score_split.linearised_parts(
            {"token": np.ones((2, 3)), "position": np.ones((3, 3))}, np.ones(3), np.zeros(3), EPS
        )


# --- GPT-2: exact at every layer, against transformers' own q and k ----------------


def tiny_gpt2_queries_and_keys(ids: np.ndarray):
    """A tiny random GPT-2 (transformers, float64), its residual stream before each block and
    each block's q and k ``(T, d)``, caught from the model's own Q/K/V projection.
    """
    import torch  # the pretrained weights' package installs torch and transformers
    import transformers

    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=40,
        n_positions=32,
        n_embd=12,
        n_layer=3,
        n_head=3,
        layer_norm_epsilon=EPS,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = transformers.GPT2Model(config).double().eval()
    with torch.no_grad():  # GPT-2 starts its biases and LayerNorm betas at 0: make them count
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.5)
    projections: list[np.ndarray] = []
    for block in model.h:
        block.attn.c_attn.register_forward_hook(
            lambda _module, _inputs, output: projections.append(output[0].detach().numpy())
        )
    with torch.no_grad():
        hidden = model(torch.tensor(ids)[None], output_hidden_states=True).hidden_states
    residuals = [state[0].numpy() for state in hidden[: config.n_layer]]  # before each block
    return model, config, residuals, projections


def gpt2_head(block, head: int, n_heads: int) -> tuple[np.ndarray, ...]:
    """One head's ``w_q, b_q, w_k, b_k`` from a GPT-2 block's joint ``c_attn`` ``(d, 3d)``."""
    weights = block.attn.c_attn.weight.detach().numpy()
    biases = block.attn.c_attn.bias.detach().numpy()
    width = weights.shape[0]
    w_q, w_k = weights[:, :width], weights[:, width : 2 * width]
    b_q, b_k = biases[:width], biases[width : 2 * width]
    return tuple(score_split.head_columns(a, head, n_heads) for a in (w_q, b_q, w_k, b_k))


def test_gpt2_rest_is_zero_at_layer_0_and_the_split_is_exact_at_every_layer() -> None:
    ids = np.array([5, 17, 3, 5, 17, 3, 9, 0, 39, 22])
    model, config, residuals, projections = tiny_gpt2_queries_and_keys(ids)
    token = model.wte.weight.detach().numpy()[ids]  # (T, d)
    position = model.wpe.weight.detach().numpy()[: ids.size]  # (T, d)
    width, head_width = config.n_embd, config.n_embd // config.n_head

    for layer, (residual, qkv) in enumerate(zip(residuals, projections, strict=True)):
        parts = score_split.absolute_position_components(residual, token, position)
        if layer == 0:
            np.testing.assert_allclose(parts["rest"], 0.0, atol=1e-15)
        block = model.h[layer]
        gain, bias = block.ln_1.weight.detach().numpy(), block.ln_1.bias.detach().numpy()
        for head in range(config.n_head):
            w_q, b_q, w_k, b_k = gpt2_head(block, head, config.n_head)
            split = score_split.self_attention_split(
                parts, gain, bias, block.ln_1.eps, w_q, b_q, w_k, b_k
            )
            columns = slice(head * head_width, (head + 1) * head_width)
            q, k = qkv[:, :width][:, columns], qkv[:, width : 2 * width][:, columns]  # (T, dk)
            np.testing.assert_allclose(sum(split.values()), q @ k.T, rtol=1e-9, atol=1e-12)


def bert_layer0_split(model: loading.PretrainedModel, encoded: loading.Encoded, head: int):
    """The split of one head of the bundled BERT's first layer, which reads
    LN(word + position + type): the segment embedding is "rest".
    """
    weights = model.weights
    layer = weights.layers[0]
    parts = {
        "token": weights.word[encoded.ids],
        "position": weights.position[: len(encoded)],
        "rest": weights.token_type[encoded.type_ids],
    }
    w_q, b_q, w_k, b_k = (
        score_split.head_columns(a, head, weights.n_heads)
        for a in (layer.w_q, layer.b_q, layer.w_k, layer.b_k)
    )
    return score_split.self_attention_split(
        parts, weights.ln_gain, weights.ln_bias, weights.eps, w_q, b_q, w_k, b_k
    )


def test_bert_layer_0_scores_split_exactly_on_the_bundled_model() -> None:
    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, "The cat sat on the mat.", "It was tired.")
    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    scores = trace.layers[0].heads.scores  # (H, T, T), float32

    for head in range(model.weights.n_heads):
        split = bert_layer0_split(model, encoded, head)
        largest = np.abs(scores[head]).max()  # equal to float32 rounding of the largest score
        np.testing.assert_allclose(sum(split.values()), scores[head], atol=1e-5 * largest)


def test_the_bundled_models_previous_token_head_attends_by_position() -> None:
    # all-MiniLM-L6-v2's layer 0 head 2 looks at the previous token; centred, its score is
    # mostly position-position: it attends by where a token is, not by what it is.
    model, head = loading.load_model(), 2
    text = "The cat sat on the mat because it was tired and the dog ran away."
    encoded = loading.encode(model.tokenizer, text)

    shares = score_split.share(bert_layer0_split(model, encoded, head), centre_rows=True)

    trace = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    assert np.diagonal(trace.layers[0].heads.weights[head], offset=-1).mean() > 0.95
    assert max(shares, key=shares.__getitem__) == "position-position"
    assert shares["position-position"] > 0.5
