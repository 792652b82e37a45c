r"""How one entry of a weight matrix's gradient was computed, written out with its own numbers.

The walkthrough's backward pass (:mod:`attention_core.teaching.gradcheck`): one head, inputs
``X (T, d)``, :math:`Q = XW^Q`, :math:`K = XW^K`, :math:`V = XW^V`, weights
:math:`A = \mathrm{softmax}(\mathrm{mask}(c\,QK^\top))` and output :math:`O = AV`, the loss
:math:`L = \tfrac12 \lVert O - Y \rVert^2`. Going backwards (:class:`BackwardSteps`):

.. math::
    \partial O = O - Y,\quad \partial V = A^\top \partial O,\quad
    \partial A = \partial O\, V^\top,\quad
    \partial S_{ij} = c\, A_{ij}\big(\partial A_{ij} - \textstyle\sum_k A_{ik}\,
    \partial A_{ik}\big),\\
    \partial Q = \partial S\, K,\quad \partial K = \partial S^\top Q,\quad
    \partial W^Q = X^\top \partial Q \;\text{(likewise } W^K, W^V)

(:math:`\partial S` the gradient at the raw scores :math:`QK^\top`, so it holds the scale
:math:`c`). :func:`gradient_cell` writes entry ``(m, e)`` of :math:`\partial W^Q`,
:math:`\partial W^K` or :math:`\partial W^V` as its sum over the tokens, then follows its
largest term one step back at a time, down to the output's error. Tokens, features and
columns count from 0, as the walkthrough's matrices label them. ``value`` equals the
hand-written backward pass's entry and autograd's (tests/core/teaching/test_gradient_cells.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.api import scaled_dot_product_attention
from attention_core.teaching.cell_computation import CellComputation, number, terms
from attention_core.teaching.gradcheck import GradientExample

#: The weight matrices a gradient entry is explained for: name -> what the weight makes.
MADE = {"W_Q": "query q", "W_K": "key k", "W_V": "value v"}


@dataclass(frozen=True)
class BackwardSteps:
    """One example's forward pass and every gradient of the backward pass, ``T`` tokens."""

    x: np.ndarray  #: (T, d) the inputs
    q: np.ndarray  #: (T, dk)
    k: np.ndarray  #: (T, dk)
    v: np.ndarray  #: (T, dv)
    weights: np.ndarray  #: (T, T) A
    mask: np.ndarray | None  #: (T, T) bool, True = may attend
    scale: float  #: c, 1/√dk
    output: np.ndarray  #: (T, dv) O = A V
    target: np.ndarray  #: (T, dv) Y
    d_output: np.ndarray  #: (T, dv) ∂O = O − Y
    d_weights: np.ndarray  #: (T, T) ∂A = ∂O Vᵀ
    d_scores: np.ndarray  #: (T, T) ∂S at the raw scores Q Kᵀ
    d_q: np.ndarray  #: (T, dk) ∂S K
    d_k: np.ndarray  #: (T, dk) ∂Sᵀ Q
    d_v: np.ndarray  #: (T, dv) Aᵀ ∂O

    def gradient(self, name: str) -> np.ndarray:
        r""":math:`\partial W = X^\top \partial Z` ``(d, ·)`` for ``name`` in :data:`MADE`."""
        return self.x.T @ self.made(name)

    def made(self, name: str) -> np.ndarray:
        """The gradient at what ``name`` makes: ∂Q, ∂K or ∂V ``(T, ·)``."""
        return {"W_Q": self.d_q, "W_K": self.d_k, "W_V": self.d_v}[name]


def backward_steps(example: GradientExample) -> BackwardSteps:
    """The forward pass of ``example`` and its backward pass, step by step (see the module)."""
    x = example.x
    q, k, v = x @ example.w_q, x @ example.w_k, x @ example.w_v
    forward = scaled_dot_product_attention(q, k, v, mask=example.mask)
    weights = forward.weights  # (T, T)
    d_output = forward.context - example.target  # (T, dv)
    d_weights = d_output @ v.T  # (T, T)
    row_mean = np.sum(weights * d_weights, axis=-1, keepdims=True)  # (T, 1)
    d_scores = forward.scale * weights * (d_weights - row_mean)  # (T, T)
    return BackwardSteps(
        x, q, k, v, weights, example.mask, forward.scale, forward.context, example.target,
        d_output, d_weights, d_scores, d_scores @ k, d_scores.T @ q, weights.T @ d_output,
    )  # fmt: skip


def operand(value: float) -> str:
    """A number on the right of − or ×: in brackets when negative, so "− (−1.010)"."""
    return f"({number(value)})" if number(value).startswith("−") else number(value)


def _together(products: np.ndarray, name: Callable[[int], str], total: float) -> str:
    """Every product (:func:`terms`, all of them: T is small), then their sum ``total``."""
    return f"{terms(products, name, len(products))}; together {number(total)}."


def output_error_line(steps: BackwardSteps, e: int) -> str:
    r"""Every token's :math:`\partial o_i[e] = o_i[e] - y_i[e]`, in words."""
    errors = "; ".join(
        f"∂o{i}[{e}] = {number(float(steps.output[i, e]))} − {operand(float(steps.target[i, e]))}"
        f" = {number(float(steps.d_output[i, e]))}"
        for i in range(len(steps.output))
    )
    return (
        f"Each output's error, ∂o_i[{e}] = o_i[{e}] − y_i[{e}] (the loss is ½ Σ (o − y)²): "
        f"{errors}."
    )


def value_lines(steps: BackwardSteps, t: int, e: int) -> tuple[str, ...]:
    r""":math:`\partial v_t[e] = \sum_i A_{it}\, \partial o_i[e]`, down to the output's error."""
    products = steps.weights[:, t] * steps.d_output[:, e]  # (T,)
    return (
        f"∂v{t}[{e}], token {t}'s share: every query i passes its output's error back to value "
        f"{t} in proportion to the weight it gave it, Σ_i A[i, {t}] × ∂o_i[{e}].",
        _together(
            products,
            lambda i: (
                f"A[{i}, {t}] × ∂o{i}[{e}] = {number(float(steps.weights[i, t]))} × "
                f"{operand(float(steps.d_output[i, e]))}"
            ),
            float(steps.d_v[t, e]),
        ),
        output_error_line(steps, e),
    )


def score_lines(steps: BackwardSteps, i: int, j: int) -> tuple[str, ...]:
    r"""The softmax's backward step for score ``(i, j)``: :math:`\partial S_{ij} = c\, A_{ij}
    (\partial A_{ij} - \sum_k A_{ik} \partial A_{ik})`, and :math:`\partial A_{ij} =
    \partial o_i \cdot v_j`."""
    if steps.mask is not None and not steps.mask[i, j]:
        return (f"∂s[{i}, {j}]: key {j} is masked for query {i}, its weight is 0, so ∂s = 0.",)
    a, d_a = float(steps.weights[i, j]), float(steps.d_weights[i, j])
    average = float(steps.weights[i] @ steps.d_weights[i])
    products = steps.d_output[i] * steps.v[j]  # (dv,)
    return (
        f"∂s[{i}, {j}], through the softmax: c × A[{i}, {j}] × (∂A[{i}, {j}] − Σ_k A[{i}, k] × "
        f"∂A[{i}, k]) = {number(steps.scale)} × {number(a)} × ({number(d_a)} − {operand(average)})"
        f" = {number(float(steps.d_scores[i, j]))}. The sum is row {i}'s average ∂A, weighted by "
        "its weights: the row's weights add up to 1, so one can only grow if others shrink.",
        f"∂A[{i}, {j}] = ∂o{i} · v{j}, how the loss changes with that weight: "
        + _together(
            products,
            lambda e: (
                f"∂o{i}[{e}] × v{j}[{e}] = {number(float(steps.d_output[i, e]))} × "
                f"{operand(float(steps.v[j, e]))}"
            ),
            d_a,
        ),
    )


def _largest(products: np.ndarray) -> int:
    return int(np.argmax(np.abs(products)))


def query_lines(steps: BackwardSteps, t: int, e: int) -> tuple[str, ...]:
    r""":math:`\partial q_t[e] = \sum_j \partial S_{tj}\, k_j[e]`, then its largest term's
    score."""
    products = steps.d_scores[t] * steps.k[:, e]  # (T,)
    j = _largest(products)
    return (
        f"∂q{t}[{e}]: query {t} is in every score it makes, s[{t}, j] = q{t} · k_j, so it is "
        f"Σ_j ∂s[{t}, j] × k_j[{e}].",
        _together(
            products,
            lambda j: (
                f"∂s[{t}, {j}] × k{j}[{e}] = {number(float(steps.d_scores[t, j]))} × "
                f"{operand(float(steps.k[j, e]))}"
            ),
            float(steps.d_q[t, e]),
        ),
        *score_lines(steps, t, j),
    )


def key_lines(steps: BackwardSteps, t: int, e: int) -> tuple[str, ...]:
    r""":math:`\partial k_t[e] = \sum_i \partial S_{it}\, q_i[e]`, then its largest term's
    score."""
    products = steps.d_scores[:, t] * steps.q[:, e]  # (T,)
    i = _largest(products)
    return (
        f"∂k{t}[{e}]: key {t} is in every query's score on it, s[i, {t}] = q_i · k{t}, so it is "
        f"Σ_i ∂s[i, {t}] × q_i[{e}].",
        _together(
            products,
            lambda i: (
                f"∂s[{i}, {t}] × q{i}[{e}] = {number(float(steps.d_scores[i, t]))} × "
                f"{operand(float(steps.q[i, e]))}"
            ),
            float(steps.d_k[t, e]),
        ),
        *score_lines(steps, i, t),
    )


#: How each weight's largest term is followed back: (steps, token, column) -> lines.
FOLLOWED = {"W_Q": query_lines, "W_K": key_lines, "W_V": value_lines}


def gradient_cell(steps: BackwardSteps, name: str, m: int, e: int) -> CellComputation:
    r"""Entry ``(m, e)`` of :math:`\partial L / \partial W` for ``name`` (W_Q, W_K or W_V):
    :math:`\sum_t x_t[m]\, \partial z_t[e]` with :math:`z` the query, key or value it makes;
    its largest term is followed back to the output's error (:data:`FOLLOWED`)."""
    made = steps.made(name)  # (T, ·)
    letter = MADE[name][-1]
    products = steps.x[:, m] * made[:, e]  # (T,)
    value = float(steps.x[:, m] @ made[:, e])
    t = _largest(products)
    lines = (
        f"∂L/∂{name}[{m}, {e}], how the loss changes with this weight: it adds x_t[{m}] × "
        f"{name}[{m}, {e}] to every token's {MADE[name]}_t[{e}], so its gradient is the sum over "
        f"the {len(products)} tokens of x_t[{m}] × ∂{letter}_t[{e}] (∂z: how the loss changes "
        "with z).",
        terms(
            products,
            lambda t: (
                f"x{t}[{m}] × ∂{letter}{t}[{e}] = {number(float(steps.x[t, m]))} × "
                f"{operand(float(made[t, e]))}"
            ),
            len(products),
        )
        + f". The largest term is token {t}'s; one step back at a time:",
        *FOLLOWED[name](steps, t, e),
        f"Sum: {number(value)}.",
    )
    return CellComputation(name, m, e, value, lines)
