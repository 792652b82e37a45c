"""A number that sums up one head's weights, written out, equals the number drawn: a pooled
entry of the model view (:func:`pooled_cell`) equals :func:`pooling.pool_weights`'s, and a
copying score (:func:`stripe_cell`) equals each detector's score of
:func:`circuits.detect_heads`, its mean written against NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.pretrained import circuits, pooling
from attention_core.teaching.cell_computation import SHOWN_TERMS, number
from attention_core.teaching.pooled_cells import pooled_cell, stripe_cell


def softmax_rows(shape: tuple[int, ...], seed: int = 0, causal: bool = False) -> np.ndarray:
    """Softmax rows ``(..., T, T)`` of random scores, zero above the diagonal if ``causal``."""
    scores = np.random.default_rng(seed).normal(size=shape)
    if causal:
        scores = np.where(np.tril(np.ones(shape[-2:], dtype=bool)), scores, -np.inf)
    weights = np.exp(scores)
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize(("length", "bins"), [(40, 32), (70, 32), (9, 4)])
def test_every_pooled_entry_equals_the_pooled_weights(length: int, bins: int) -> None:
    weights = softmax_rows((length, length))
    pooled = pooling.pool_weights(weights, bins)  # (B, B)
    edges = pooling.bin_edges(length, bins)
    for a in range(pooled.shape[0]):
        for b in range(pooled.shape[1]):
            cell = pooled_cell(weights, edges, a, b)
            assert cell.value == pytest.approx(float(pooled[a, b]), rel=1e-5, abs=1e-6)
            assert cell.lines[-1].endswith(f" = {number(cell.value)}.")


def test_a_pooled_entry_is_the_mean_of_its_queries_sums_over_the_keys_run() -> None:
    weights = softmax_rows((40, 40))
    edges = pooling.bin_edges(40, 32)  # runs of one or two tokens
    a, b = 29, 2
    rows, keys = range(edges[a], edges[a + 1]), range(edges[b], edges[b + 1])
    assert (len(rows), len(keys)) == (2, 2)
    sums = [float(weights[i, list(keys)].sum()) for i in rows]
    cell = pooled_cell(weights, edges, a, b)
    assert cell.value == pytest.approx(np.mean(sums), rel=1e-6)
    assert cell.lines[0] == (
        "Run 30 of queries (tokens 37–38) on run 3 of keys (tokens 3–4): each query's weights "
        "on the keys of run 3 added up, then those sums averaged (2 queries, 2 keys), so a "
        "pooled row still adds up to 1."
    )
    assert "(1 query, 1 key)" in pooled_cell(weights, edges, 0, 1).lines[0]
    assert cell.lines[-1] == f"Mean: {number(sum(sums))} / {len(sums)} = {number(cell.value)}."


def test_a_pooled_cell_the_causal_mask_forbids_says_so() -> None:
    weights = softmax_rows((40, 40), causal=True)
    mask = np.tril(np.ones((40, 40), dtype=bool))
    edges = pooling.bin_edges(40, 32)
    (line,) = pooled_cell(weights, edges, 2, 20, mask).lines
    assert "the causal mask forbids every one of these pairs" in line
    assert line.endswith(": 0.000.")
    allowed = pooled_cell(weights, edges, 20, 2, mask)
    assert allowed.value == pytest.approx(float(pooling.pool_weights(weights, 32)[20, 2]), rel=1e-5)


@pytest.mark.parametrize("bos", [False, True])
def test_every_copying_score_equals_its_detectors_score(bos: bool) -> None:
    n = 12
    weights = softmax_rows((2, 3, 2 * n + bos, 2 * n + bos), seed=3, causal=True)
    scores = circuits.detect_heads(weights, n)  # name -> (L, H)
    for name, detector in circuits.DETECTORS.items():
        rows, offset = detector.stripe(weights.shape[-1], n)
        for layer in range(2):
            for head in range(3):
                cell = stripe_cell(
                    weights[layer, head], rows, offset, detector.label, detector.looks_at,
                    (layer, head),
                )  # fmt: skip
                assert cell.value == pytest.approx(float(scores[name][layer, head]), rel=1e-5)
                read = [float(weights[layer, head, i, i + offset]) for i in rows]
                assert cell.value == pytest.approx(np.mean(read), rel=1e-6)
                assert cell.lines[-1] == (
                    f"Mean: {number(sum(read))} / {len(read)} = {number(cell.value)}."
                )


def test_an_induction_score_names_its_head_rows_and_key() -> None:
    n = 10
    weights = softmax_rows((1, 1, 2 * n + 1, 2 * n + 1), causal=True)  # a BOS first
    detector = circuits.DETECTORS["induction"]
    rows, offset = detector.stripe(2 * n + 1, n)
    cell = stripe_cell(weights[0, 0], rows, offset, "induction", detector.looks_at, (4, 1))
    assert cell.lines[0] == (
        "The induction score of layer 5 · head 2: on the test input, the mean of 10 of its "
        "weights, each of queries 12 to 21 on the token after the same token in the first copy "
        "(key = query − 9)."
    )
    assert cell.lines[1].startswith(f"The weights (the {SHOWN_TERMS} largest first): A[")
    assert "the other 2 terms together" in cell.lines[1]
