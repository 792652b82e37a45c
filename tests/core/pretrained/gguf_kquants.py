"""Q4_K, Q5_K and Q6_K blocks for the GGUF tests, which the ``gguf`` package cannot write.

Each encoder takes float32 rows (length a multiple of 256) and returns the packed blocks,
laid out byte for byte as llama.cpp's ``block_q4_K`` / ``block_q5_K`` / ``block_q6_K``
(ggml-common.h), together with the values those blocks decode to, computed here from the codes
and scales, not by a dequantiser. The codes come from a plain min/max rounding: valid blocks
with small finite float16 scales whose values follow the weights, not llama.cpp's optimised
(and slower) search, so the weights stay sensible while the bytes stay exactly specified.

A super-block of 256 values has float16 scales ``d`` (and ``dmin``) and small integer scales
per sub-block:

    Q4_K, Q5_K:  x = d * scale_j * q - dmin * min_j    8 sub-blocks of 32, q in [0, 15] / [0, 31]
    Q6_K:        x = d * scale_j * q                   16 sub-blocks of 16, q in [-32, 31]
"""

from __future__ import annotations

import numpy as np

SUPER_BLOCK = 256  # QK_K


def _as_blocks(rows: np.ndarray, sub_blocks: int) -> np.ndarray:
    """(R, C) rows -> (R * C / 256, sub_blocks, 256 / sub_blocks) super-blocks."""
    if rows.shape[-1] % SUPER_BLOCK:
        raise ValueError(f"rows of {rows.shape[-1]} values do not split into blocks of 256")
    return rows.astype(np.float32).reshape(-1, sub_blocks, SUPER_BLOCK // sub_blocks)


def _half(values: np.ndarray) -> np.ndarray:
    """float16 as stored, back in float32: later steps must use the scale the file holds."""
    return values.astype(np.float16).astype(np.float32)


def _codes(values: np.ndarray, step: np.ndarray, low: int, high: int) -> np.ndarray:
    """round(values / step), clipped to [low, high]; 0 where the step is 0 (a zero block)."""
    ratio = np.divide(values, step, out=np.zeros_like(values), where=step != 0)
    return np.clip(np.rint(ratio), low, high).astype(np.int32)


def _unsigned_codes(
    blocks: np.ndarray, levels: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Q4_K/Q5_K rounding: ``(d, dmin, scales, mins, q)`` for (N, 8, 32) ``blocks``.

    d, dmin: (N,) float16 super-block scales; scales, mins: (N, 8) in [0, 63]; q: (N, 8, 32).
    """
    low = np.minimum(blocks.min(axis=-1), 0.0)  # (N, 8), a min the codes can reach from 0
    step = (blocks.max(axis=-1) - low) / levels  # (N, 8)
    d = _half(step.max(axis=-1) / 63)  # (N,)
    dmin = _half(-low.min(axis=-1) / 63)  # (N,)
    scales = _codes(step, d[:, None], 0, 63)
    mins = _codes(-low, dmin[:, None], 0, 63)
    step_stored, min_stored = _scaled(d, scales), _scaled(dmin, mins)
    q = _codes(blocks + min_stored[..., None], step_stored[..., None], 0, levels)
    return d, dmin, scales, mins, q


def _scaled(d: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """d * scale in float32, as ggml computes it: (N,) x (N, S) -> (N, S)."""
    return (d[:, None] * scales.astype(np.float32)).astype(np.float32)


def _pack_scales_and_mins(scales: np.ndarray, mins: np.ndarray) -> np.ndarray:
    """Eight 6-bit scales and eight 6-bit mins in 12 bytes (ggml's ``get_scale_min_k4``).

    Bytes 0-3 hold scales 0-3 and bytes 4-7 mins 0-3 in their low 6 bits; the top 2 bits of
    scales/mins 4-7 sit above them, and their low 4 bits fill bytes 8-11 (scale low, min high).
    """
    packed = np.empty((scales.shape[0], 12), dtype=np.uint8)
    packed[:, 0:4] = scales[:, :4] | (scales[:, 4:] >> 4) << 6
    packed[:, 4:8] = mins[:, :4] | (mins[:, 4:] >> 4) << 6
    packed[:, 8:12] = (scales[:, 4:] & 0xF) | (mins[:, 4:] & 0xF) << 4
    return packed


def _nibbles(q: np.ndarray) -> np.ndarray:
    """Low 4 bits of (N, 8, 32) codes in 128 bytes: sub-block 2j low, 2j + 1 high, of 32 bytes j."""
    low4 = (q & 0xF).astype(np.uint8)
    return (low4[:, 0::2] | low4[:, 1::2] << 4).reshape(-1, 128)


def _half_bytes(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float16).view(np.uint8).reshape(-1, 2)


def _k_values(d: np.ndarray, dmin: np.ndarray, scales, mins, q: np.ndarray, shape) -> np.ndarray:
    """d * scale_j * q - dmin * min_j, in ggml's float32 order, as ``shape``."""
    values = _scaled(d, scales)[..., None] * q.astype(np.float32) - _scaled(dmin, mins)[..., None]
    return values.reshape(shape)


def encode_q4_k(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(blocks, values) for (R, C) rows: blocks (R, C / 256 * 144) uint8, values (R, C) float32.

    block_q4_K: d (f16), dmin (f16), scales (12 bytes), qs (128 bytes of 4-bit codes).
    """
    d, dmin, scales, mins, q = _unsigned_codes(_as_blocks(rows, 8), 15)
    parts = [_half_bytes(d), _half_bytes(dmin), _pack_scales_and_mins(scales, mins), _nibbles(q)]
    blocks = np.concatenate(parts, axis=1)
    return blocks.reshape(rows.shape[0], -1), _k_values(d, dmin, scales, mins, q, rows.shape)


def encode_q5_k(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(blocks, values) for (R, C) rows: blocks (R, C / 256 * 176) uint8, values (R, C) float32.

    block_q5_K: d, dmin, scales (12), qh (32 bytes: bit j of byte l is the fifth bit of value
    l of sub-block j), qs (128 bytes of the low 4 bits, laid out as in Q4_K).
    """
    d, dmin, scales, mins, q = _unsigned_codes(_as_blocks(rows, 8), 31)
    fifth_bits = (q >> 4 & 1).astype(np.uint8) << np.arange(8, dtype=np.uint8)[None, :, None]
    high = np.bitwise_or.reduce(fifth_bits, axis=1)  # (N, 32)
    parts = [
        _half_bytes(d),
        _half_bytes(dmin),
        _pack_scales_and_mins(scales, mins),
        high,
        _nibbles(q),
    ]
    blocks = np.concatenate(parts, axis=1)
    return blocks.reshape(rows.shape[0], -1), _k_values(d, dmin, scales, mins, q, rows.shape)


def encode_q6_k(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(blocks, values) for (R, C) rows: blocks (R, C / 256 * 210) uint8, values (R, C) float32.

    block_q6_K: ql (128 bytes), qh (64 bytes), scales (16 int8), d (f16). A code is stored
    as q + 32 in [0, 63]: in each half of 128 values, ql byte l holds the low 4 bits of value
    l (low nibble) and l + 64 (high nibble), and qh byte l (l < 32) holds the top 2 bits of
    values l, l + 32, l + 64, l + 96 in bits 0-1, 2-3, 4-5, 6-7.
    """
    blocks = _as_blocks(rows, 16)  # (N, 16, 16)
    step = np.abs(blocks).max(axis=-1) / 31  # (N, 16)
    d = _half(step.max(axis=-1) / 127)  # (N,)
    scales = _codes(step, d[:, None], 0, 127)
    q = _codes(blocks, _scaled(d, scales)[..., None], -32, 31)  # (N, 16, 16)
    stored = (q + 32).astype(np.uint8).reshape(-1, 2, 4, 32)  # (N, half, quarter, 32)
    low4, top2 = stored & 0xF, stored >> 4
    ql = (low4[:, :, 0:2] | low4[:, :, 2:4] << 4).reshape(-1, 128)
    qh = top2[:, :, 0] | top2[:, :, 1] << 2 | top2[:, :, 2] << 4 | top2[:, :, 3] << 6
    parts = [ql, qh.reshape(-1, 64), scales.astype(np.int8).view(np.uint8), _half_bytes(d)]
    packed = np.concatenate(parts, axis=1)
    values = _scaled(d, scales)[..., None] * q.astype(np.float32)
    return packed.reshape(rows.shape[0], -1), values.reshape(rows.shape)


# ggml type name -> encoder
K_QUANT_ENCODERS = {"Q4_K": encode_q4_k, "Q5_K": encode_q5_k, "Q6_K": encode_q6_k}
