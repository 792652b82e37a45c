"""Questions on a pretrained model's numbers: its first next-token guess, its strongest head."""

from __future__ import annotations

import numpy as np

from attention_core.teaching.model_questions import next_token_question, strongest_head_question
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
