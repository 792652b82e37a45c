"""ui.shared.stages explains every choice with the formula and words of its registry entry."""

from __future__ import annotations

import pytest

import attention_core as ac
from ui.shared.stages import stages_for

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
