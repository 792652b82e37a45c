r"""What a real model adds to a cell's computation, written out with its own numbers.

Beside :mod:`attention_core.teaching.cell_computation`'s stages: for RoPE models how
:math:`q_i` and :math:`k_j` were turned at their positions (:func:`rotated_pairs`,
:func:`rotation_lines`), for grouped K/V heads which K/V head a query head reads
(:func:`kv_head_line`), and an entry of the attention rollout (:func:`rollout_cell`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.teaching.cell_computation import (
    SHOWN_TERMS,
    CellComputation,
    number,
    terms,
)


@dataclass(frozen=True)
class RotatedPair:
    r"""One column pair of a rotated row: :math:`(x, y)` turned by :math:`\theta` to
    :math:`(x\cos\theta - y\sin\theta,\; x\sin\theta + y\cos\theta)`."""

    pair: int  #: the pair's number: columns 2·pair and 2·pair + 1
    angle: float
    before: tuple[float, float]
    after: tuple[float, float]


def rotated_pairs(
    before: np.ndarray, angles: np.ndarray, position: int, shown: int = 2
) -> tuple[RotatedPair, ...]:
    r"""RoPE at ``position`` of one head's row: the ``shown`` pairs of ``before (T, dk)`` with
    the largest values, each turned by its angle from ``angles (T, dk/2)`` (pairs in the
    interleaved order every family's trace keeps)."""
    row = before[position]  # (dk,)
    pairs = row[: 2 * angles.shape[1]].reshape(-1, 2)  # (dk/2, 2)
    order = np.argsort(-np.hypot(pairs[:, 0], pairs[:, 1]))[:shown]
    turned = []
    for index in sorted(int(i) for i in order):
        x, y = (float(value) for value in pairs[index])
        theta = float(angles[position, index])
        after = (
            x * math.cos(theta) - y * math.sin(theta),
            x * math.sin(theta) + y * math.cos(theta),
        )
        turned.append(RotatedPair(index, theta, (x, y), after))
    return tuple(turned)


def rotation_lines(name: str, position: int, pairs: tuple[RotatedPair, ...]) -> tuple[str, ...]:
    """Words for :func:`rotated_pairs`: RoPE turns ``name`` (q or k) at ``position``."""
    lines = [
        f"RoPE turns {name}{position + 1} before the dot product: each pair of columns by an "
        f"angle that grows with the position ({position} here) and shrinks along the pairs."
    ]
    for turned in pairs:
        (x, y), (x_after, y_after) = turned.before, turned.after
        lines.append(
            f"Columns {2 * turned.pair + 1} and {2 * turned.pair + 2}: ({number(x)}, {number(y)}) "
            f"turned by {number(turned.angle)} radians is ({number(x_after)}, {number(y_after)})."
        )
    return tuple(lines)


def kv_head_line(head: int, n_heads: int, kv_heads: int) -> str:
    """Which K/V head a query head reads under grouped-query attention, in words."""
    group = n_heads // kv_heads
    kv_head = head // group
    first, last = kv_head * group + 1, (kv_head + 1) * group
    return (
        f"Query head {head + 1} reads keys and values from K/V head {kv_head + 1}, which "
        f"query heads {first} to {last} share ({n_heads} query heads, {kv_heads} K/V heads)."
    )


def rollout_cell(
    mixed: np.ndarray, previous: np.ndarray | None, layer: int, i: int, j: int
) -> CellComputation:
    r"""Rollout entry ``(i, j)`` after layer ``layer`` (0-based): :math:`R_l[i, j] = \sum_k
    \hat A_l[i, k]\, R_{l-1}[k, j]`, with ``mixed`` :math:`\hat A_l = \tfrac12(\bar A_l + I)`
    ``(T, T)`` (rows renormalised) and ``previous`` :math:`R_{l-1}` ``(T, T)``, None before the
    first layer (:math:`R_0 = I`, so :math:`R_1 = \hat A_1`)."""
    if previous is None:
        value = float(mixed[i, j])
        itself = " plus ½ because it is the token itself (the residual)" if i == j else ""
        first: tuple[str, ...] = (
            f"After layer 1 the rollout is Â: half of the heads' mean weight of token {i + 1} "
            f"on token {j + 1}{itself}, the row renormalised to sum to 1: {number(value)}.",
        )
        return CellComputation("rollout", i, j, value, first)
    contributions = mixed[i] * previous[:, j]  # (T,)
    value = float(mixed[i] @ previous[:, j])
    lines = (
        f"Rollout after layer {layer + 1}, token {i + 1} from input token {j + 1}: each token "
        f"k's share Â[{i + 1}, k] at this layer (half the heads' mean weight, half the "
        f"residual) times how much of input token {j + 1} token k held after layer {layer}, "
        f"R[k, {j + 1}], summed over {len(contributions)} tokens"
        + (f" (the {SHOWN_TERMS} largest first)." if len(contributions) > SHOWN_TERMS else "."),
        terms(contributions, lambda k: f"Â[{i + 1}, {k + 1}] × R[{k + 1}, {j + 1}]", SHOWN_TERMS)
        + ".",
        f"Sum: {number(value)}.",
    )
    return CellComputation("rollout", i, j, value, lines)
