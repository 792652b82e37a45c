"""Clark et al.'s head measures and attention rollout on hand-made matrices with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core.pretrained import head_measures, pooling, rollout

TOKENS = ("[CLS]", "hi", ",", "you", "[SEP]")


def test_a_head_that_looks_at_the_previous_token() -> None:
    weights = np.zeros((5, 5))
    weights[0, 0] = 1.0  # [CLS] has no previous token: it looks at itself
    for row in range(1, 5):
        weights[row, row - 1] = 1.0
    measures = head_measures.head_measures(weights, TOKENS)
    assert measures["previous"] == 1.0
    assert measures["next"] == 0.0
    assert measures["self"] == pytest.approx(1 / 5)
    assert measures["cls"] == pytest.approx(2 / 5)  # rows 0 and 1
    assert measures["sep"] == 0.0
    assert measures["punctuation"] == pytest.approx(1 / 5)  # row 3 looks at ","
    assert measures["entropy"] == 0.0


def test_uniform_attention_has_entropy_log_t() -> None:
    weights = np.full((5, 5), 0.2)
    measures = head_measures.head_measures(weights, TOKENS)
    assert measures["entropy"] == pytest.approx(math.log(5))
    assert measures["entropy_ratio"] == pytest.approx(1.0)
    assert measures["cls"] == pytest.approx(0.2)
    assert measures["sep"] == pytest.approx(0.2)
    assert measures["self"] == pytest.approx(0.2)
    assert measures["previous"] == pytest.approx(0.2)


def test_all_attention_on_sep_and_half_entropy() -> None:
    weights = np.zeros((5, 5))
    weights[:, 4] = 1.0
    weights[0] = [0.5, 0, 0, 0, 0.5]  # entropy log 2 in one row of five
    measures = head_measures.head_measures(weights, TOKENS)
    assert measures["sep"] == pytest.approx(0.9)
    assert measures["cls"] == pytest.approx(0.1)
    assert measures["entropy"] == pytest.approx(math.log(2) / 5)
    assert measures["next"] == pytest.approx(0.25)  # row 3 -> 4 only


def test_measures_keep_the_layer_and_head_axes() -> None:
    weights = np.broadcast_to(np.eye(5), (6, 12, 5, 5))
    measures = head_measures.head_measures(weights, TOKENS)
    assert measures["self"].shape == (6, 12)
    assert np.all(measures["self"] == 1.0)


@pytest.mark.parametrize(
    ("token", "expected"), [(",", True), ("...", True), ("'", True), ("a", False), ("[SEP]", False)]
)
def test_punctuation_is_tokens_of_only_punctuation(token: str, expected: bool) -> None:
    assert head_measures.is_punctuation(token) is expected


def test_rollout_of_identity_attention_is_the_identity() -> None:
    weights = np.broadcast_to(np.eye(3), (4, 2, 3, 3))
    np.testing.assert_allclose(
        rollout.attention_rollout(weights), np.broadcast_to(np.eye(3), (4, 3, 3))
    )


def test_rollout_adds_the_residual_and_chains_layers() -> None:
    to_first = np.zeros((1, 2, 2))
    to_first[0, :, 0] = 1.0  # both tokens attend to token 0
    weights = np.stack([to_first, to_first])  # (L=2, H=1, 2, 2)
    one = np.array([[1.0, 0.0], [0.5, 0.5]])  # (A + I) / 2
    result = rollout.attention_rollout(weights)
    np.testing.assert_allclose(result[0], one)
    np.testing.assert_allclose(result[1], one @ one)
    np.testing.assert_allclose(result[1], [[1.0, 0.0], [0.75, 0.25]])
    np.testing.assert_allclose(result.sum(axis=-1), 1.0)


def test_pooling_keeps_rows_summing_to_one_and_sums_keys() -> None:
    weights = np.zeros((4, 4))
    weights[:, 0] = 0.5
    weights[:, 3] = 0.5
    pooled = pooling.pool_weights(weights, 2)
    np.testing.assert_allclose(pooled, [[0.5, 0.5], [0.5, 0.5]])
    eye = pooling.pool_weights(np.eye(4), 2)
    np.testing.assert_allclose(eye, [[1.0, 0.0], [0.0, 1.0]])
    assert pooling.pool_weights(np.eye(3), 8).shape == (3, 3)
    assert pooling.bin_labels(("a", "b", "c", "d"), 2) == ["1–2: a … b", "3–4: c … d"]
