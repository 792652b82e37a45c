r"""How a number that sums up one head's weights was computed, written out with its own numbers.

Beside :mod:`attention_core.teaching.cell_computation` (one entry of one head's step): the
numbers an overview draws for a whole head, each from that head's weights ``A (T, T)``:

* a **pooled** entry of the model view (:func:`pooled_cell`), when a long input's tokens are
  pooled into runs :math:`I_a` of neighbouring tokens:
  :math:`P_{ab} = \frac{1}{|I_a|} \sum_{i \in I_a} \sum_{j \in I_b} A_{ij}`, each query's
  weights on run b added up, then the run's queries averaged;
* a **copying score** (:func:`stripe_cell`): the mean of the weights on one stripe of the
  matrix, :math:`\operatorname{mean}_{i \in R} A_{i,\, i + o}` (previous token: every row on
  the key before it; duplicate and induction: the second copy's rows on the first copy).

Where the runs or the stripe come from is the caller's (the model view's bins, a detector's
rows and offset); each function returns a
:class:`~attention_core.teaching.cell_computation.CellComputation` whose ``value`` equals the
drawn entry (tests/core/teaching/test_pooled_cells.py).
"""

from __future__ import annotations

import numpy as np

from attention_core.teaching.cell_computation import SHOWN_TERMS, CellComputation, number, terms
from attention_core.teaching.head_questions import head_name


def _tokens(start: int, stop: int) -> str:
    """Tokens ``start .. stop - 1`` (0-based) counted from 1, in words."""
    return f"token {start + 1}" if stop - start == 1 else f"tokens {start + 1}–{stop}"


def _count(count: int, one: str, many: str = "") -> str:
    """``"1 query"``, ``"2 queries"``: ``count`` things, named ``one`` or ``many`` (``one`` + s)."""
    return f"{count} {one if count == 1 else many or one + 's'}"


def _largest(count: int) -> str:
    """Which terms are written: the :data:`SHOWN_TERMS` largest of ``count``, or (all) none."""
    return f" (the {SHOWN_TERMS} largest first)" if count > SHOWN_TERMS else ""


def pooled_cell(
    weights: np.ndarray, edges: np.ndarray, a: int, b: int, mask: np.ndarray | None = None
) -> CellComputation:
    r"""Entry ``(a, b)`` of one head's pooled weights: ``weights (T, T)``, ``edges (B + 1,)``
    the runs' bounds (run a is tokens ``edges[a] .. edges[a + 1] - 1``), ``mask (T, T)``
    True where a query may look at a key (None: everywhere).

    :math:`P_{ab} = \frac{1}{|I_a|} \sum_{i \in I_a} s_i` with each query's share of run b,
    :math:`s_i = \sum_{j \in I_b} A_{ij}`.
    """
    rows = np.arange(edges[a], edges[a + 1])  # (|I_a|,) the queries of run a
    keys = slice(int(edges[b]), int(edges[b + 1]))  # the keys of run b
    shares = weights[rows, keys].sum(axis=-1)  # (|I_a|,)
    value = float(shares.mean())
    where = (
        f"Run {a + 1} of queries ({_tokens(int(edges[a]), int(edges[a + 1]))}) on run {b + 1} of "
        f"keys ({_tokens(keys.start, keys.stop)})"
    )
    if mask is not None and not mask[rows, keys].any():
        line = f"{where}: the causal mask forbids every one of these pairs, so it is 0: "
        return CellComputation("pooled", a, b, value, (f"{line}{number(value)}.",))
    counts = f"{_count(len(rows), 'query', 'queries')}, {_count(keys.stop - keys.start, 'key')}"
    lines = (
        f"{where}: each query's weights on the keys of run {b + 1} added up, then those sums "
        f"averaged ({counts}), so a pooled row still adds up to 1.",
        f"Each query's sum{_largest(len(rows))}: "
        + terms(shares, lambda k: f"query {int(rows[k]) + 1}", SHOWN_TERMS)
        + ".",
        f"Mean: {number(float(shares.sum()))} / {len(rows)} = {number(value)}.",
    )
    return CellComputation("pooled", a, b, value, lines)


def stripe_cell(
    weights: np.ndarray, rows: np.ndarray, offset: int, label: str, looks_at: str,
    head: tuple[int, int],
) -> CellComputation:  # fmt: skip
    r"""The copying score ``label`` ("induction") of ``head`` (layer, head; 0-based) from its
    ``weights (T, T)`` on the test input: the mean of :math:`A_{i,\, i + o}` over the query
    ``rows (R,)`` with ``offset`` :math:`o`, each row's key being ``looks_at`` in words."""
    read = weights[rows, rows + offset]  # (R,)
    value = float(read.mean())
    first, last = int(rows[0]) + 1, int(rows[-1]) + 1
    lines = (
        f"The {label} score of {head_name(*head)}: on the test input, the mean of {len(rows)} "
        f"of its weights, each of queries {first} to {last} on {looks_at} "
        f"(key = query − {-offset}).",
        f"The weights{_largest(len(rows))}: "
        + terms(read, lambda k: f"A[{int(rows[k]) + 1}, {int(rows[k]) + offset + 1}]", SHOWN_TERMS)
        + ".",
        f"Mean: {number(float(read.sum()))} / {len(rows)} = {number(value)}.",
    )
    return CellComputation(label, *head, value, lines)
