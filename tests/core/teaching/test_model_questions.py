"""Questions on a pretrained model's numbers: its first next-token guess, its strongest head."""

from __future__ import annotations

import numpy as np

from attention_core.teaching.model_questions import (
    ablation_copying_question,
    next_token_question,
    strongest_head_question,
)
from attention_core.teaching.questions import check


def test_the_first_guess_is_the_answer_and_every_guess_is_offered() -> None:
    names = ["Ġcat", "Ġdog", "Ġmat", "Ġhat", "Ġrat"]
    question = next_token_question(names, np.array([0.4, 0.3, 0.2, 0.06, 0.04]), "the", 3)
    assert question.correct == ("Ġcat",)
    assert sorted(question.choices) == sorted(names)
    assert check(question, "Ġcat").correct and not check(question, "Ġdog").correct
    assert "“Ġcat” 0.400" in question.explanation
    again = next_token_question(names, np.array([0.4, 0.3, 0.2, 0.06, 0.04]), "the", 3)
    assert again == question  # the same view asks the same question


def test_guesses_within_the_tie_all_count() -> None:
    question = next_token_question(["a", "b", "c"], np.array([0.401, 0.398, 0.2]), "x", 0)
    assert question.correct == ("a", "b")


def test_the_strongest_head_is_named_by_layer_and_head() -> None:
    scores = np.zeros((3, 4))
    scores[2, 1], scores[0, 3], scores[1, 0] = 0.9, 0.5, 0.4
    question = strongest_head_question(scores, "induction")
    assert question.correct == ("layer 3 · head 2",)
    assert {"layer 3 · head 2", "layer 1 · head 4", "layer 2 · head 1"} <= set(question.choices)
    assert len(question.choices) == 4
    assert question.prompt == "Which head has the highest induction score?"
    assert check(question, "layer 3 · head 2").correct


def test_the_head_whose_ablation_drops_copying_most_is_the_answer() -> None:
    drops = (((18, 6), 6 / 39), ((17, 3), 5 / 39), ((17, 4), 0.0), ((18, 7), 3 / 39))
    question = ablation_copying_question(drops, 28 / 39, "SmolLM2-135M-Instruct")
    assert question.id == "ablation-copying/SmolLM2135MInstruct"
    assert question.correct == ("layer 19 · head 7",)
    assert sorted(question.choices) == sorted(
        ["layer 19 · head 7", "layer 18 · head 4", "layer 18 · head 5", "layer 19 · head 8"]
    )
    assert check(question, "layer 19 · head 7").correct
    assert not check(question, "layer 18 · head 4").correct
    assert "every head on 0.718" in question.explanation
    assert "layer 19 · head 7 off 0.564" in question.explanation


def test_equal_drops_all_count() -> None:
    drops = (((0, 0), 0.25), ((0, 1), 0.25), ((1, 0), 0.0))
    question = ablation_copying_question(drops, 0.5, "m")
    assert set(question.correct) == {"layer 1 · head 1", "layer 1 · head 2"}
