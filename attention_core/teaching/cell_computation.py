r"""How one number of an attention matrix was computed, written out with its own numbers.

For a cell ``(i, j)`` of one head's stage, each function recomputes the entry from the
arrays it came from and says how, in plain text a screen reader reads as it is:

* a **projection** entry :math:`q_{id} = \sum_m x_{im} W_{md} (+ b_d)` (likewise k, v): its
  ``d_model`` products, the largest first, and the bias;
* a **score** :math:`s_{ij} = q_i \cdot k_j = \sum_d q_{id} k_{jd}`: its ``d_k`` products,
  the largest first when there are many, and their sum;
* **scaled** :math:`\tilde s_{ij} = c\, s_{ij}` (``c`` the run's scale, :math:`1/\sqrt{d_k}`
  by default);
* **masked**: the mask's verdict for ``(i, j)``: the scaled score, or :math:`-\infty`;
* a **weight**, softmax :math:`a_{ij} = e^{\hat s_{ij} - m_i} / \sum_k e^{\hat s_{ik} - m_i}`
  with the row's maximum :math:`m_i` and sum, or hardmax (1 for the row's largest score);
* a weight **recorded** during training, where only the weights were kept: its place and
  its row's sum (:func:`recorded_weight_cell`);
* a **context** entry :math:`c_{id} = \sum_j a_{ij} v_{jd}`: the largest contributions;
* a **similarity** of two positions :math:`G_{pr} = P_p \cdot P_r` (:func:`similarity_cell`):
  the dot product of their encodings, written as a score is;
* for RoPE models, how :math:`q_i` and :math:`k_j` were turned at their positions
  (:func:`rotated_pairs`), and for grouped K/V heads which K/V head supplied :math:`k_j`
  (:func:`kv_head_line`);
* an attention **rollout** entry :math:`R_l[i, j] = \sum_k \hat A_l[i, k]\, R_{l-1}[k, j]`
  (:func:`rollout_cell`).

Each returns a :class:`CellComputation` whose ``value`` is the recomputed entry: it equals
the matrix's own entry (tests/core/teaching/test_cell_computation.py checks every stage).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SHOWN_TERMS = 8  #: products or contributions written out; the rest are summed in one
DIGITS = 3  #: decimals of every number written


@dataclass(frozen=True)
class CellComputation:
    """One cell's number and how it came about: ``lines`` of text, in the order computed."""

    stage: str
    row: int
    column: int
    value: float
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def number(value: float) -> str:
    """``value`` as every line writes it: 3 decimals, a true minus, −∞ for a masked score."""
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    return f"{value:.{DIGITS}f}".replace("-", "−")


def terms(products: np.ndarray, name: Callable[[int], str], shown: int) -> str:
    """``a₁ + a₂ + …``: the ``shown`` largest by size (index order when all fit), then the
    rest as one sum."""
    order = np.arange(len(products)) if len(products) <= shown else np.argsort(-np.abs(products))
    parts = [f"{name(int(index))} = {number(float(products[index]))}" for index in order[:shown]]
    rest = order[shown:]
    if len(rest):
        parts.append(f"the other {len(rest)} terms together {number(float(products[rest].sum()))}")
    return "; ".join(parts)


def products_lines(
    products: np.ndarray, heading: str, name: Callable[[int], str]
) -> tuple[str, str]:
    """A sum of ``products (n,)`` in words: ``heading``, saying which are written when not
    all of them, then the products (:func:`terms`)."""
    many = len(products) > SHOWN_TERMS
    return (
        heading + (f" (the {SHOWN_TERMS} largest of {len(products)})." if many else "."),
        terms(products, name, SHOWN_TERMS) + ".",
    )


def projection_cell(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, i: int, d: int, name: str
) -> CellComputation:
    r"""Entry ``(i, d)`` of one head's projection ``name`` (q, k or v): ``x (T, d_in)`` the
    inputs, ``w (d_in, d_head)`` the head's columns of :math:`W`, ``bias (d_head,)`` or None:
    :math:`x_i \cdot W_{:,d} + b_d`."""
    products = x[i] * w[:, d]  # (d_in,)
    value = float(x[i] @ w[:, d]) + (float(bias[d]) if bias is not None else 0.0)
    lines = [
        *products_lines(
            products,
            f"{name}{i + 1}[{d + 1}]: token {i + 1}'s input vector times column {d + 1} of the "
            f"head's W^{name.upper()}, the sum of {len(products)} products "
            f"x{i + 1}[m] × W[m, {d + 1}]",
            lambda m: f"x[{m + 1}] × W[{m + 1}]",
        )
    ]
    if bias is not None:
        lines.append(f"Plus the bias b[{d + 1}] = {number(float(bias[d]))}.")
    lines.append(f"Sum: {number(value)}.")
    return CellComputation(name, i, d, value, tuple(lines))


def score_cell(q: np.ndarray, k: np.ndarray, i: int, j: int) -> CellComputation:
    r"""Score ``(i, j)`` of one head, ``q (T, dk)``, ``k (S, dk)``: :math:`q_i \cdot k_j`."""
    products = q[i] * k[j]  # (dk,)
    value = float(q[i] @ k[j])
    lines = (
        *products_lines(
            products,
            f"Score of query {i + 1} and key {j + 1}: the dot product q{i + 1} · k{j + 1}, "
            f"the sum of {len(products)} products q{i + 1}[d] × k{j + 1}[d]",
            lambda d: f"q[{d + 1}] × k[{d + 1}]",
        ),
        f"Sum: {number(value)}.",
    )
    return CellComputation("scores", i, j, value, lines)


def scaled_cell(scores: np.ndarray, scale: float, i: int, j: int) -> CellComputation:
    r"""Scaled score ``(i, j)``, ``scores (T, S)``: :math:`c\, s_{ij}`."""
    value = float(scores[i, j] * scale)
    root = 1 / scale**2  # the scale is 1/√root when root is a whole number (1/√d_k)
    named = f" = 1/√{round(root)}" if scale != 1 and abs(root - round(root)) < 1e-9 else ""
    lines = (
        f"Scaled score: the score {number(float(scores[i, j]))} times the scale "
        f"{number(scale)}{named} = {number(value)}.",
    )
    return CellComputation("scaled", i, j, value, lines)


def masked_cell(scaled: np.ndarray, mask: np.ndarray | None, i: int, j: int) -> CellComputation:
    r"""Masked score ``(i, j)``: the scaled score where ``mask (T, S)`` allows it, else −∞."""
    allowed = mask is None or bool(mask[i, j])
    value = float(scaled[i, j]) if allowed else -math.inf
    if mask is None:
        verdict = "No mask: every query may look at every key, so the scaled score stays"
    elif allowed:
        verdict = f"The mask lets query {i + 1} look at key {j + 1}, so the scaled score stays"
    else:
        verdict = (
            f"The mask forbids query {i + 1} to look at key {j + 1}: the score becomes −∞, "
            "so its weight will be 0; masked"
        )
    return CellComputation("masked", i, j, value, (f"{verdict}: {number(value)}.",))


def weight_cell(masked: np.ndarray, i: int, j: int, normaliser: str = "softmax") -> CellComputation:
    r"""Weight ``(i, j)`` from one head's ``masked (T, S)`` scores, by ``normaliser``."""
    row = masked[i]  # (S,)
    if np.all(np.isneginf(row)):
        return CellComputation(
            "weights", i, j, 0.0, (f"Every key is masked for query {i + 1}: every weight is 0.",)
        )
    if normaliser == "hardmax":
        best = int(np.argmax(row))
        value = 1.0 if j == best else 0.0
        line = (
            f"Hardmax: the row's largest score is key {best + 1}'s ({number(float(row[best]))}); "
            f"it gets weight 1 and every other key 0. Weight: {number(value)}."
        )
        return CellComputation("weights", i, j, value, (line,))
    top = float(np.max(row))
    exps = np.exp(row - top)  # (S,), 0 where masked
    total = float(exps.sum())
    value = float(exps[j] / total)
    if np.isneginf(row[j]):
        return CellComputation(
            "weights", i, j, value, (f"Key {j + 1} is masked for query {i + 1}: weight 0.",)
        )
    lines = (
        f"Softmax of row {i + 1}: subtract the row's largest score m = {number(top)}, "
        f"exponentiate, divide by the row's sum.",
        f"exp({number(float(row[j]))} − {number(top)}) = exp({number(float(row[j]) - top)}) "
        f"= {number(float(exps[j]))}.",
        f"The row's sum of exp(s − m) over its {int(np.sum(~np.isneginf(row)))} unmasked keys: "
        f"{number(total)}.",
        f"Weight: {number(float(exps[j]))} / {number(total)} = {number(value)}.",
    )
    return CellComputation("weights", i, j, value, lines)


def recorded_weight_cell(weights: np.ndarray, i: int, j: int, when: str) -> CellComputation:
    r"""Weight ``(i, j)`` of ``weights (T, S)`` as recorded ``when`` (a training step), where
    only the weights were kept: its place in its row and the row's sum, 1 for a softmax."""
    source = "training recorded the weights, not the scores, of the steps before its end."
    return kept_weight_cell(
        weights, i, j, f" {when}", "The softmax of the head's scores then", source
    )


def given_weight_cell(weights: np.ndarray, i: int, j: int, source: str) -> CellComputation:
    """Weight ``(i, j)`` of ``weights (T, S)`` given as an input (``source`` says by whom):
    nothing computed it here, so its place in its row and the row's sum."""
    return kept_weight_cell(weights, i, j, "", "A row of attention weights", source)


def given_value_cell(values: np.ndarray, k: int, d: int, source: str) -> CellComputation:
    r"""Value ``(k, d)`` of ``values (S, dv)`` given as an input (``source`` says by whom): it
    enters every context entry of column ``d``, :math:`c_{id} = \sum_k a_{ik} v_{kd}`."""
    value = float(values[k, d])
    lines = (
        f"Value of token {k + 1}, dimension {d + 1}: {source}",
        f"Every query's context in dimension {d + 1} adds it in, times that query's weight on "
        f"key {k + 1}.",
        f"Value: {number(value)}.",
    )
    return CellComputation("values", k, d, value, lines)


def kept_weight_cell(
    weights: np.ndarray, i: int, j: int, when: str, what: str, source: str
) -> CellComputation:
    """Weight ``(i, j)`` of ``weights (T, S)`` known without its scores: its place among the
    ``S`` weights of its row, and the row's sum (``what`` the row is; ``source``, why only
    the weights are known)."""
    row = weights[i]  # (S,)
    value = float(row[j])
    place = int(np.sum(row > value)) + 1
    lines = (
        f"Weight of query {i + 1} on key {j + 1}{when}: number {place} of {len(row)} in its row.",
        f"{what}, so the row's {len(row)} weights add up to {number(float(row.sum()))}; {source}",
        f"Weight: {number(value)}.",
    )
    return CellComputation("weights", i, j, value, lines)


def context_cell(weights: np.ndarray, v: np.ndarray, i: int, d: int) -> CellComputation:
    r"""Context entry ``(i, d)``, ``weights (T, S)``, ``v (S, dv)``: :math:`\sum_j a_{ij}v_{jd}`."""
    contributions = weights[i] * v[:, d]  # (S,)
    value = float(weights[i] @ v[:, d])
    lines = (
        f"Context of query {i + 1}, dimension {d + 1}: each key's value in that dimension "
        f"times its weight, summed over {len(contributions)} keys"
        + (f" (the {SHOWN_TERMS} largest first)." if len(contributions) > SHOWN_TERMS else "."),
        terms(contributions, lambda j: f"a[{j + 1}] × v{j + 1}[{d + 1}]", SHOWN_TERMS) + ".",
        f"Sum: {number(value)}.",
    )
    return CellComputation("context", i, d, value, lines)


def similarity_cell(encoding: np.ndarray, p: int, r: int) -> CellComputation:
    r"""Entry ``(p, r)`` of :math:`G = P P^\top`, ``encoding (T, d)``: :math:`P_p \cdot P_r`.

    Positions and dimensions count from 0, as the positional-encoding page labels them.
    """
    products = encoding[p] * encoding[r]  # (d,)
    value = float(encoding[p] @ encoding[r])
    lines = (
        *products_lines(
            products,
            f"Similarity of positions {p} and {r}: the dot product P{p} · P{r}, the sum of "
            f"{len(products)} products P{p}[j] × P{r}[j]",
            lambda j: f"P{p}[{j}] × P{r}[{j}]",
        ),
        f"Sum: {number(value)}.",
    )
    return CellComputation("similarity", p, r, value, lines)
