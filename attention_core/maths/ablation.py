r"""Turning heads off (ablation): a model run with some heads' outputs replaced.

.. math::
    O = b^O + \sum_h \tilde C_h\, W^O_h \qquad
    \tilde C_h = \begin{cases} R\, C_h & (\ell, h) \text{ ablated} \\ C_h & \text{else} \end{cases}
    \qquad R = 0 \;(\text{zero}) \quad\text{or}\quad R = \tfrac1T\, \mathbf 1 \mathbf 1^\top
    \;(\text{mean})

A head's *output* is its context :math:`C_h = A_h V_h` ``(T, dv)``, before the output
projection: :math:`W^O_h` are the rows ``h*dv:(h+1)*dv`` of :math:`W^O`, so zero-ablating
head h is the same as deleting those rows by hand. Replacing :math:`C_h` by
:math:`R\, C_h` (a ``(T, T)`` mix of its positions) is written once and works on NumPy
arrays and torch tensors alike (:func:`position_mix`).

One value, :class:`Ablation`, says which heads of which layers are off and how; every model
the app computes takes it as an optional argument (``None``: the model as trained, bit for
bit). :func:`check_ablation` checks one against a model's size at the edge, where a user's
choice (a grid of toggles, a link) comes in.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_ABLATED_HEADS

#: How an ablated head's output is replaced: the names of :data:`ABLATION_KINDS`.
AblationKind = Literal["zero", "mean"]


def zero_mix(length: int) -> np.ndarray:
    r""":math:`R = 0` ``(T, T)``: the head adds nothing at any position."""
    return np.zeros((length, length))


def mean_mix(length: int) -> np.ndarray:
    r""":math:`R = \tfrac1T \mathbf 1 \mathbf 1^\top` ``(T, T)``: every position gets the
    head's average output over the positions of this input."""
    return np.full((length, length), 1.0 / length)


@dataclass(frozen=True)
class AblationKindInfo:
    """One way to turn a head off: its name for people, what it means, and its mix ``R``."""

    label: str
    help: str  #: what it does, in plain words
    formula: str  #: LaTeX of the replaced output
    mix: Callable[[int], np.ndarray]  #: T -> R (T, T), the replaced output is R C_h


#: Every ablation kind, its words beside its definition (a page offers and explains these).
ABLATION_KINDS: dict[AblationKind, AblationKindInfo] = {
    "zero": AblationKindInfo(
        label="Zero",
        help=(
            "The head's output is replaced by zeros: it adds nothing to the output, as if its "
            "rows of W_O were deleted. The output projection's bias still comes through."
        ),
        formula=r"\tilde C_h = 0",
        mix=zero_mix,
    ),
    "mean": AblationKindInfo(
        label="Mean",
        help=(
            "The head's output at every position is replaced by its average over all positions "
            "of this input: the head still adds what it usually adds, but nothing that depends "
            "on which token it is at. In a decoder the average also takes in later positions."
        ),
        formula=r"\tilde C_{h,t} = \tfrac1T \textstyle\sum_{s} C_{h,s}",
        mix=mean_mix,
    ),
}


@dataclass(frozen=True)
class Ablation:
    """The heads turned off, as ``(layer, head)`` pairs counted from 0, and how.

    Layer 0 is the only layer of a single attention layer (the text page). A pure value:
    hashable, so it can be part of a cache key.
    """

    heads: frozenset[tuple[int, int]]
    kind: AblationKind = "zero"

    @classmethod
    def of(cls, heads: Iterable[tuple[int, int]], kind: AblationKind = "zero") -> Ablation:
        """``Ablation.of([(0, 1), (2, 3)], "mean")``: heads as any iterable of pairs."""
        return cls(frozenset((int(layer), int(head)) for layer, head in heads), kind)

    def heads_in(self, layer_index: int) -> list[int]:
        """The heads of layer ``layer_index`` that are off, in order (``[]``: none)."""
        return sorted(head for layer, head in self.heads if layer == layer_index)


def position_mix(ablation: Ablation, length: int) -> np.ndarray:
    """The ``(T, T)`` matrix ``R`` that replaces an ablated head's output by ``R C_h``."""
    return ABLATION_KINDS[ablation.kind].mix(length)


def ablate_heads(
    context: np.ndarray, ablation: Ablation | None, layer_index: int = 0
) -> np.ndarray:
    r""":math:`\tilde C_h = R\, C_h` for the heads of layer ``layer_index`` that are off.

    ``context (H, T, dv)`` -> ``(H, T, dv)``; the same array when no head of this layer is off
    (so an empty or absent ablation changes nothing, bit for bit), else a copy.
    """
    if ablation is None or not (heads := ablation.heads_in(layer_index)):
        return context
    mix = position_mix(ablation, context.shape[1]).astype(context.dtype)  # (T, T)
    ablated = context.copy()
    ablated[heads] = mix @ context[heads]  # (T, T) @ (k, T, dv) -> (k, T, dv)
    return ablated


def _whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _checked_pair(pair: object, n_layers: int, n_heads: int) -> tuple[int, int]:
    """``pair`` as ``(layer, head)`` if that head exists, else InputError in words."""
    if not isinstance(pair, tuple | list) or len(pair) != 2 or not all(map(_whole, pair)):
        raise InputError(
            f"A head to turn off is a layer and a head, two whole numbers such as (0, 1); "
            f"got {pair!r}."
        )
    layer, head = int(pair[0]), int(pair[1])
    if not 0 <= layer < n_layers:
        raise InputError(f"There is no layer {layer}: this model has layers 0 to {n_layers - 1}.")
    if not 0 <= head < n_heads:
        raise InputError(
            f"Layer {layer} has no head {head}: each layer has heads 0 to {n_heads - 1}."
        )
    return layer, head


def checked_ablation(heads: object, kind: object, n_layers: int, n_heads: int) -> Ablation:
    """An :class:`Ablation` of a model with ``n_layers`` layers of ``n_heads`` heads, from plain
    values (a page's toggles, a link's list of pairs), or InputError saying what to change.

    Refused: an unknown kind; more than :data:`MAX_ABLATED_HEADS` pairs (counted before any is
    read); a pair that is not two whole numbers or names a head the model does not have; every
    head of the model off (the core computes it, but then no token reads any other, which is
    not an experiment on attention).
    """
    if kind not in ABLATION_KINDS:
        raise InputError(
            f"Unknown way to turn heads off {kind!r}; choose one of: {', '.join(ABLATION_KINDS)}."
        )
    if not isinstance(heads, list | tuple | set | frozenset):
        raise InputError("Give the heads to turn off as a list of (layer, head) pairs.")
    if len(heads) > MAX_ABLATED_HEADS:
        raise InputError(
            f"At most {MAX_ABLATED_HEADS} heads can be turned off at once; "
            "give a shorter list of (layer, head) pairs."
        )
    pairs = frozenset(_checked_pair(pair, n_layers, n_heads) for pair in heads)
    if len(pairs) == n_layers * n_heads:
        raise InputError(
            f"That turns off all {len(pairs)} heads, so no token can read any other and "
            "there is nothing left to compare with: keep at least one head on."
        )
    return Ablation(pairs, kind)  # a key of ABLATION_KINDS


def check_ablation(ablation: Ablation | None, n_layers: int, n_heads: int) -> Ablation | None:
    """``ablation`` if every head it names exists in the model (see :func:`checked_ablation`);
    None stays None."""
    if ablation is None:
        return None
    if not isinstance(ablation, Ablation):
        raise InputError("Pass the heads to turn off as an Ablation (or None for none).")
    return checked_ablation(ablation.heads, ablation.kind, n_layers, n_heads)


@dataclass(frozen=True)
class OutputChange:
    r"""What turning heads off did to an output, row by row (one row per query position).

    .. math::
        \Delta = \tilde O - O \qquad \delta_t = \lVert \Delta_t \rVert_2 \qquad
        \rho_t = \delta_t / \lVert O_t \rVert_2
    """

    difference: np.ndarray  #: (T, d) the output with the heads off minus the intact output
    moved: np.ndarray  #: (T,) how far each row moved, the length of its row of the difference
    relative: np.ndarray  #: (T,) that length over the intact row's length (0 where that is 0)
    order: np.ndarray  #: (T,) row indices, the row that moved most first (ties: earlier first)


def output_change(intact: np.ndarray, ablated: np.ndarray) -> OutputChange:
    """An output with heads off against the intact one: ``(T, d), (T, d)`` -> the change."""
    difference = ablated - intact  # (T, d)
    moved = np.linalg.norm(difference, axis=-1)  # (T,)
    length = np.linalg.norm(intact, axis=-1)  # (T,)
    relative = np.divide(moved, length, out=np.zeros_like(moved), where=length > 0)
    order = np.argsort(-moved, kind="stable")  # (T,)
    return OutputChange(difference, moved, relative, order)
