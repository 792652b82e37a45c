r"""How a selected number of one layer's steps was computed, on a real model.

Every matrix the page draws is walkable (:mod:`ui.shared.walk_chart`). For every step of a
layer and head (:data:`EXPLAINED`), from the layer's input X to the context, the selected
cell is recomputed. One head's scores, scaled, masked, weights and context, and RoPE's
turned queries and keys, come from :mod:`attention_core.teaching.cell_computation` and the
arrays of the layer's own trace (:class:`~attention_core.pretrained.trace.BlockTrace`), so
each number is the matrix's entry:

* a score :math:`s_{ij} = q'_i \cdot k'_j` from the turned Q and K; for RoPE models first how
  :math:`q_i` and :math:`k_j` were turned at their positions;
* for grouped K/V heads, which K/V head supplied the keys (scores) or the values (context);
* a rollout entry: the layer's mixed attention times the rollout before it
  (:func:`rollout_lines`);
* RoPE's angle for a position and a column pair, :math:`\theta_{p,i} = p\, b^{-2i/d_k}`
  (:func:`angle_lines`), from the model's own base.

The layer's input steps (:data:`INPUTS`) read the model's weights too, through a
:class:`LayerSource`:

* layer 1's input X: the embeddings it adds up (GPT-2: token + position; the Llama family:
  the token's alone; BERT: LayerNorm of word + position + sentence); a later layer's: the
  previous layer's input plus its attention output plus its MLP output (BERT: the
  LayerNorm of what it adds) (:mod:`attention_core.pretrained.layer_input`);
* N, what attention reads: LayerNorm or RMSNorm of its row of X, with the row's mean and
  variance or mean square (:mod:`attention_core.teaching.input_cells`);
* Q, K (before RoPE) and V: N's row times the head's column of W (plus its bias), the
  head's weights sliced from the model as the forward pass used them
  (:mod:`attention_core.pretrained.projection_weights`).

The layer's trace is asked for only once a cell is selected (``steps_of``), and the weights
only then: a view that draws no stage (the model view's opened head) recomputes no layer
until then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from attention_core.pretrained import rollout
from attention_core.pretrained.layer_input import embedded, residual
from attention_core.pretrained.projection_weights import Norm, attention_norm, head_projections
from attention_core.pretrained.slim import SlimTrace
from attention_core.pretrained.trace import BlockTrace, Model, ModelInfo
from attention_core.teaching.cell_computation import (
    CellComputation,
    context_cell,
    masked_cell,
    number,
    projection_cell,
    scaled_cell,
    score_cell,
    weight_cell,
)
from attention_core.teaching.encoding_cells import angle_cell
from attention_core.teaching.input_cells import (
    embedding_cell,
    layer_norm_cell,
    post_norm_lines,
    residual_cell,
    rms_norm_cell,
)
from attention_core.teaching.model_cells import (
    kv_head_line,
    rollout_cell,
    rotated_pairs,
    rotation_lines,
)
from ui.shared.walk_chart import CellLines

#: The layer's input steps, explained from the model's weights too (a :class:`LayerSource`).
INPUTS = ("x", "normed", "q", "k", "v")
#: The stages of one head (or, X and N, of the layer) whose cells the core explains.
EXPLAINED = (*INPUTS, "q_rotated", "k_rotated", "scores", "scaled", "masked", "weights", "context")
#: The turned rows' letters, as :func:`rotation_lines` names them.
TURNED = {"q_rotated": "q", "k_rotated": "k"}


def with_lines(found: CellComputation, before: Sequence[str]) -> CellComputation:
    """``found`` with ``before`` written first (what happened to its inputs)."""
    return replace(found, lines=(*before, *found.lines))


def grouped_line(info: ModelInfo, head: int) -> tuple[str, ...]:
    """Which K/V head ``head`` reads, for grouped K/V heads; nothing when each has its own."""
    if info.n_kv_heads == info.n_heads:
        return ()
    return (kv_head_line(head, info.n_heads, info.n_kv_heads),)


def rope_lines(steps: BlockTrace, head: int, i: int, j: int) -> tuple[str, ...]:
    """How RoPE turned ``q_i`` and ``k_j`` of ``head`` (their two largest pairs); nothing
    without RoPE."""
    if steps.angles is None:
        return ()
    return (
        *rotation_lines("q", i, rotated_pairs(steps.q[head], steps.angles, i)),
        *rotation_lines("k", j, rotated_pairs(steps.k[head], steps.angles, j)),
    )


def turned_cell(steps: BlockTrace, key: str, head: int, p: int, c: int) -> CellComputation:
    r"""Entry ``(p, c)`` of ``head``'s turned Q or K (``key``): column ``c``'s pair of row
    ``p`` turned by :math:`\theta_{p, \lfloor c/2 \rfloor}` (every column is in a pair: the
    families refuse partial RoPE)."""
    assert steps.angles is not None  # only RoPE models draw the turned Q and K
    before = steps.q[head] if key == "q_rotated" else steps.k[head]  # (T, dk)
    name = TURNED[key]
    every_pair = rotated_pairs(before, steps.angles, p, shown=steps.angles.shape[1])  # in order
    pair = every_pair[c // 2]
    value = pair.after[c % 2]
    lines = (
        *rotation_lines(name, p, (pair,)),
        f"Column {c + 1} of {name}{p + 1} after RoPE: {number(value)}.",
    )
    return CellComputation(key, p, c, value, lines)


@dataclass(frozen=True)
class LayerSource:
    """What the layer's input steps are explained from besides the layer's own trace: the
    loaded ``model`` (its weights are read only when a cell is selected), the input's pass
    ``trace``, the ``layer`` drawn (0-based) and ``steps_of(layer)``, any layer's steps
    (recomputed by the page, and cached)."""

    model: Model
    trace: SlimTrace
    layer: int
    steps_of: Callable[[int], BlockTrace]


def norm_cell(
    norm: Norm, x: np.ndarray, cell: tuple[int, int], of: str = "X", stage: str = "normed"
) -> CellComputation:
    """Entry ``cell`` of ``norm`` applied to each row of ``x (T, d)``: LayerNorm or RMSNorm."""
    if norm.kind == "RMSNorm":
        return rms_norm_cell(x, norm.gain, norm.eps, *cell, stage=stage)
    assert norm.bias is not None  # LayerNorm has its β
    name = "N" if stage == "normed" else "X"
    return layer_norm_cell(x, norm.gain, norm.bias, norm.eps, *cell, of=of, stage=stage, name=name)


def input_cell(source: LayerSource, cell: tuple[int, int]) -> CellComputation:
    """Entry ``cell`` of the layer's input X: layer 1's embeddings added up (and for BERT
    normalised); a later layer's, what the layer before added to its own input."""
    model, layer, (i, d) = source.model, source.layer, cell
    if layer == 0:
        made = embedded(model, source.trace.ids, source.trace.type_ids)
        summed = embedding_cell(made.parts, i, d, made.note)
        if made.norm is None:
            return summed
        return with_lines(norm_cell(made.norm, made.summed, cell, "the sum", "x"), summed.lines)
    parts = residual(model, layer - 1, source.steps_of(layer - 1))
    if parts.norm is None:
        return residual_cell(parts.x, parts.attention, parts.mlp, layer, i, d)
    before = post_norm_lines(
        parts.x, parts.attention, parts.after, parts.mlp, parts.summed, layer, i, d
    )
    return with_lines(norm_cell(parts.norm, parts.summed, cell, "Z", "x"), before)


def normed_cell(source: LayerSource, steps: BlockTrace, cell: tuple[int, int]) -> CellComputation:
    """Entry ``cell`` of N, what attention reads: the layer's norm of its row of X."""
    norm = attention_norm(source.model, source.layer)
    if norm is None:  # BERT draws no N: its attention reads X itself
        value = float(steps.attention_input[cell])
        line = f"Attention reads the layer's input X itself: {number(value)}."
        return CellComputation("normed", *cell, value, (line,))
    return norm_cell(norm, steps.x, cell)


def reads_line(source: LayerSource, i: int) -> str:
    """What a projection reads, in words: N's row (its norm named), or BERT's X itself."""
    norm = attention_norm(source.model, source.layer)
    if norm is None:
        return (
            f"BERT's attention reads the layer's input X itself (it normalises after "
            f"attention): token {i + 1}'s row of X."
        )
    return f"Attention reads N, the layer's input after {norm.kind}: token {i + 1}'s row of N."


def projected_cell(
    source: LayerSource, steps: BlockTrace, info: ModelInfo, key: str, head: int,
    cell: tuple[int, int],
) -> CellComputation:  # fmt: skip
    r"""Entry ``cell = (i, d)`` of ``head``'s Q (before RoPE), K (before RoPE) or V (``key``):
    :math:`N_i \cdot W_{:, d} + b_d` with the head's column of the layer's W."""
    weights = head_projections(source.model, source.layer, head)
    w, bias = {
        "q": (weights.w_q, weights.b_q),
        "k": (weights.w_k, weights.b_k),
        "v": (weights.w_v, weights.b_v),
    }[key]
    found = projection_cell(steps.attention_input, w, bias, *cell, key)
    before = [reads_line(source, cell[0])]
    if key != "q":
        before.extend(grouped_line(info, head))
    if key != "v" and info.positions == "rotary":
        before.append(f"This is {key}{cell[0] + 1} before RoPE turns it by its position.")
    return with_lines(found, before)


def stage_cell(
    steps: BlockTrace, info: ModelInfo, key: str, head: int, cell: tuple[int, int],
    source: LayerSource | None = None,
) -> CellComputation:  # fmt: skip
    """How entry ``cell = (i, j)`` of ``head``'s stage ``key`` (one of :data:`EXPLAINED`) of the
    layer ``steps`` was computed, with its numbers; the :data:`INPUTS` need ``source``."""
    heads, (i, j) = steps.heads, cell
    if key in INPUTS:
        if source is None:
            raise ValueError(f"The layer's {key!r} is explained from the model: give a source.")
        if key == "x":
            return input_cell(source, cell)
        if key == "normed":
            return normed_cell(source, steps, cell)
        return projected_cell(source, steps, info, key, head, cell)
    if key in TURNED:
        return turned_cell(steps, key, head, i, j)
    if key == "scores":
        found = score_cell(steps.q_rotated[head], steps.k_rotated[head], i, j)
        return with_lines(found, (*grouped_line(info, head), *rope_lines(steps, head, i, j)))
    if key == "scaled":
        return scaled_cell(heads.scores[head], heads.scale, i, j)
    if key == "masked":
        return masked_cell(heads.scaled[head], heads.mask, i, j)
    if key == "weights":
        return weight_cell(heads.masked[head], i, j)
    found = context_cell(heads.weights[head], steps.v[head], i, j)
    return with_lines(found, grouped_line(info, head))


def cell_lines(
    steps_of: Callable[[], BlockTrace], info: ModelInfo, key: str, heads: Sequence[int],
    source: LayerSource | None = None,
) -> CellLines | None:  # fmt: skip
    """How a selected cell of stage ``key`` was computed, panel ``k`` being head ``heads[k]``
    (one head: a single matrix); None for a stage the core does not explain, or for the
    layer's input steps without a ``source`` of the model's weights."""
    if key == "angles":
        return angle_lines(info)
    unexplained = key not in EXPLAINED or (key in INPUTS and source is None)
    if unexplained or (key in TURNED and info.positions != "rotary"):
        return None
    return lambda panel, cell: stage_cell(steps_of(), info, key, heads[panel], cell, source).lines


def angle_lines(info: ModelInfo) -> CellLines | None:
    """How a selected RoPE angle ``(p, i)`` came about: the position times pair i's speed, from
    the model's base and head width (None without RoPE: the step is not drawn)."""
    base = info.rotary_base
    if base is None:
        return None
    return lambda _panel, cell: angle_cell(*cell, info.d_head, base).lines


def rollout_lines(weights: np.ndarray, layer: int) -> CellLines:
    """How a selected cell of the rollout after ``layer`` (0-based) of ``weights (L, H, T, T)``
    was computed: the layer's mixed attention times the rollout of the layers before it."""

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        mixed = rollout.residual_attention(weights[layer])  # (T, T)
        previous = rollout.attention_rollout(weights[:layer])[-1] if layer else None
        return rollout_cell(mixed, previous, layer, *cell).lines

    return lines
