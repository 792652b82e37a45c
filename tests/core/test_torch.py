"""PyTorch as the reference implementation: same inputs, float64, agreement to 1e-9.

Conventions to translate between the two:

* ``torch.nn.functional.scaled_dot_product_attention``: a boolean ``attn_mask``
  is True where a key *takes part*, the same as ours.
* ``torch.nn.MultiheadAttention``: a boolean ``attn_mask`` is True where a key is
  *not allowed* (the inverse of ours); it computes ``x @ W.T``, so its packed
  ``in_proj_weight (3E, E)`` is ``[w_q.T; w_k.T; w_v.T]`` and
  ``out_proj.weight`` is ``w_o.T``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention as torch_sdpa

import attention_core as ac
from attention_core.training.attention import MultiHeadAttention
from attention_core.training.export import (
    as_array,
    as_matrix,
    attention_matrices,
    load_matrix,
)

TOLERANCE = 1e-9


def as_tensor(array: np.ndarray, requires_grad: bool = False) -> torch.Tensor:
    return torch.tensor(array, dtype=torch.float64, requires_grad=requires_grad)


def assert_close(ours: np.ndarray, theirs: torch.Tensor) -> None:
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=0, atol=TOLERANCE)


# --- scaled dot-product attention vs torch.nn.functional ---------------------

# (T queries, S keys, d_k, d_v)
SDPA_SHAPES = [(1, 1, 1, 1), (1, 6, 3, 2), (5, 1, 2, 4), (4, 4, 8, 8), (7, 3, 5, 1), (16, 16, 4, 6)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("t", "s", "d_k", "d_v"), SDPA_SHAPES)
def test_sdpa_matches_torch_without_mask(seed, t, s, d_k, d_v):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(t, d_k)), rng.normal(size=(s, d_k)), rng.normal(size=(s, d_v))

    ours = ac.scaled_dot_product_attention(q, k, v)
    theirs = torch_sdpa(as_tensor(q), as_tensor(k), as_tensor(v))

    assert ours.context.shape == (t, d_v)
    assert_close(ours.context, theirs)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("t", "s", "d_k", "d_v"), SDPA_SHAPES)
def test_sdpa_matches_torch_with_a_random_boolean_mask(seed, t, s, d_k, d_v):
    # Random masks include fully masked rows: torch's SDPA gives them zeros, as we do.
    rng = np.random.default_rng(100 + seed)
    q, k, v = rng.normal(size=(t, d_k)), rng.normal(size=(s, d_k)), rng.normal(size=(s, d_v))
    mask = rng.random((t, s)) < 0.6

    ours = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    theirs = torch_sdpa(as_tensor(q), as_tensor(k), as_tensor(v), attn_mask=torch.from_numpy(mask))

    assert_close(ours.context, theirs)


@pytest.mark.parametrize(("t", "s", "d_k", "d_v"), SDPA_SHAPES)
def test_sdpa_matches_torch_with_a_causal_mask(t, s, d_k, d_v):
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(t, d_k)), rng.normal(size=(s, d_k)), rng.normal(size=(s, d_v))

    ours = ac.scaled_dot_product_attention(q, k, v, mask=ac.causal_mask(t, s))
    theirs = torch_sdpa(
        as_tensor(q),
        as_tensor(k),
        as_tensor(v),
        attn_mask=torch.ones(t, s, dtype=torch.bool).tril(),
    )

    assert_close(ours.context, theirs)


@pytest.mark.parametrize("scale", [0.25, 1.0, 3.0, -0.5])
@pytest.mark.parametrize(("t", "s", "d_k", "d_v"), SDPA_SHAPES)
def test_sdpa_matches_torch_with_an_explicit_scale(scale, t, s, d_k, d_v):
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(t, d_k)), rng.normal(size=(s, d_k)), rng.normal(size=(s, d_v))
    mask = rng.random((t, s)) < 0.7

    ours = ac.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    theirs = torch_sdpa(
        as_tensor(q), as_tensor(k), as_tensor(v), attn_mask=torch.from_numpy(mask), scale=scale
    )

    assert ours.scale == scale
    assert_close(ours.context, theirs)


def test_sdpa_weights_match_torch_softmax_of_masked_scaled_scores():
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(6, 3)), rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    mask = rng.random((6, 8)) < 0.5
    mask[:, 0] = True  # every query keeps one key, so torch's softmax has no NaN row

    ours = ac.scaled_dot_product_attention(q, k, v, mask=mask)
    scores = as_tensor(q) @ as_tensor(k).T / np.sqrt(3)
    theirs = torch.softmax(scores.masked_fill(~torch.from_numpy(mask), float("-inf")), dim=-1)

    assert_close(ours.weights, theirs)


# --- multi-head attention vs torch.nn.MultiheadAttention ---------------------


def torch_mha(w_q, w_k, w_v, w_o, n_heads):
    embed_dim = w_q.shape[0]
    module = torch.nn.MultiheadAttention(
        embed_dim, n_heads, bias=False, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        module.in_proj_weight.copy_(as_tensor(np.concatenate([w_q.T, w_k.T, w_v.T])))
        module.out_proj.weight.copy_(as_tensor(w_o.T))
    return module


def run_torch_mha(module, x, x_kv, disallowed=None):
    """Output (T, E) and per-head weights (H, T, S) for one unbatched sequence."""
    query, key_value = as_tensor(x)[None], as_tensor(x_kv)[None]
    attn_mask = None if disallowed is None else torch.from_numpy(disallowed)
    with torch.no_grad():
        output, weights = module(
            query,
            key_value,
            key_value,
            attn_mask=attn_mask,
            need_weights=True,
            average_attn_weights=False,
        )
    return output[0], weights[0]


# (embed dim E, heads H, T queries, S keys); S != T is cross-attention.
MHA_CASES = [
    (8, 1, 5, 5),
    (8, 2, 5, 5),
    (12, 3, 4, 4),
    (12, 4, 6, 6),
    (16, 8, 7, 7),
    (8, 2, 3, 6),
    (12, 6, 5, 2),
    (6, 3, 1, 4),
    (12, 12, 9, 3),
]


@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "causal"])
@pytest.mark.parametrize(("embed_dim", "n_heads", "t", "s"), MHA_CASES)
def test_multi_head_attention_matches_torch_multihead_attention(embed_dim, n_heads, t, s, masked):
    rng = np.random.default_rng(embed_dim * 100 + n_heads * 10 + t)
    x = rng.normal(size=(t, embed_dim))
    x_kv = x if s == t else rng.normal(size=(s, embed_dim))
    w_q, w_k, w_v, w_o = (rng.normal(size=(embed_dim, embed_dim)) / 2 for _ in range(4))
    mask = ac.causal_mask(t, s) if masked else None

    ours = ac.multi_head_attention(
        x, w_q, w_k, w_v, w_o=w_o, n_heads=n_heads, mask=mask, x_kv=None if s == t else x_kv
    )
    output, weights = run_torch_mha(
        torch_mha(w_q, w_k, w_v, w_o, n_heads), x, x_kv, None if mask is None else ~mask
    )

    assert ours.weights.shape == (n_heads, t, s)
    assert ours.output.shape == (t, embed_dim)
    assert_close(ours.weights, weights)
    assert_close(ours.output, output)


def test_multi_head_attention_matches_torch_with_a_random_cross_attention_mask():
    rng = np.random.default_rng(21)
    x, x_kv = rng.normal(size=(4, 8)), rng.normal(size=(7, 8))
    w_q, w_k, w_v, w_o = (rng.normal(size=(8, 8)) / 2 for _ in range(4))
    mask = rng.random((4, 7)) < 0.5
    mask[:, 3] = True  # no fully masked row (torch gives NaN there, tested below)

    ours = ac.multi_head_attention(x, w_q, w_k, w_v, w_o=w_o, n_heads=4, mask=mask, x_kv=x_kv)
    output, weights = run_torch_mha(torch_mha(w_q, w_k, w_v, w_o, 4), x, x_kv, ~mask)

    assert_close(ours.weights, weights)
    assert_close(ours.output, output)


def test_fully_masked_query_gives_zero_weights_where_torch_multihead_gives_nan():
    rng = np.random.default_rng(22)
    x = rng.normal(size=(3, 4))
    w_q, w_k, w_v, w_o = (rng.normal(size=(4, 4)) for _ in range(4))
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])

    ours = ac.multi_head_attention(x, w_q, w_k, w_v, w_o=w_o, n_heads=2, mask=mask)
    output, weights = run_torch_mha(torch_mha(w_q, w_k, w_v, w_o, 2), x, x, ~mask)

    # Ours: the query with no allowed key gets zero weights and a zero output.
    np.testing.assert_array_equal(ours.weights[:, 1], np.zeros((2, 3)))
    np.testing.assert_array_equal(ours.context[:, 1], np.zeros((2, 2)))
    np.testing.assert_array_equal(ours.output[1], np.zeros(4))
    assert np.all(np.isfinite(ours.weights)) and np.all(np.isfinite(ours.output))
    # torch.nn.MultiheadAttention: NaN on that row.
    assert torch.isnan(weights[:, 1]).all() and torch.isnan(output[1]).all()
    # The other rows agree.
    assert_close(ours.weights[:, [0, 2]], weights[:, [0, 2]])
    assert_close(ours.output[[0, 2]], output[[0, 2]])


def test_multi_head_attention_without_output_projection_is_torch_before_out_proj():
    # With w_o = identity, torch's output is the concatenation of the heads.
    rng = np.random.default_rng(23)
    x = rng.normal(size=(5, 6))
    w_q, w_k, w_v = (rng.normal(size=(6, 6)) for _ in range(3))

    ours = ac.multi_head_attention(x, w_q, w_k, w_v, w_o=None, n_heads=3)
    output, _ = run_torch_mha(torch_mha(w_q, w_k, w_v, np.eye(6), 3), x, x)

    np.testing.assert_array_equal(ours.output, ours.concat)
    assert_close(ours.output, output)


# --- hand-written backward pass vs torch.autograd ----------------------------


GRADIENT_NAMES = ("d_x_q", "d_x_k", "d_x_v", "d_w_q", "d_w_k", "d_w_v")


def torch_gradients(x_q, x_k, x_v, w_q, w_k, w_v, d_output, mask, scale):
    tensors = [as_tensor(a, requires_grad=True) for a in (x_q, x_k, x_v, w_q, w_k, w_v)]
    tx_q, tx_k, tx_v, tw_q, tw_k, tw_v = tensors
    q, k, v = tx_q @ tw_q, tx_k @ tw_k, tx_v @ tw_v
    scores = (q @ k.T) * scale
    if mask is not None:
        scores = scores.masked_fill(~torch.from_numpy(mask), float("-inf"))
    output = torch.softmax(scores, dim=-1) @ v
    loss = torch.sum(output * as_tensor(d_output))
    loss.backward()
    return output, [tensor.grad for tensor in tensors]


# (T queries, S keys, d_q input width, d_in_v value-input width, d_k, d_v)
BACKWARD_SHAPES = [
    (1, 1, 3, 2, 2, 2),  # one query: the notebook's squeeze() broke this
    (1, 4, 3, 5, 2, 3),  # one query, several keys
    (5, 5, 4, 4, 3, 2),
    (3, 7, 2, 6, 4, 5),  # cross-attention, S > T
    (6, 2, 5, 3, 2, 4),  # cross-attention, S < T
]


@pytest.mark.parametrize("mask_kind", ["none", "causal", "random"])
@pytest.mark.parametrize(("t", "s", "d_q", "d_in_v", "d_k", "d_v"), BACKWARD_SHAPES)
def test_attention_backward_matches_torch_autograd(t, s, d_q, d_in_v, d_k, d_v, mask_kind):
    rng = np.random.default_rng(t * 1000 + s * 100 + d_q)
    x_q, x_k = rng.normal(size=(t, d_q)), rng.normal(size=(s, d_q))
    x_v = rng.normal(size=(s, d_in_v))
    w_q, w_k = rng.normal(size=(d_q, d_k)), rng.normal(size=(d_q, d_k))
    w_v = rng.normal(size=(d_in_v, d_v))
    d_output = rng.normal(size=(t, d_v))
    if mask_kind == "none":
        mask = None
    elif mask_kind == "causal":
        mask = ac.causal_mask(t, s)  # row i keeps keys 0..i: never empty
    else:
        mask = rng.random((t, s)) < 0.5
        mask[np.arange(t), rng.integers(0, s, size=t)] = True  # one allowed key per row

    ours = ac.attention_backward(x_q, x_k, x_v, w_q, w_k, w_v, d_output, mask=mask)
    output, grads = torch_gradients(x_q, x_k, x_v, w_q, w_k, w_v, d_output, mask, 1 / np.sqrt(d_k))

    assert_close(ours.forward.context, output)
    for name, theirs in zip(GRADIENT_NAMES, grads, strict=True):
        mine = getattr(ours, name)
        assert mine.shape == tuple(theirs.shape), name
        assert_close(mine, theirs)


def test_attention_backward_with_one_query_keeps_the_query_axis():
    # The source notebook's g_sim.squeeze() turned (1, S) into (S,) for one query.
    rng = np.random.default_rng(31)
    x_q, x_k, x_v = rng.normal(size=(1, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    w_q, w_k, w_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    d_output = rng.normal(size=(1, 2))

    ours = ac.attention_backward(x_q, x_k, x_v, w_q, w_k, w_v, d_output)

    assert ours.d_scores.shape == (1, 4)
    assert ours.d_q.shape == (1, 2)
    assert ours.d_x_q.shape == (1, 3)
    assert ours.d_w_q.shape == (3, 2)


def test_attention_backward_matches_torch_with_an_explicit_scale():
    rng = np.random.default_rng(32)
    x_q, x_k, x_v = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    w_q, w_k, w_v = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(2, 4))
    d_output = rng.normal(size=(4, 4))

    ours = ac.attention_backward(x_q, x_k, x_v, w_q, w_k, w_v, d_output, scale=0.7)
    _, grads = torch_gradients(x_q, x_k, x_v, w_q, w_k, w_v, d_output, None, 0.7)

    for name, theirs in zip(GRADIENT_NAMES, grads, strict=True):
        assert_close(getattr(ours, name), theirs)


def test_fully_masked_query_contributes_no_gradient():
    # Torch's softmax gives NaN for a row of -inf; ours gives zero weights, so that
    # query adds nothing: gradients equal torch's for the same problem without it.
    rng = np.random.default_rng(33)
    x_q, x_k, x_v = rng.normal(size=(3, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    w_q, w_k, w_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    d_output = rng.normal(size=(3, 2))
    mask = np.array(
        [[True, False, True, True], [False, False, False, False], [True, True, False, True]]
    )

    ours = ac.attention_backward(x_q, x_k, x_v, w_q, w_k, w_v, d_output, mask=mask)
    kept = [0, 2]
    _, grads = torch_gradients(
        x_q[kept], x_k, x_v, w_q, w_k, w_v, d_output[kept], mask[kept], 1 / np.sqrt(2)
    )
    d_x_q, d_x_k, d_x_v, d_w_q, d_w_k, d_w_v = grads

    np.testing.assert_array_equal(ours.d_x_q[1], np.zeros(3))
    np.testing.assert_array_equal(ours.forward.context[1], np.zeros(2))
    assert_close(ours.d_x_q[kept], d_x_q)
    for name, theirs in (
        ("d_x_k", d_x_k),
        ("d_x_v", d_x_v),
        ("d_w_q", d_w_q),
        ("d_w_k", d_w_k),
        ("d_w_v", d_w_v),
    ):
        assert_close(getattr(ours, name), theirs)


def test_masked_keys_get_zero_gradient_through_the_scores():
    rng = np.random.default_rng(34)
    x = rng.normal(size=(4, 3))
    w_q, w_k, w_v = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    mask = ac.causal_mask(4)

    ours = ac.attention_backward(x, x, x, w_q, w_k, w_v, rng.normal(size=(4, 3)), mask=mask)

    assert np.all(ours.d_scores[~mask] == 0.0)
    assert np.all(ours.forward.weights[~mask] == 0.0)


def test_softmax_backward_matches_torch_softmax_jacobian():
    rng = np.random.default_rng(35)
    logits = rng.normal(size=(3, 5))
    upstream = rng.normal(size=(3, 5))
    weights = ac.softmax(logits)

    logits_t = as_tensor(logits, requires_grad=True)
    torch.sum(torch.softmax(logits_t, dim=-1) * as_tensor(upstream)).backward()

    assert_close(ac.softmax_backward(weights, upstream), logits_t.grad)


# --- rotary position embedding ----------------------------------------------


@pytest.mark.parametrize("width", [2, 7, 8, 16])
def test_rotary_inner_product_depends_only_on_the_offset(width):
    # Put the same query q at every position and the same key k at every
    # position: <rot(q, p), rot(k, r)> must then depend only on r - p.
    rng = np.random.default_rng(width)
    length = 12
    q, k = rng.normal(size=width), rng.normal(size=width)
    rotated_q = ac.rotary_embedding(np.tile(q, (length, 1)))
    rotated_k = ac.rotary_embedding(np.tile(k, (length, 1)))
    inner = rotated_q @ rotated_k.T  # (p, r)

    for offset in range(-(length - 1), length):
        diagonal = np.diagonal(inner, offset=offset)
        np.testing.assert_allclose(diagonal, diagonal[0], rtol=0, atol=1e-12)
    # Not trivially constant: different offsets give different inner products.
    assert np.ptp([inner[0, r] for r in range(length)]) > 1e-3


@pytest.mark.parametrize(("p", "r"), [(0, 0), (0, 5), (3, 8), (7, 2), (10, 15)])
def test_rotary_inner_product_equals_the_one_at_offset_from_zero(p, r):
    rng = np.random.default_rng(40)
    q, k = rng.normal(size=6), rng.normal(size=6)
    length = 16
    rotated_q = ac.rotary_embedding(np.tile(q, (length, 1)))
    rotated_k = ac.rotary_embedding(np.tile(k, (length, 1)))
    offset = r - p
    p0, r0 = (0, offset) if offset >= 0 else (-offset, 0)

    np.testing.assert_allclose(
        rotated_q[p] @ rotated_k[r], rotated_q[p0] @ rotated_k[r0], rtol=0, atol=1e-12
    )


def test_rotary_matches_complex_rotation_in_torch():
    # The usual torch reference: view column pairs as complex numbers and multiply
    # by e^{i theta}, theta_{p,i} = p * 10000^(-2i/d).
    rng = np.random.default_rng(41)
    heads, length, width = 2, 5, 8
    x = rng.normal(size=(heads, length, width))
    inv_freq = 10_000.0 ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv_freq)
    rotation = torch.polar(torch.ones_like(angles), angles)
    pairs = torch.view_as_complex(as_tensor(x).reshape(heads, length, width // 2, 2))
    theirs = torch.view_as_real(pairs * rotation).reshape(heads, length, width)

    assert_close(ac.rotary_embedding(x), theirs)


def test_rotary_keeps_position_zero_and_norms_and_an_odd_last_column():
    rng = np.random.default_rng(42)
    x = rng.normal(size=(6, 5))

    rotated = ac.rotary_embedding(x)

    np.testing.assert_array_equal(rotated[0], x[0])
    np.testing.assert_array_equal(rotated[:, 4], x[:, 4])
    np.testing.assert_allclose(
        np.linalg.norm(rotated, axis=1), np.linalg.norm(x, axis=1), rtol=1e-14, atol=0
    )


# --- The trained models' attention module vs the core ------------------------


def trained_attention(d_model: int, n_heads: int, bias: bool, seed: int):
    torch.manual_seed(seed)
    return MultiHeadAttention(d_model, n_heads, bias=bias).double()


@pytest.mark.parametrize("n_heads", [1, 2, 4])
def test_trained_attention_module_is_the_cores_attention_on_its_weights(n_heads):
    module = trained_attention(8, n_heads, bias=False, seed=n_heads)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    mask = torch.from_numpy(ac.causal_mask(5))

    with torch.no_grad():
        output, weights = module(x, mask)
    for batch in range(2):
        core = ac.multi_head_attention(
            x[batch].numpy(),
            **attention_matrices(module),
            n_heads=n_heads,
            mask=ac.causal_mask(5),
        )
        assert_close(core.weights, weights[batch])
        assert_close(core.output, output[batch])


def test_trained_attention_module_takes_biases_and_returns_heads_before_the_output():
    module = trained_attention(6, 3, bias=True, seed=7)
    x = torch.randn(1, 4, 6, dtype=torch.float64)
    everywhere = torch.ones(4, 4, dtype=torch.bool)

    with torch.no_grad():
        concat, weights = module.heads(x, everywhere)
        output, _ = module(x, everywhere)

    assert [name for name, _ in module.named_parameters()] == [
        f"{linear}.{part}"
        for linear in ("query", "key", "value", "output")
        for part in ("weight", "bias")
    ]
    assert tuple(weights.shape) == (1, 3, 4, 4)
    assert_close(output.numpy(), module.output(concat))
    q = module.query(x).view(1, 4, 3, 2).transpose(1, 2)
    k = module.key(x).view(1, 4, 3, 2).transpose(1, 2)
    assert_close(weights.numpy(), torch.softmax(q @ k.transpose(-2, -1) / np.sqrt(2), dim=-1))


def test_an_exported_linear_multiplies_from_the_right_and_loads_back():
    torch.manual_seed(5)
    linear = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)

    matrix, bias = as_matrix(linear), as_array(linear.bias)
    with torch.no_grad():
        expected = linear(x).numpy()
    np.testing.assert_allclose(x.numpy() @ matrix + bias, expected, rtol=0, atol=1e-6)
    assert matrix.shape == (3, 2) and not matrix.flags.writeable

    other = torch.nn.Linear(3, 2)
    load_matrix(other, matrix)
    np.testing.assert_array_equal(as_matrix(other), matrix)
