"""The time-series page's choices are registry entries: each explains itself, each is dispatched."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.boundary.registry import Registry


@pytest.mark.parametrize("table", [ac.SERIES_SCALINGS, ac.FEATURE_ACTIVATIONS])
def test_every_time_series_choice_has_a_formula_and_plain_words(table: Registry) -> None:
    for name, option in table.items():
        assert option.formula and option.words, name


def test_a_scaling_registered_in_one_place_is_used_by_the_scaler() -> None:
    def halve(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(values.shape[1]), np.full(values.shape[1], 2.0)

    ac.SERIES_SCALINGS.register("halve", ac.Option("halve", "Divide by 2.", halve))
    try:
        scaler = ac.fit_scaler(np.array([[2.0], [4.0]]), "halve")
        assert scaler.transform(np.array([[2.0], [4.0]])).tolist() == [[1.0], [2.0]]
    finally:
        ac.SERIES_SCALINGS.unregister("halve")


def test_an_unknown_activation_names_the_registered_ones() -> None:
    with pytest.raises(ac.InputError, match="choose one of: relu, tanh, identity, gelu"):
        ac.init_feature_embedding(2, 4, "swish")
