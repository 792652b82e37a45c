r"""How one entry of the heads' combined output was computed, written out with its own numbers.

The heads' context vectors ``context (H, T, dv)`` become one output row per token
(:data:`attention_core.boundary.options.COMBINATIONS`); for entry ``(t, c)``:

* **side by side** :math:`[C_1 \cdots C_H]_{tc} = (C_h)_{td}` with
  :math:`h, d = \lfloor c / d_v \rfloor, c \bmod d_v` (:func:`concat_cell`);
* **concat + W^O** :math:`O_{tc} = \sum_m [C_1 \cdots C_H]_{tm} W^O_{mc} (+ b^O_c)`: its
  :math:`H d_v` products, the largest first (:func:`projected_cell`);
* **mean** :math:`O_{tc} = \frac1H \sum_h (C_h)_{tc}` (:func:`mean_cell`);
* **max** :math:`O_{tc} = \max_h (C_h)_{tc}` (:func:`max_cell`);
* **learned weights** :math:`O_{tc} = \sum_h w_h (C_h)_{tc}` (:func:`weighted_cell`);
* a head turned off, its context replaced by 0 or by its average over the positions
  (:func:`replaced_cell`), and the **change** an ablation made, :math:`\tilde O - O`
  (:func:`change_cell`).

Heads count from 1 (the panels say "head 1"), and so do a head's context dimensions (as
:func:`~attention_core.teaching.cell_computation.context_cell` counts them); the columns of
the heads side by side and of the output count from 0, as the matrices' axes label them.
Each returns a :class:`CellComputation` whose ``value`` equals the matrix's entry
(tests/core/teaching/test_head_cells.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_core.teaching.cell_computation import (
    CellComputation,
    number,
    products_lines,
    terms,
)


def head_of(column: int, head_width: int) -> tuple[int, int]:
    """Column ``column`` of the heads side by side is dimension ``d`` of head ``h`` (both
    0-based): ``(h, d)``."""
    return divmod(column, head_width)


def concat_cell(context: np.ndarray, t: int, c: int) -> CellComputation:
    r"""Entry ``(t, c)`` of :math:`[C_1 \cdots C_H]` ``(T, H dv)``: head ``c // dv``'s
    feature ``c mod dv``, from ``context (H, T, dv)``."""
    head, feature = head_of(c, context.shape[2])
    value = float(context[head, t, feature])
    line = (
        f"Column {c} of the heads side by side is dimension {feature + 1} of head {head + 1}'s "
        f"context (each head hands over {context.shape[2]}): {number(value)}."
    )
    return CellComputation("concat", t, c, value, (line,))


def projected_cell(
    context: np.ndarray, w_o: np.ndarray, b_o: np.ndarray | None, t: int, c: int
) -> CellComputation:
    r"""Output ``(t, c)`` of concat + W^O: ``context (H, T, dv)``, ``w_o (H dv, d_out)``,
    ``b_o (d_out,)`` or None: :math:`\sum_m [C_1 \cdots C_H]_{tm} W^O_{mc} + b^O_c`."""
    width = context.shape[2]
    row = context[:, t, :].reshape(-1)  # (H*dv,) head 1's features, then head 2's, ...
    products = row * w_o[:, c]  # (H*dv,)
    value = float(row @ w_o[:, c]) + (float(b_o[c]) if b_o is not None else 0.0)

    def name(m: int) -> str:
        return f"concat[{m}] (head {m // width + 1}) × W^O[{m}, {c}]"

    lines = [
        *products_lines(
            products,
            f"Output column {c}: this token's {context.shape[0]} heads side by side "
            f"({len(row)} numbers) times column {c} of W^O, the sum of {len(row)} products "
            f"concat[m] × W^O[m, {c}], column m of the heads side by side times row m of W^O",
            name,
        )
    ]
    if b_o is not None:
        lines.append(f"Plus the bias b^O[{c}] = {number(float(b_o[c]))}.")
    lines.append(f"Sum: {number(value)}.")
    return CellComputation("output", t, c, value, tuple(lines))


def _heads_listed(entries: np.ndarray) -> str:
    """``head 1 0.123, head 2 −0.456, …``: one entry per head."""
    return ", ".join(f"head {head + 1} {number(float(x))}" for head, x in enumerate(entries))


def mean_cell(context: np.ndarray, t: int, c: int) -> CellComputation:
    r"""Output ``(t, c)`` of the mean of the heads, ``context (H, T, dv)``:
    :math:`\frac1H \sum_h (C_h)_{tc}`."""
    entries = context[:, t, c]  # (H,)
    value = float(context.mean(axis=0)[t, c])
    lines = (
        f"Mean of the heads, column {c}: each head's context in this column ("
        f"{_heads_listed(entries)}).",
        f"Their sum {number(float(entries.sum()))} divided by {len(entries)} heads: "
        f"{number(value)}.",
    )
    return CellComputation("output", t, c, value, lines)


def max_cell(context: np.ndarray, t: int, c: int) -> CellComputation:
    r"""Output ``(t, c)`` of the heads' largest entry, ``context (H, T, dv)``:
    :math:`\max_h (C_h)_{tc}`."""
    entries = context[:, t, c]  # (H,)
    best = int(np.argmax(entries))
    value = float(entries[best])
    lines = (
        f"Largest of the heads, column {c}: each head's context in this column ("
        f"{_heads_listed(entries)}).",
        f"Head {best + 1}'s is the largest; which head it came from is not kept: {number(value)}.",
    )
    return CellComputation("output", t, c, value, lines)


def weighted_cell(context: np.ndarray, head_weights: np.ndarray, t: int, c: int) -> CellComputation:
    r"""Output ``(t, c)`` of the heads added with one weight each, ``context (H, T, dv)``,
    ``head_weights (H,)``: :math:`\sum_h w_h (C_h)_{tc}`."""
    entries = context[:, t, c]  # (H,)
    products = head_weights * entries
    value = float(np.tensordot(head_weights, context, axes=1)[t, c])
    lines = (
        f"Heads added with one weight each, column {c}: each head's weight w_h times its "
        f"context in this column, summed over {len(entries)} heads.",
        terms(
            products,
            lambda h: (
                f"w{h + 1} × head {h + 1} = {number(float(head_weights[h]))} × "
                f"{number(float(entries[h]))}"
            ),
            len(products),
        )
        + ".",
        f"Sum: {number(value)}.",
    )
    return CellComputation("output", t, c, value, lines)


def combined_cell(
    strategy: str,
    context: np.ndarray,
    t: int,
    c: int,
    *,
    w_o: np.ndarray | None = None,
    b_o: np.ndarray | None = None,
    head_weights: np.ndarray | None = None,
) -> CellComputation:
    """Output ``(t, c)`` of the heads ``context (H, T, dv)`` combined by ``strategy`` (a name
    of :data:`attention_core.boundary.options.COMBINATIONS`); concat needs ``w_o``, learned
    ``head_weights``."""
    if strategy == "concat":
        if w_o is None:
            return concat_cell(context, t, c)
        return projected_cell(context, w_o, b_o, t, c)
    if strategy == "mean":
        return mean_cell(context, t, c)
    if strategy == "max":
        return max_cell(context, t, c)
    if head_weights is None:
        raise ValueError("the learned combination needs one weight per head")
    return weighted_cell(context, head_weights, t, c)


def replaced_cell(context: np.ndarray, kind: str, t: int, d: int, head: int) -> CellComputation:
    r"""Dimension ``d`` (0-based) of token ``t`` of ``head`` turned off (``kind`` zero or mean),
    ``context (T, dv)`` what it computed: 0, or :math:`\frac1T \sum_s (C_h)_{sd}`."""
    if kind == "zero":
        line = f"Head {head + 1} is off: its context is replaced by zeros here. Value: 0.000."
        return CellComputation("off", t, d, 0.0, (line,))
    column = context[:, d]  # (T,)
    value = float(np.full(len(column), 1.0 / len(column)) @ column)  # as R = 1/T 11ᵀ mixes it
    lines = (
        f"Head {head + 1} is off: at every token its context is replaced by its average over "
        f"the {len(column)} tokens, here of dimension {d + 1} "
        f"({', '.join(number(x) for x in column)}).",
        f"Their sum {number(float(column.sum()))} divided by {len(column)}: {number(value)}.",
    )
    return CellComputation("off", t, d, value, lines)


def change_cell(after: np.ndarray, before: np.ndarray, t: int, c: int) -> CellComputation:
    r"""Entry ``(t, c)`` of :math:`\tilde O - O`: ``after`` (heads off) minus ``before``
    (intact), both ``(T, d)``."""
    value = float(after[t, c] - before[t, c])
    line = (
        f"Change in column {c}: the output with the heads off, {number(float(after[t, c]))}, "
        f"minus the intact output, {number(float(before[t, c]))} = {number(value)}."
    )
    return CellComputation("change", t, c, value, (line,))


def heads_off_line(heads: Sequence[int], kind: str) -> str:
    """Which heads were off (0-based ``heads``) and what the combination got from them."""
    named = ", ".join(f"head {head + 1}" for head in heads)
    what = "zeros" if kind == "zero" else "their averages over the tokens"
    return f"Turned off: {named}. The combination got {what} from them instead of their contexts."


def accuracy_drop_cell(
    intact: float, accuracy: np.ndarray, asked: int, layer: int, head: int, how: str
) -> CellComputation:
    r"""Entry ``(layer, head)`` of a sweep's accuracy lost, :math:`\mathrm{acc}(\varnothing) -
    \mathrm{acc}(\{(l, h)\})`: ``intact`` the held-out accuracy with every head on,
    ``accuracy (L, H)`` with each head alone off (``how``: zeroed, say), of ``asked`` answers."""
    off = float(accuracy[layer, head])
    value = intact - off
    better = " Below 0: the model does better without this head." if value < 0 else ""
    lines = (
        f"Layer {layer + 1}, head {head + 1} alone off ({how}): the model gets "
        f"{round(off * asked)} of the {asked} held-out answers right ({off:.1%}), against "
        f"{round(intact * asked)} ({intact:.1%}) with every head on.{better}",
        f"Accuracy lost: {number(intact)} − {number(off)} = {number(value)}.",
    )
    return CellComputation("drop", layer, head, value, lines)
