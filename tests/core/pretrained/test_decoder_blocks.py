"""The shared blocks the decoders add to the maths: RMSNorm, SiLU, SwiGLU, grouped K/V heads,
and the permutation that turns Hugging Face's RoPE halves into our interleaved pairs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from attention_core.maths.attention import kv_group, multi_head_attention, repeat_kv
from attention_core.maths.layers import rms_norm, silu, swiglu
from attention_core.maths.masks import causal_mask
from attention_core.maths.positional import rotary_angles, rotate
from attention_core.maths.projections import Projections
from attention_core.pretrained.llama import rope_order


def test_rms_norm_divides_each_row_by_its_root_mean_square_then_scales() -> None:
    x = np.array([[3.0, 4.0], [1.0, -1.0]])
    gain = np.array([1.0, 2.0])
    rms = np.array([[math.sqrt(12.5)], [1.0]])
    np.testing.assert_allclose(rms_norm(x, gain, eps=0.0), x / rms * gain)
    np.testing.assert_allclose(rms_norm(np.zeros((1, 2)), gain, eps=1e-6), np.zeros((1, 2)))


def test_silu_is_x_times_sigmoid_without_overflow() -> None:
    x = np.array([-1000.0, -1.0, 0.0, 1.0, 30.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = silu(x)
    np.testing.assert_allclose(found, x / (1.0 + np.exp(-np.clip(x, -700, None))), atol=1e-12)
    assert found[0] == 0.0 and found[2] == 0.0


def test_swiglu_gates_the_up_projection_by_silu_of_the_gate() -> None:
    x = np.array([[1.0, 2.0]])
    w_gate = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # x W_g = [1, 2, 0]
    w_up = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])  # x W_u = [3, 3, 3]
    w_down = np.ones((3, 1))
    expected = 3.0 * (1 / (1 + math.exp(-1))) + 3.0 * (2 / (1 + math.exp(-2))) + 0.0
    np.testing.assert_allclose(swiglu(x, w_gate, w_up, w_down), [[expected]])


@pytest.mark.parametrize(
    ("n_heads", "kv_heads", "groups"),
    [(4, 2, [0, 0, 1, 1]), (6, 3, [0, 0, 1, 1, 2, 2]), (3, 3, [0, 1, 2]), (4, 1, [0, 0, 0, 0])],
)
def test_kv_group_names_the_key_value_head_each_query_head_reads(
    n_heads: int, kv_heads: int, groups: list[int]
) -> None:
    assert [kv_group(h, n_heads, kv_heads) for h in range(n_heads)] == groups
    stacked = np.arange(kv_heads)[:, None, None] * np.ones((kv_heads, 2, 1))  # head i holds i
    assert repeat_kv(stacked, n_heads // kv_heads)[:, 0, 0].tolist() == groups


def test_grouped_heads_equal_full_heads_whose_keys_and_values_are_copies() -> None:
    rng = np.random.default_rng(0)
    n_heads, kv_heads, d_head, d = 4, 2, 3, 6
    x = rng.standard_normal((5, d))
    w_q, w_o = (
        rng.standard_normal((d, n_heads * d_head)),
        rng.standard_normal((n_heads * d_head, d)),
    )
    w_k, w_v = (rng.standard_normal((d, kv_heads * d_head)) for _ in range(2))

    def copied(w: np.ndarray) -> np.ndarray:  # every query head its own copy of its group's columns
        return np.concatenate(
            [w[:, g * d_head : (g + 1) * d_head] for g in [kv_group(h, 4, 2) for h in range(4)]], 1
        )

    grouped = Projections(w_q, w_k, w_v, w_o)
    full = Projections(w_q, copied(w_k), copied(w_v), w_o)
    mask = causal_mask(5)
    ours = multi_head_attention(x, x, grouped, n_heads, 0.5, mask, rotary_base=100.0, kv_heads=2)
    plain = multi_head_attention(x, x, full, n_heads, 0.5, mask, rotary_base=100.0)
    assert ours.weights.shape == (4, 5, 5) and ours.k.shape == (4, 5, 3)
    np.testing.assert_allclose(ours.weights, plain.weights, atol=1e-12)
    np.testing.assert_allclose(ours.output, plain.output, atol=1e-12)
    np.testing.assert_allclose(ours.k_unrotated, plain.k_unrotated, atol=1e-12)


def test_without_rope_the_trace_has_no_unrotated_copies() -> None:
    x = np.eye(2)
    trace = multi_head_attention(x, x, Projections(*[np.eye(2)] * 4), 1, 1.0)
    assert trace.q_unrotated is None and trace.k_unrotated is None


def rotate_half_like_hugging_face(x: np.ndarray, base: float) -> np.ndarray:
    """HF Llama: ``x cos + rotate_half(x) sin``, pairs (i, i + d/2), angle p * base^(-2i/d)."""
    length, width = x.shape[-2:]
    angles = np.concatenate([rotary_angles(length, width, base)] * 2, axis=-1)  # (T, d)
    halves = np.concatenate([-x[..., width // 2 :], x[..., : width // 2]], axis=-1)
    return x * np.cos(angles) + halves * np.sin(angles)


def test_rope_order_turns_hugging_faces_half_pairs_into_our_interleaved_pairs() -> None:
    rng = np.random.default_rng(1)
    n_heads, d_head = 3, 8
    hf_q = rng.standard_normal((n_heads, 6, d_head))  # (H, T, dk), HF's column order
    within = rope_order(1, d_head)
    assert within.tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    ours = rotate(hf_q[..., within], 500.0)  # our RoPE on the reordered columns
    np.testing.assert_allclose(ours, rotate_half_like_hugging_face(hf_q, 500.0)[..., within])
    assert rope_order(n_heads, d_head).tolist()[8:12] == [8, 12, 9, 13]


def test_rotary_angles_match_hugging_faces_inverse_frequencies() -> None:
    base, width = 5000.0, 8
    inv_freq = 1.0 / base ** (np.arange(0, width, 2) / width)  # HF's formula
    np.testing.assert_allclose(rotary_angles(4, width, base), np.arange(4)[:, None] * inv_freq)
