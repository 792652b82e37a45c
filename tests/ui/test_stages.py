"""ui.shared.stages explains every choice with the formula and words of its registry entry."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from ui.shared.stages import stages_for
from ui.text.stage_arrays import stage_code

FIELDS = {
    "positional": (ac.POSITIONAL_ENCODINGS, "p"),
    "scaling": (ac.SCALINGS, "scaled"),
    "mask": (ac.MASKS, "masked"),
    "normaliser": (ac.NORMALISERS, "weights"),
    "combine": (ac.COMBINATIONS, "output"),
}


@pytest.mark.parametrize(
    ("field", "name"),
    [(field, name) for field, (table, _) in FIELDS.items() for name in table],
)
def test_every_option_has_a_formula_and_words_on_its_stage(field: str, name: str) -> None:
    stage = stages_for(ac.AttentionConfig(**{field: name}))[FIELDS[field][1]]
    assert stage.formula and stage.explanation


def test_option_tables_give_every_choice_a_label_help_and_function() -> None:
    for table in (ac.EMBEDDINGS, *(table for table, _ in FIELDS.values())):
        for option in table.values():
            assert option.label and option.help and callable(option.build)
            assert all(callable(function) for function in option.shown)


@pytest.mark.parametrize(("field", "name"), [("mask", "sliding"), ("combine", "mean")])
def test_a_stage_shows_the_formula_and_words_of_the_chosen_entry(field: str, name: str) -> None:
    table, key = FIELDS[field]
    stage = stages_for(ac.AttentionConfig(**{field: name}))[key]
    assert (stage.formula, stage.explanation) == (table[name].formula, table[name].words)


def test_an_entry_that_rotates_queries_and_keys_rewrites_their_formulas_and_code() -> None:
    def halve(x: np.ndarray, base: float = 10_000.0) -> np.ndarray:
        return x / 2

    spin = ac.Option(
        "spin",
        "Rotate by position, slowly.",
        ac.POSITIONAL_ENCODINGS["rotary"].build,
        rotary_base=100.0,
        formulas={"q": r"Q_h = \mathrm{spin}(\tilde X W^Q_h)"},
        more_code={"q": (halve,)},
    )
    ac.POSITIONAL_ENCODINGS.register("spin", spin)
    try:
        config = ac.AttentionConfig(positional="spin")
        steps = stages_for(config)
        assert steps["q"].formula == r"Q_h = \mathrm{spin}(\tilde X W^Q_h)"
        assert steps["k"].formula == stages_for(ac.AttentionConfig())["k"].formula
        assert stage_code("q", config)[-1] is halve
        assert halve not in stage_code("k", config)
    finally:
        ac.POSITIONAL_ENCODINGS.unregister("spin")


def test_rotary_is_told_by_its_entry_rotary_base() -> None:
    assert ac.POSITIONAL_ENCODINGS["rotary"].rotary_base == 10_000.0
    assert all(
        ac.POSITIONAL_ENCODINGS[name].rotary_base is None
        for name in ac.POSITIONAL_ENCODINGS
        if name != "rotary"
    )


def test_the_head_combinations_say_which_stages_and_captions_they_add() -> None:
    assert ac.COMBINATIONS["concat"].shows == ("concat",)
    assert [name for name in ac.COMBINATIONS if ac.COMBINATIONS[name].caption] == ["learned"]
    projections = ac.init_projections(np.random.default_rng(0), 4, 2, 2, 2, 4)
    caption = ac.COMBINATIONS["learned"].caption(projections)
    w1, w2 = projections.head_weights
    assert caption == f"Head weights: w1 = {w1:.3f}, w2 = {w2:.3f}"
