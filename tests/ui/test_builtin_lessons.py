"""The built-in lessons: each reads, passes the pages' link checks, and is a course of steps.

Every step says what to try or asks a question (the question of a kind its page asks);
"Attention from scratch" has 15–25 steps and visits every page of the course's arc. The walk
through every step of every lesson, opened in AppTest, is tests/views/test_builtin_lesson_walk.py.
"""

from __future__ import annotations

import pytest

import attention_core as ac
from attention_core.boundary import limits
from attention_core.teaching.builtin_lessons import (
    BUILTIN_NAMES,
    COURSE,
    LESSONS_DIR,
    builtin_lesson,
)
from attention_core.teaching.lesson import lesson_file, read_lesson
from attention_core.teaching.lesson_link import lesson_link, read_lesson_link
from attention_core.teaching.lesson_schema import PAGE_QUESTIONS
from attention_core.teaching.lesson_text import text_blocks
from ui.lessons.views import check_lesson

#: Each lesson's title and how many steps it may have.
EXPECTED = {
    "from-scratch": ("Attention from scratch", range(15, 26)),
    "real-decoder": ("Inside a real decoder", range(5, 11)),
    "time-series": ("Attention over time (time series)", range(5, 9)),
}
#: The pages "Attention from scratch" must visit, in the order the course notes' arc meets them.
ARC = ("walkthrough", "text", "positional_encoding", "time_series", "learning", "pretrained")
MAX_STEP_SENTENCES = 6  #: a step's text is a few plain lines (a short list counts as one)


def test_the_built_in_lessons_are_the_files_in_the_lessons_folder() -> None:
    assert sorted(path.stem for path in LESSONS_DIR.glob("*.json")) == sorted(BUILTIN_NAMES)
    assert set(EXPECTED) == set(BUILTIN_NAMES)
    assert COURSE == "from-scratch"


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_each_reads_and_every_step_s_view_is_one_its_page_accepts(name: str) -> None:
    lesson = builtin_lesson(name)
    check_lesson(lesson)
    title, steps = EXPECTED[name]
    assert lesson.title == title
    assert lesson.description
    assert len(lesson.steps) in steps
    # The file is exactly as the app writes it: a teacher who exports it gets the same file.
    assert lesson_file(lesson) == (LESSONS_DIR / f"{name}.json").read_bytes()
    assert read_lesson(lesson_file(lesson)) == lesson


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_every_step_asks_a_question_of_its_page_or_says_what_to_try(name: str) -> None:
    for number, step in enumerate(builtin_lesson(name).steps, start=1):
        where = f"{name} step {number}"
        assert step.question is not None or step.prompt is not None, where
        if step.question is not None:
            assert step.question in PAGE_QUESTIONS[step.page], where
        assert step.text and text_blocks(step.text), where
        # Short and plain: a few sentences, never near the format's limit.
        assert step.text.count(". ") + 1 <= MAX_STEP_SENTENCES, where
        assert len(step.text) <= limits.MAX_STEP_TEXT_CHARS // 4, where


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_a_step_asks_a_question_wherever_its_view_asks_one(name: str) -> None:
    """Where the page asks questions, a step asks one: the walkthrough asks only on its
    masking step (4), so its other steps only say what to try."""
    for number, step in enumerate(builtin_lesson(name).steps, start=1):
        asks = PAGE_QUESTIONS[step.page] and not (
            step.page == "walkthrough" and step.params.get("step") != "4"
        )
        assert (step.question is not None) == bool(asks), f"{name} step {number}"


def test_the_course_visits_every_page_of_the_arc_in_order() -> None:
    pages = [step.page for step in builtin_lesson(COURSE).steps]
    assert set(pages) == set(ARC)
    first_visits = list(dict.fromkeys(pages))
    assert first_visits == [page for page in ARC if page in first_visits]
    # Its ideas, by the views that show them: masks, positional encodings, the tasks.
    views = [(step.page, step.params) for step in builtin_lesson(COURSE).steps]
    masks = {params.get("mask") for page, params in views if page == "text"}
    assert {"causal", "padding", "sliding"} <= masks
    kinds = {params.get("pe_kind") for page, params in views if page == "positional_encoding"}
    assert {"sinusoidal", "learned", "rotary"} <= kinds
    assert ("walkthrough", {"step": "4"}) in views  # the multiplicative-mask pitfall
    assert any(page == "learning" and params["learn_task"] == "induction" for page, params in views)
    assert any(
        page == "pretrained" and params.get("model") == "SmolLM2-135M-Instruct"
        for page, params in views
    )


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_a_short_lesson_travels_as_a_link_and_the_course_by_its_name(name: str) -> None:
    """A link carries a lesson of at most MAX_LESSON_LINK_CHARS packed. The course is longer:
    a built-in lesson is linked by its name (``lesson=from-scratch``), which every server
    running the app knows, so its size never limits it."""
    lesson = builtin_lesson(name)
    if name == COURSE:
        with pytest.raises(ac.InputError, match="too long for a link"):
            lesson_link(lesson)
        return
    packed = lesson_link(lesson)
    assert len(packed) <= limits.MAX_LESSON_LINK_CHARS
    assert read_lesson_link(packed) == lesson
