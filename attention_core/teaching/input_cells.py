r"""How a layer's input and what its attention reads were computed, one number at a time.

Beside :mod:`attention_core.teaching.cell_computation` (whose :func:`projection_cell`
explains Q, K and V from what attention reads), for a real model's layer, ``T`` tokens of
width ``d``, entry ``(i, d)``:

* **LayerNorm** :math:`N_{id} = \frac{x_{id} - \mu_i}{\sqrt{\sigma_i^2 + \epsilon}}\,
  \gamma_d + \beta_d`, with the row's mean :math:`\mu_i` and variance :math:`\sigma_i^2`
  (:func:`layer_norm_cell`);
* **RMSNorm** :math:`N_{id} = \frac{x_{id}}{\sqrt{\overline{x_i^2} + \epsilon}}\, w_d`, with
  the row's mean square (:func:`rms_norm_cell`);
* layer 1's input, the **embeddings** added up: each token's row of each table
  (:func:`embedding_cell`);
* a later layer's input, the **residual stream**: the previous layer's input plus what its
  attention and its feed-forward block added (:func:`residual_cell`), or for BERT, which
  normalises after each block, the sum that its LayerNorm then normalises
  (:func:`post_norm_lines`).

Each value is computed in float32 in the order the forward pass computes it, so it is the
matrix's own entry (tests/core/teaching/test_input_cells.py checks them against NumPy).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_core.teaching.cell_computation import CellComputation, number

#: One embedding table's part of layer 1's input: (name, table, each token's row named, the
#: rows ``(T, d)``), as :class:`attention_core.pretrained.layer_input.TablePart` holds it.
Part = tuple[str, str, Sequence[str], np.ndarray]


def layer_norm_cell(
    x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float, i: int, d: int,
    of: str = "X", stage: str = "normed", name: str = "N",
) -> CellComputation:  # fmt: skip
    r"""Entry ``(i, d)`` of :math:`\mathrm{LN}(x)`, ``x (T, d)``, ``gain`` γ and ``bias`` β
    ``(d,)``: :math:`(x_{id} - \mu_i) / \sqrt{\sigma_i^2 + \epsilon} \cdot \gamma_d + \beta_d`.
    ``of`` names the matrix normalised, ``name`` the result, in the words."""
    row = x[i]  # (d,)
    mean = row.mean()
    centred = row - mean  # (d,)
    variance = np.square(centred).mean()
    root = np.sqrt(variance + eps)
    standard = centred[d] / root
    value = float(standard * gain[d] + bias[d])
    lines = (
        f"LayerNorm of token {i + 1}'s row of {of} ({len(row)} numbers): subtract the row's "
        "mean, divide by its standard deviation, then scale by γ and shift by β, each "
        "dimension by its own γ and β.",
        f"Row {i + 1}'s mean μ = {number(float(mean))}; its variance σ², the mean of "
        f"(x − μ)², = {number(float(variance))}; √(σ² + ε) = {number(float(root))} "
        f"(ε = {eps:g}).",
        f"Dimension {d + 1}: (x[{d + 1}] − μ) / √(σ² + ε) = ({number(float(row[d]))} − "
        f"{number(float(mean))}) / {number(float(root))} = {number(float(standard))}.",
        f"{name}[{i + 1}, {d + 1}] = {number(float(standard))} × γ[{d + 1}] + β[{d + 1}] = "
        f"{number(float(standard))} × {number(float(gain[d]))} + {number(float(bias[d]))} = "
        f"{number(value)}.",
    )
    return CellComputation(stage, i, d, value, lines)


def rms_norm_cell(
    x: np.ndarray, gain: np.ndarray, eps: float, i: int, d: int, stage: str = "normed"
) -> CellComputation:
    r"""Entry ``(i, d)`` of :math:`\mathrm{RMSNorm}(x)`, ``x (T, d)``, ``gain`` w ``(d,)``:
    :math:`x_{id} / \sqrt{\tfrac1d \sum_m x_{im}^2 + \epsilon} \cdot w_d`."""
    row = x[i]  # (d,)
    mean_square = np.square(row).mean()
    root = np.sqrt(mean_square + eps)
    value = float(row[d] / root * gain[d])
    lines = (
        f"RMSNorm of token {i + 1}'s row of X ({len(row)} numbers): divide by the row's root "
        "mean square, then scale by the learned weight w. Unlike LayerNorm, no mean is "
        "subtracted and nothing is added.",
        f"The mean of the row's {len(row)} squares x² = {number(float(mean_square))}; "
        f"√(mean + ε) = {number(float(root))} (ε = {eps:g}).",
        f"N[{i + 1}, {d + 1}] = x[{d + 1}] / √(mean + ε) × w[{d + 1}] = "
        f"{number(float(row[d]))} / {number(float(root))} × {number(float(gain[d]))} = "
        f"{number(value)}.",
    )
    return CellComputation(stage, i, d, value, lines)


def _sum(values: Sequence[np.floating]) -> float:
    """``values`` added left to right in their own precision (as the pass added the arrays)."""
    total = values[0]
    for value in values[1:]:
        total = total + value
    return float(total)


def embedding_cell(parts: Sequence[Part], i: int, d: int, note: str = "") -> CellComputation:
    r"""Entry ``(i, d)`` of layer 1's input: the sum of token ``i``'s row of each table,
    :math:`X_{id} = \sum_t E_t[r_{t,i}, d]`, ``parts`` in the order the family adds them;
    ``note``: what the family leaves out (RoPE models add no position), in words."""
    values = [part[3][i, d] for part in parts]  # one number of each table
    value = _sum(values)
    names = [f"its {name}" for name, *_ in parts]
    named = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    head = f"Layer 1's input, token {i + 1}, dimension {d + 1}: "
    head += f"the sum of {named}." if len(parts) > 1 else f"just {named}."
    rows = [
        f"Its {name}, the {table}'s row for {rows[i]}, dimension {d + 1}: {number(float(v))}."
        for (name, table, rows, _), v in zip(parts, values, strict=True)
    ]
    lines = [head + (f" {note}" if note else ""), *rows]
    if len(parts) > 1:
        lines.append(f"Sum: {' + '.join(number(float(v)) for v in values)} = {number(value)}.")
    return CellComputation("x", i, d, value, tuple(lines))


def residual_cell(
    x: np.ndarray, attention: np.ndarray, mlp: np.ndarray, layer: int, i: int, d: int
) -> CellComputation:
    r"""Entry ``(i, d)`` of the input of layer ``layer`` (0-based, ≥ 1), a pre-norm decoder's
    residual stream: :math:`X'_{id} = (X_{id} + A_{id}) + M_{id}` from the layer before's
    input ``x``, attention output ``attention`` and MLP output ``mlp``, each ``(T, d)``."""
    parts = (x[i, d], attention[i, d], mlp[i, d])
    value = _sum(parts)
    lines = (
        f"Layer {layer + 1}'s input is layer {layer}'s input plus what layer {layer}'s "
        "attention and its MLP (feed-forward block) added to it: the residual stream.",
        f"Token {i + 1}, dimension {d + 1}: layer {layer}'s input {number(float(parts[0]))}; "
        f"its attention output (every head's context mixed by W^O) {number(float(parts[1]))}; "
        f"its MLP output {number(float(parts[2]))}.",
        f"Sum: {' + '.join(number(float(p)) for p in parts)} = {number(value)}.",
    )
    return CellComputation("x", i, d, value, lines)


def post_norm_lines(
    x: np.ndarray, attention: np.ndarray, after: np.ndarray, ffn: np.ndarray,
    summed: np.ndarray, layer: int, i: int, d: int,
) -> tuple[str, ...]:  # fmt: skip
    r"""What a post-norm encoder (BERT) sums into the input of layer ``layer`` (0-based, ≥ 1),
    entry ``(i, d)``: from the layer before's input ``x`` and attention output ``attention``,
    ``after`` :math:`Y = \mathrm{LN}_1(X + A)`, then ``summed`` :math:`Z = Y + \mathrm{FFN}(Y)`
    with ``ffn`` its feed-forward output; each ``(T, d)``. The LayerNorm of ``summed`` that
    gives the entry follows (:func:`layer_norm_cell`)."""
    return (
        f"Layer {layer + 1}'s input is layer {layer}'s output. BERT normalises after each "
        f"block: layer {layer}'s input plus its attention output, normalised by LayerNorm, "
        f"gives Y; Y plus its feed-forward output, normalised again, gives the output.",
        f"Token {i + 1}, dimension {d + 1}: layer {layer}'s input {number(float(x[i, d]))} "
        f"plus its attention output {number(float(attention[i, d]))}, normalised over the "
        f"row: Y = {number(float(after[i, d]))}.",
        f"Y plus the feed-forward output {number(float(ffn[i, d]))}: "
        f"Z = {number(float(summed[i, d]))}.",
    )
