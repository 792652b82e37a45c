"""An attention rollout entry written out (:func:`rollout_cell`) equals the rollout's own entry
(:func:`attention_core.pretrained.rollout.attention_rollout`), at the first layer and later."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.pretrained.rollout import attention_rollout, residual_attention
from attention_core.teaching.cell_computation import SHOWN_TERMS
from attention_core.teaching.model_cells import rollout_cell


def random_weights(n_layers: int, n_heads: int, length: int, seed: int = 0) -> np.ndarray:
    """Softmax rows ``(L, H, T, T)`` of random scores."""
    scores = np.random.default_rng(seed).normal(size=(n_layers, n_heads, length, length))
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("length", [3, 12])
def test_every_entry_of_every_layer_equals_the_rollout(length: int) -> None:
    weights = random_weights(4, 3, length)
    rolled = attention_rollout(weights)  # (L, T, T)
    for layer in range(4):
        mixed = residual_attention(weights[layer])
        previous = rolled[layer - 1] if layer else None
        for i in range(length):
            for j in range(length):
                cell = rollout_cell(mixed, previous, layer, i, j)
                assert cell.value == pytest.approx(rolled[layer, i, j], rel=1e-12, abs=1e-15)
                assert cell.lines[-1].endswith(f"{rolled[layer, i, j]:.3f}.".replace("-", "−"))


def test_the_first_layer_names_the_residual_on_the_diagonal_only() -> None:
    weights = random_weights(1, 2, 4)
    mixed = residual_attention(weights[0])
    assert "the token itself" in rollout_cell(mixed, None, 0, 2, 2).text
    assert "the token itself" not in rollout_cell(mixed, None, 0, 2, 1).text


def test_a_long_row_writes_only_the_largest_terms_and_sums_the_rest() -> None:
    weights = random_weights(2, 2, 20)
    rolled = attention_rollout(weights)
    cell = rollout_cell(residual_attention(weights[1]), rolled[0], 1, 5, 3)
    assert f"(the {SHOWN_TERMS} largest first)" in cell.lines[0]
    assert f"the other {20 - SHOWN_TERMS} terms together" in cell.lines[1]
