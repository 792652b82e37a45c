"""A lesson step's view is checked as its page checks a link, naming the step and the setting."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import attention_core as ac
from attention_core.teaching.attention_questions import walkthrough_questions
from attention_core.teaching.lesson import Lesson, LessonStep, lesson_file, read_lesson
from attention_core.teaching.lesson_schema import PAGE_QUESTIONS
from attention_core.teaching.position_questions import position_questions
from ui.lessons.views import PAGE_LINKS, check_lesson, check_view
from ui.shared.worked_examples import DAYS

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = {path.stem for path in (ROOT / "views").glob("*.py")} - {"__init__"}


def kinds(questions: object) -> set[str]:
    return {question.id.split("/", 1)[0] for question in questions}  # type: ignore[attr-defined]


def refusal(page: str, params: dict[str, str], number: int = 1) -> str:
    with pytest.raises(ac.InputError) as caught:
        check_view(number, page, params)
    return str(caught.value)


def test_every_page_but_the_class_and_the_lessons_can_be_a_step() -> None:
    assert set(PAGE_QUESTIONS) == SCRIPTS - {"classroom", "lessons"}
    assert set(PAGE_LINKS) == set(PAGE_QUESTIONS)


def test_the_question_kinds_are_those_the_pages_generators_ask() -> None:
    assert kinds(walkthrough_questions(list(DAYS))) == set(PAGE_QUESTIONS["walkthrough"])
    encoding = np.sin(np.arange(48, dtype=np.float64).reshape(6, 8) / 5)  # (T=6, d=8)
    labels = [f"pos {index}" for index in range(6)]
    assert kinds(position_questions(encoding, "sinusoidal", labels)) == set(
        PAGE_QUESTIONS["positional_encoding"]
    )


@pytest.mark.parametrize("page", sorted(PAGE_QUESTIONS))
def test_each_page_s_default_view_is_accepted(page: str) -> None:
    check_view(1, page, {})


def test_a_link_as_the_text_page_writes_it_is_accepted() -> None:
    params = {"d_model": "64", "heads": "4", "mask": "sliding", "window": "5", "text": "a b c"}
    check_view(1, "text", params)
    check_view(1, "time_series", {"ts_heads": "4", "ts_mask": "causal"})
    check_view(1, "learning", {"learn_task": "sort"})


def test_a_value_the_page_s_widget_does_not_offer_is_refused_by_name() -> None:
    assert refusal("text", {"d_model": "64", "heads": "3"}, number=4) == (
        "Step 4: the text page refuses heads=3; open the view, set it there and copy its link."
    )
    assert refusal("text", {"mask": "diagonal"}).startswith("Step 1: the text page refuses mask=")
    assert refusal("text", {"heads": "2.0"}).startswith("Step 1: the text page refuses heads=2.0")


def test_a_setting_the_page_does_not_bind_is_refused() -> None:
    assert refusal("text", {"ts_heads": "2"}, number=2) == (
        'Step 2: the text page has no setting "ts_heads" in its link.'
    )
    assert refusal("positional_encoding", {"heads": "2"}).startswith(
        'Step 1: the positional_encoding page has no setting "heads"'
    )


def test_a_number_beyond_float_range_is_refused_as_every_link_s() -> None:
    assert refusal("walkthrough", {"wt_grad_seed": "1e400"}) == (
        "Step 1: the walkthrough page refuses wt_grad_seed=1e400."
    )


def test_a_learning_task_that_does_not_exist_is_refused() -> None:
    assert refusal("learning", {"learn_task": "chess"}).startswith(
        "Step 1: the learning page refuses learn_task=chess"
    )


def test_a_lesson_is_checked_step_by_step() -> None:
    good = LessonStep("text", (("heads", "1"),), "One head", "")
    bad = LessonStep("text", (("seed", "-1"),), "A bad seed", "")
    check_lesson(Lesson("Fine", (good, good)))
    with pytest.raises(ac.InputError, match=r"^Step 2: the text page refuses seed=-1"):
        check_lesson(Lesson("Not fine", (good, bad)))


def test_the_documented_example_file_is_a_lesson_written_as_the_app_writes_it() -> None:
    doc = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    example = doc.split("```json\n", 1)[1].split("```", 1)[0].encode("utf-8")
    lesson = read_lesson(example)
    check_lesson(lesson)
    assert lesson_file(lesson) == example
    assert [step.question for step in lesson.steps] == ["weight", "most-alike", None]
