"""The "Check yourself" questions: computed from the view, checked by a pure function."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as ac
from attention_core.teaching import word_order
from attention_core.teaching.attention_questions import (
    FLATTER,
    SAME,
    SHARPER,
    doubling_question,
    mask_question,
    softmax_question,
    strongest_key_question,
    text_questions,
    walkthrough_questions,
    weight_question,
)
from attention_core.teaching.head_questions import previous_token_head_question
from attention_core.teaching.position_questions import most_alike_question, position_questions
from attention_core.teaching.questions import CHOICE, Question, check

LABELS = ["the", "cat", "sat", "on"]


def test_strongest_key_is_the_largest_weight_and_explains_with_the_numbers() -> None:
    row = np.array([0.1, 0.6, 0.2, 0.1])
    question = strongest_key_question(row, "it", LABELS, "head 2", query=0)
    assert question is not None
    assert question.prompt == "Which key does “it” attend to most in head 2?"
    assert question.correct == ("cat",)
    assert check(question, "cat").correct
    verdict = check(question, "sat")
    assert not verdict.correct
    assert verdict.headline == "Not quite."
    assert "The answer is cat." in verdict.explanation and "0.600" in verdict.explanation


def test_tied_keys_each_count_as_correct() -> None:
    row = np.array([0.4, 0.4, 0.2, 0.0])
    question = strongest_key_question(row, "it", LABELS, "head 1", query=0)
    assert question is not None
    assert question.correct == ("the", "cat")
    assert check(question, "the").correct and check(question, "cat").correct
    assert not check(question, "sat").correct
    assert "tied" in question.explanation


def test_fully_masked_row_asks_no_strongest_key_and_its_weight_is_zero() -> None:
    row = np.zeros(4)
    assert strongest_key_question(row, "it", LABELS, "head 1", query=0) is None
    question = weight_question(row, "it", LABELS, "head 1", query=0)
    assert question.value == 0.0
    assert "masked" in question.explanation
    assert check(question, 0.0).correct


def test_weight_is_checked_to_within_a_hundredth() -> None:
    row = np.array([0.25, 0.25, 0.5, 0.0])
    question = weight_question(row, "it", LABELS, "head 1", query=0)
    assert question.tolerance == 0.01
    assert check(question, question.value + 0.009).correct
    assert not check(question, question.value + 0.02).correct
    assert not check(question, None).correct
    assert not check(question, math.nan).correct


def test_the_same_view_gives_the_same_questions() -> None:
    tokens = ac.tokenize("the cat sat on the mat").tokens
    run = ac.run_text_attention(tokens, ac.AttentionConfig(d_model=8, n_heads=2))
    labels = list(ac.tokenize("the cat sat on the mat").labels)
    first = text_questions(run, labels, tokens, labels, head=1, query=2)
    assert first == text_questions(run, labels, tokens, labels, head=1, query=2)
    assert len({question.id for question in first}) == len(first)


def test_doubling_is_asked_only_when_the_weights_on_screen_are_softmax_weights() -> None:
    tokens = ac.tokenize("the cat sat on the mat").tokens
    labels = list(ac.tokenize("the cat sat on the mat").labels)

    def kinds(normaliser: str) -> set[str]:
        config = ac.AttentionConfig(d_model=8, n_heads=2, normaliser=normaliser)
        run = ac.run_text_attention(tokens, config)
        return {q.id.split("/")[0] for q in text_questions(run, labels, tokens, labels, 0, 2)}

    assert "doubling" in kinds("softmax")
    assert "doubling" not in kinds("hardmax")


def test_one_token_view_asks_questions_it_can_answer() -> None:
    run = ac.run_text_attention(("it",), ac.AttentionConfig(d_model=8, n_heads=2))
    questions = text_questions(run, ["it"], ("it",), ["it"], head=0, query=0)
    by_kind = {question.id.split("/")[0]: question for question in questions}
    assert by_kind["strongest-key"].correct == ("it",)
    assert by_kind["weight"].value == 1.0
    assert by_kind["doubling"].correct == (SAME,)  # one key keeps weight 1
    assert set(by_kind["mask"].correct) >= {"none", "causal", "sliding", "padding"}


def test_softmax_of_one_two_three() -> None:
    question = softmax_question(np.array([1.0, 2.0, 3.0]), 2, "softmax")
    assert question.prompt == "What is softmax([1, 2, 3]) at position 3 (to ±0.01)?"
    assert abs(question.value - math.exp(3) / (math.exp(1) + math.exp(2) + math.exp(3))) < 1e-12
    assert "0.665" in question.explanation


def test_doubling_is_computed_sharper_or_the_same() -> None:
    assert doubling_question(np.array([1.0, 2.0, -np.inf]), "it", "head 1", 0).correct == (SHARPER,)
    assert doubling_question(np.array([1.0, 1.0, 1.0]), "it", "head 1", 0).correct == (SAME,)
    all_masked = np.full(3, -np.inf)
    assert doubling_question(all_masked, "it", "head 1", 0).correct == (SAME,)
    assert FLATTER not in doubling_question(np.array([0.0, 5.0]), "it", "head 1", 0).correct


def test_mask_question_finds_every_mask_with_this_pattern() -> None:
    no_padding = np.zeros(4, dtype=bool)
    causal = ac.causal_mask(4, 4)
    question = mask_question(causal, 4, no_padding, window=3)
    assert question is not None and question.correct == ("causal",)
    assert "1, 2, 3, 4" in question.explanation
    question = mask_question(causal, 4, no_padding, window=4)  # a window of 4 sees everything back
    assert question is not None and question.correct == ("causal", "sliding")
    question = mask_question(None, 4, no_padding, window=3)
    assert question is not None and question.correct == ("none", "padding")
    drawn = np.eye(4, dtype=bool)[::-1]
    assert mask_question(drawn, 4, no_padding, window=3) is None


def test_tokens_stay_text_in_prompts() -> None:
    labels = ["**bold**", "<b>x</b>"]
    question = strongest_key_question(np.array([0.7, 0.3]), "[link](x)", labels, "head 1", 0)
    assert question is not None
    assert "“[link](x)”" in question.prompt
    assert question.correct == ("**bold**",)


weight_rows = arrays(np.float64, st.integers(1, 8), elements=st.floats(0.0, 1.0))


@given(weight_rows, st.integers(0, 7))
def test_the_right_answer_always_checks_and_a_wrong_choice_never(row, query) -> None:
    head = "head 1"
    labels = [f"k{j}" for j in range(row.size)]
    with np.errstate(divide="ignore"):
        scores = np.log(row)  # a zero weight is a masked score, −∞
    asked: list[Question | None] = [
        strongest_key_question(row, "q", labels, head, query),
        weight_question(row, "q", labels, head, query),
        doubling_question(scores, "q", head, query),
    ]
    for question in (q for q in asked if q is not None):
        if question.kind == CHOICE:
            assert set(question.correct) <= set(question.choices)
            for choice in question.choices:
                assert check(question, choice).correct == (choice in question.correct)
        else:
            assert check(question, question.value).correct
            assert not check(question, question.value + 2 * question.tolerance + 0.001).correct


def test_previous_token_head_is_the_head_with_most_weight_on_the_previous_token() -> None:
    previous = np.array([[0.1, 0.2], [0.9, 0.3], [0.05, 0.4]])  # (L=3, H=2)
    question = previous_token_head_question(previous, "the cat")
    assert question is not None
    assert question.correct == ("layer 2 · head 1",)
    assert len(question.choices) == 4 and "layer 2 · head 1" in question.choices
    assert "0.900" in question.explanation
    assert question == previous_token_head_question(previous, "the cat")


def test_one_token_text_asks_no_previous_token_question() -> None:
    assert previous_token_head_question(np.full((2, 2), np.nan), "x") is None


def test_walkthrough_asks_the_notes_numbers() -> None:
    days = [f"day {index}" for index in range(1, 6)]
    questions = {question.id: question for question in walkthrough_questions(days)}
    strongest = questions["strongest-key/thefivedayexample/query3"]
    assert strongest.correct == ("day 4",)  # 0.669 of day 4's row
    assert "0.669" in strongest.explanation
    assert "day 5" in strongest.explanation and "0.000" in strongest.explanation  # the future
    assert questions["mask/5x5"].correct == ("causal",)
    assert abs(questions["softmax/1-2-3"].value - 0.6652409557748218) < 1e-12
    assert questions["doubling/thefivedayexample/query3"].correct == (SHARPER,)


def test_most_alike_position_counts_both_neighbours_of_a_sine_encoding() -> None:
    encoding = word_order.position_matrix("sinusoidal", 8, 16)
    labels = [f"pos {index}" for index in range(8)]
    question = most_alike_question(encoding, "sinusoidal", labels)
    assert question is not None
    position = int(question.id.rsplit("/p", 1)[1])
    neighbours = {f"pos {r}" for r in (position - 1, position + 1) if 0 <= r < 8}
    assert set(question.correct) == neighbours  # G depends only on the distance
    assert question == most_alike_question(encoding, "sinusoidal", labels)


def test_no_encoding_and_one_position_ask_no_most_alike_question() -> None:
    assert most_alike_question(np.zeros((5, 4)), "none", [f"pos {i}" for i in range(5)]) is None
    assert most_alike_question(np.ones((1, 4)), "learned", ["pos 0"]) is None
    (value,) = position_questions(np.zeros((1, 2)), "none", ["pos 0"])
    assert value.value == 0.0 and check(value, 0.004).correct


def test_cross_attention_with_padding_keys_asks_the_padding_mask() -> None:
    queries, keys = ac.tokenize("the cat sat"), ac.tokenize("le chat <pad> <pad>")
    config = ac.AttentionConfig(d_model=8, n_heads=2, mask="padding")
    run = ac.run_text_attention(queries.tokens, config, keys.tokens)
    asked = text_questions(run, list(queries.labels), keys.tokens, list(keys.labels), 0, 0)
    (mask,) = [question for question in asked if question.id.startswith("mask/")]
    assert mask.id == "mask/3x4" and mask.correct == ("padding",)
    assert "2, 2, 2" in mask.explanation  # each query sees "le" and "chat"
