"""The walkthrough's step 1: a soft dictionary lookup (attention_core.teaching.soft_lookup)."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.teaching import soft_lookup


def test_soft_lookup_weights_sum_to_one_and_pick_the_closest_key() -> None:
    trace = soft_lookup.soft_lookup(
        [-1.0, 2.0], ac.examples.LOOKUP_KEY_VECTORS, ac.examples.LOOKUP_VALUE_VECTORS
    )
    np.testing.assert_allclose(trace.scores, [-2.0, 5.0, -3.0])
    assert trace.weights.sum() == pytest.approx(1.0)
    assert ac.examples.LOOKUP_VALUES[trace.best] == "playwright"
    np.testing.assert_allclose(trace.output, trace.weights)  # one-hot values


def test_soft_lookup_refuses_a_query_of_the_wrong_length() -> None:
    with pytest.raises(ac.InputError, match="same length"):
        soft_lookup.soft_lookup(
            [1.0, 2.0, 3.0], ac.examples.LOOKUP_KEY_VECTORS, ac.examples.LOOKUP_VALUE_VECTORS
        )
