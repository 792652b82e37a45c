"""How one cell was computed: each stage's recomputed number equals the run's own entry.

Every stage of the text page's attention (scores, scaled, masked, weights, context), for
every scaling, mask and normaliser, on the longest sentence the page takes; and the words
hold the numbers a student needs to redo the computation by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.boundary.limits import MAX_TOKENS
from attention_core.maths.attention import project, softmax
from attention_core.teaching import word_order
from attention_core.teaching.cell_computation import (
    SHOWN_TERMS,
    context_cell,
    masked_cell,
    number,
    projection_cell,
    recorded_weight_cell,
    scaled_cell,
    score_cell,
    similarity_cell,
    weight_cell,
)

SENTENCE = tuple(["the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"])
LONGEST = tuple(f"w{index}" for index in range(MAX_TOKENS))


def every_cell_matches(run: ac.AttentionRun, head: int) -> None:
    """Each stage's cells, recomputed, equal the trace's entries (to 1e-9 relative)."""
    trace, config = run.trace, run.config
    q, k, v = trace.q[head], trace.k[head], trace.v[head]
    rows, columns = trace.scores.shape[1:]
    for i in range(rows):
        for j in range(columns):
            for cell, entry in (
                (score_cell(q, k, i, j), trace.scores[head, i, j]),
                (scaled_cell(trace.scores[head], config.scale, i, j), trace.scaled[head, i, j]),
                (masked_cell(trace.scaled[head], run.mask, i, j), trace.masked[head, i, j]),
                (
                    weight_cell(trace.masked[head], i, j, config.normaliser),
                    trace.weights[head, i, j],
                ),
            ):
                assert cell.value == pytest.approx(float(entry), rel=1e-9, abs=1e-12), cell
        for d in range(v.shape[1]):
            assert context_cell(trace.weights[head], v, i, d).value == pytest.approx(
                float(trace.context[head, i, d]), rel=1e-9, abs=1e-12
            )


@pytest.mark.parametrize("mask", ["none", "causal", "sliding"])
@pytest.mark.parametrize("scaling", ["sqrt_dk", "none", "temperature"])
@pytest.mark.parametrize("normaliser", ["softmax", "hardmax"])
def test_every_cell_of_every_stage_equals_the_runs_entry(
    mask: str, scaling: str, normaliser: str
) -> None:
    config = ac.AttentionConfig(d_model=16, n_heads=2, mask=mask, scaling=scaling,
                                temperature=2.0, normaliser=normaliser)  # fmt: skip
    run = ac.run_text_attention(SENTENCE, config)
    for head in range(config.n_heads):
        every_cell_matches(run, head)


def test_the_longest_sentence_and_widest_heads_match_and_write_only_the_largest_terms() -> None:
    config = ac.AttentionConfig(d_model=128, n_heads=2, mask="causal")
    run = ac.run_text_attention(LONGEST, config)
    every_cell_matches(run, 1)
    q, k = run.trace.q[1], run.trace.k[1]
    cell = score_cell(q, k, len(LONGEST) - 1, 3)
    products = q[-1] * k[3]
    largest = int(np.argmax(np.abs(products)))
    assert (
        f"q[{largest + 1}] × k[{largest + 1}] = {number(float(products[largest]))}" in cell.lines[1]
    )
    assert cell.lines[1].count(" × ") == SHOWN_TERMS
    assert f"the other {len(products) - SHOWN_TERMS} terms together" in cell.lines[1]


def test_a_masked_cell_says_so_and_its_weight_is_zero() -> None:
    run = ac.run_text_attention(SENTENCE, ac.AttentionConfig(mask="causal"))
    masked = masked_cell(run.trace.scaled[0], run.mask, 0, 5)
    assert masked.value == -math.inf and "forbids" in masked.text and "−∞" in masked.text
    weight = weight_cell(run.trace.masked[0], 0, 5)
    assert weight.value == 0.0 and "masked" in weight.text


def test_a_softmax_weight_is_written_with_the_rows_maximum_and_sum() -> None:
    masked = np.array([[1.0, 2.0, -np.inf, 0.5]])
    cell = weight_cell(masked, 0, 0)
    total = 1 + math.exp(-1) + math.exp(-1.5)
    assert cell.value == pytest.approx(math.exp(-1) / total)
    assert "m = 2.000" in cell.text and f"{total:.3f}" in cell.text
    assert "3 unmasked keys" in cell.text
    assert cell.lines[-1] == f"Weight: 0.368 / {total:.3f} = {math.exp(-1) / total:.3f}."


def test_the_scale_is_named_as_one_over_a_root() -> None:
    cell = scaled_cell(np.array([[2.0]]), 1 / math.sqrt(16), 0, 0)
    assert cell.text == "Scaled score: the score 2.000 times the scale 0.250 = 1/√16 = 0.500."


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    rows=st.integers(1, 6),
    columns=st.integers(1, 6),
    width=st.integers(1, 12),
)
def test_random_heads_recompute_exactly(seed: int, rows: int, columns: int, width: int) -> None:
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(n, width)) for n in (rows, columns, columns))
    mask = rng.random((rows, columns)) < 0.7
    scores = q @ k.T
    scaled = scores / math.sqrt(width)
    masked = np.where(mask, scaled, -np.inf)
    weights = softmax(masked.copy())
    for i in range(rows):
        for j in range(columns):
            assert score_cell(q, k, i, j).value == pytest.approx(scores[i, j])
            assert masked_cell(scaled, mask, i, j).value == masked[i, j]
            assert weight_cell(masked, i, j).value == pytest.approx(weights[i, j], abs=1e-12)
        for d in range(width):
            assert context_cell(weights, v, i, d).value == pytest.approx((weights @ v)[i, d])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    rows=st.integers(1, 9),
    d_in=st.integers(1, 40),
    width=st.integers(1, 12),
    biased=st.booleans(),
)
def test_a_projection_entry_is_recomputed_from_its_products_and_bias(
    seed: int, rows: int, d_in: int, width: int, biased: bool
) -> None:
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=(rows, d_in)), rng.normal(size=(d_in, 2 * width))
    bias = rng.normal(size=2 * width) if biased else None
    q = project(x, w, 2, bias)  # (2, rows, width): the core's own projection
    head, i, d = 1, rows - 1, width - 1
    columns = slice(width, 2 * width)
    cell = projection_cell(x, w[:, columns], None if bias is None else bias[columns], i, d, "q")
    assert cell.value == pytest.approx(float(q[head, i, d]), rel=1e-9, abs=1e-12)
    assert any(line.startswith("Plus the bias") for line in cell.lines) == biased
    assert len(cell.lines[1].split("; ")) == min(d_in, SHOWN_TERMS) + (d_in > SHOWN_TERMS)


@pytest.mark.parametrize("kind", ["sinusoidal", "learned", "rotary", "none"])
def test_every_similarity_of_two_positions_equals_the_encodings_dot_product(kind: str) -> None:
    encoding = word_order.position_matrix(kind, 12, 20)
    similarity = word_order.position_similarity(encoding)  # (12, 12)
    for p in range(12):
        for r in range(12):
            assert similarity_cell(encoding, p, r).value == pytest.approx(similarity[p, r])


def test_a_similarity_names_positions_from_zero_and_writes_only_the_largest_products() -> None:
    encoding = word_order.position_matrix("sinusoidal", 8, 16)
    cell = similarity_cell(encoding, 3, 5)
    products = encoding[3] * encoding[5]
    assert cell.lines[0].startswith("Similarity of positions 3 and 5: the dot product P3 · P5")
    largest = int(np.argmax(np.abs(products)))
    assert f"P3[{largest}] × P5[{largest}] = {number(float(products[largest]))}" in cell.lines[1]
    assert cell.lines[1].count(" × ") == SHOWN_TERMS
    assert cell.lines[-1] == f"Sum: {number(float(encoding[3] @ encoding[5]))}."


def test_a_recorded_weight_gives_its_place_and_its_rows_sum() -> None:
    weights = softmax(np.random.default_rng(3).normal(size=(5, 7)))
    cell = recorded_weight_cell(weights, 2, 4, "at step 40")
    assert cell.value == float(weights[2, 4])
    place = int(np.sum(weights[2] > weights[2, 4])) + 1
    assert (
        cell.lines[0] == f"Weight of query 3 on key 5 at step 40: number {place} of 7 in its row."
    )
    assert "add up to 1.000" in cell.lines[1]
    assert cell.lines[-1] == f"Weight: {number(float(weights[2, 4]))}."
