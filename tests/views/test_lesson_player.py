"""Playing a lesson, with AppTest: the lesson bar, its link, its steps' views and questions.

A lesson is played from the home page's "Start the course", from a link that names a
built-in lesson or carries one whole (``lesson=``), or from the session alone when it is
too long for a link. Each test builds its lesson in the open.
"""

from __future__ import annotations

import base64
import random
import string
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attention_core.boundary.errors import InputError
from attention_core.teaching.builtin_lessons import COURSE, builtin_lesson
from attention_core.teaching.lesson import Lesson, LessonStep
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link
from hosting.classroom.views import LISTS_PARAM, pack_lists
from ui.lessons import player
from ui.lessons.editor import view_query
from ui.lessons.player import STEP_PARAM
from ui.lessons.views import check_lesson
from ui.shared.check_yourself import STEP_QUESTION
from ui.shared.safe import escape_markdown, unescape_markdown

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SENTENCE = "the cat sat on the mat"
TWO_STEPS = Lesson(
    "Masks and positions",
    (
        LessonStep(
            "text",
            (("text", SENTENCE), ("mask", "causal")),
            "A causal mask",
            "Each row is a **query**.",
            prompt="Switch the mask to none.",
            question="mask",
        ),
        LessonStep(
            "positional_encoding",
            (("pe_kind", "rotary"),),
            "Rotary",
            "Turns.",
            question="most-alike",
        ),
    ),
    "Two steps.",
)


def packed(data: bytes) -> str:
    """``data`` as a link carries a lesson: zlib, then base64url without padding."""
    return base64.urlsafe_b64encode(zlib.compress(data)).decode("ascii").rstrip("=")


def new_session(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(query)
    return at


def bar_lines(at: AppTest) -> list[str]:
    return [markdown.value for markdown in at.markdown[:2]]


def no_trouble(at: AppTest) -> None:
    assert not at.exception, [error.value for error in at.exception]


def test_home_starts_the_course_first_and_lists_every_built_in_lesson() -> None:
    at = new_session().run()
    no_trouble(at)
    assert at.button[0].key == "lesson_start_course"  # the first control a newcomer meets
    course = builtin_lesson(COURSE)
    at.button(key="lesson_start_course").click().run()
    no_trouble(at)
    assert dict(at.query_params).items() >= {LESSON_PARAM: COURSE, STEP_PARAM: "1"}.items()
    assert bar_lines(at) == [
        f"**{course.title}** · Step 1 of {len(course.steps)}",
        f"**{escape_markdown(course.steps[0].title)}**",
    ]


def test_a_link_resumes_at_its_step_and_back_next_and_jump_move_through_the_lesson() -> None:
    at = new_session(**{LESSON_PARAM: lesson_link(TWO_STEPS), STEP_PARAM: "2"}).run()
    no_trouble(at)
    assert bar_lines(at)[0] == "**Masks and positions** · Step 2 of 2"
    assert at.query_params["pe_kind"] == "rotary"  # the step's view, opened from the link
    assert at.button(key="lesson_next").disabled
    at.button(key="lesson_back").click().run()
    no_trouble(at)
    assert bar_lines(at)[0] == "**Masks and positions** · Step 1 of 2"
    assert at.query_params[STEP_PARAM] == "1" and at.query_params["mask"] == "causal"
    assert at.selectbox(key="mask").value == "causal"
    at.selectbox(key="lesson_jump").set_value(2).run()
    assert bar_lines(at)[0] == "**Masks and positions** · Step 2 of 2"
    assert at.query_params["pe_kind"] == "rotary"
    at.run()  # a rerun stays on the step (the list's old choice opens nothing)
    assert bar_lines(at)[0] == "**Masks and positions** · Step 2 of 2"


def test_the_steps_question_comes_first_marked_and_computed_from_its_view() -> None:
    at = new_session(**{LESSON_PARAM: lesson_link(TWO_STEPS), STEP_PARAM: "1"}).run()
    no_trouble(at)
    labels = [m.value for m in at.markdown if m.value.startswith("**Question")]
    assert labels[0] == f"**Question 1** · {STEP_QUESTION}"
    assert all(STEP_QUESTION not in label for label in labels[1:])
    # The text page asks the mask question of a causal pattern: its answer is that mask.
    prompt = at.markdown[at.markdown.values.index(labels[0]) + 1].value
    assert "mask" in prompt.lower()


def test_back_to_this_steps_view_undoes_a_students_exploring() -> None:
    at = new_session(**{LESSON_PARAM: lesson_link(TWO_STEPS), STEP_PARAM: "1"}).run()
    at.selectbox(key="mask").set_value("none").run()
    assert at.selectbox(key="mask").value == "none"
    at.button(key="lesson_restore").click().run()
    no_trouble(at)
    assert at.selectbox(key="mask").value == "causal"
    assert at.query_params["mask"] == "causal"


def test_a_page_switch_through_the_menu_keeps_the_lesson_and_offers_the_way_back() -> None:
    at = new_session(**{LESSON_PARAM: COURSE, STEP_PARAM: "1"}).run()
    at.switch_page("views/learning.py").run()
    no_trouble(at)
    assert at.query_params[LESSON_PARAM] == COURSE
    assert "another page" in " ".join(caption.value for caption in at.caption)
    first = builtin_lesson(COURSE).steps[0].page
    at.button(key="lesson_restore").click().run()
    assert at.session_state[player.PLAYING_KEY].step.page == first


def test_closing_the_lesson_leaves_the_page_as_it_is() -> None:
    at = new_session(**{LESSON_PARAM: lesson_link(TWO_STEPS), STEP_PARAM: "1"}).run()
    at.button(key="lesson_close").click().run()
    no_trouble(at)
    assert LESSON_PARAM not in at.query_params and STEP_PARAM not in at.query_params
    assert at.query_params["mask"] == "causal"
    assert "lesson_next" not in [button.key for button in at.button]


@pytest.mark.parametrize(
    ("param", "said"),
    [
        ("not-a-lesson!", "damaged"),
        (packed(b"hello"), "not JSON"),
        (packed(b'{"title": "no format"}'), "not a lesson file"),
        ("x" * 7000, "at most"),
    ],
)
def test_a_bad_lesson_link_says_why_and_the_page_works_alone(param: str, said: str) -> None:
    at = new_session(**{LESSON_PARAM: param, STEP_PARAM: "1", "text": SENTENCE})
    at.switch_page("views/text.py").run()
    no_trouble(at)
    errors = " ".join(unescape_markdown(error.value) for error in at.error)
    assert "cannot be played" in errors and said in errors
    assert LESSON_PARAM not in at.query_params and at.query_params["text"] == SENTENCE


def test_a_step_a_page_refuses_is_named_and_nothing_plays() -> None:
    refused = Lesson("Bad", (LessonStep("text", (("heads", "3"),), "Three heads", ""),))
    at = new_session(**{LESSON_PARAM: lesson_link(refused)}).run()
    errors = " ".join(error.value for error in at.error)
    assert "Step 1" in errors and "heads" in errors
    assert "lesson_next" not in [button.key for button in at.button]


def test_a_step_the_lesson_does_not_have_is_said_and_the_first_is_shown() -> None:
    at = new_session(**{LESSON_PARAM: lesson_link(TWO_STEPS), STEP_PARAM: "9"}).run()
    no_trouble(at)
    assert any("does not have" in warning.value for warning in at.warning)
    assert bar_lines(at)[0] == "**Masks and positions** · Step 1 of 2"


def test_a_lesson_too_long_for_a_link_plays_from_the_session_and_says_so() -> None:
    steps = tuple(
        LessonStep("text", (("text", SENTENCE),), f"Step {n}",
                   "".join(random.Random(n).choices(string.ascii_lowercase, k=1800)))
        for n in range(1, 11)
    )  # fmt: skip
    long_lesson = Lesson("Long", steps)
    with pytest.raises(InputError, match="too long for a link"):
        lesson_link(long_lesson)
    at = new_session()
    at.session_state[player.PLAYING_KEY] = player.Playing(long_lesson, 1, None)
    at.run()
    no_trouble(at)
    assert bar_lines(at)[0] == "**Long** · Step 1 of 10"
    assert LESSON_PARAM not in at.query_params and at.query_params["text"] == SENTENCE
    assert "too long for a link" in " ".join(caption.value for caption in at.caption)
    assert at.query_params[STEP_PARAM] == "1"  # the link carries the step, not the lesson
    at.button(key="lesson_next").click().run()
    assert bar_lines(at)[0] == "**Long** · Step 2 of 10"
    assert at.query_params[STEP_PARAM] == "2"


def test_a_setting_of_several_values_plays_whole_and_is_checked() -> None:
    """A multiselect's values travel packed, as a class packs them (hosting.classroom.views)."""
    shown = pack_lists({"show_heads": ["1", "3"]})
    query = (("text", SENTENCE), ("heads", "4"), ("view", "5 Head view"), (LISTS_PARAM, shown))
    step = LessonStep("text", query, "Two of four heads", "")
    check_lesson(Lesson("Heads", (step,)))
    at = new_session(**{LESSON_PARAM: lesson_link(Lesson("Heads", (step,)))}).run()
    no_trouble(at)
    assert at.query_params[STEP_PARAM] == "1"
    assert at.session_state["show_heads"] == [1, 3]
    unknown = pack_lists({"nothing_here": ["1", "2"]})
    bad = LessonStep("text", ((LISTS_PARAM, unknown),), "Bad", "")
    with pytest.raises(InputError, match='Step 1: the text page has no setting "nothing_here"'):
        check_lesson(Lesson("Bad", (bad,)))
    with pytest.raises(InputError, match="several values"):
        check_lesson(Lesson("Bad", (LessonStep("text", ((LISTS_PARAM, "[1]"),), "Bad", ""),)))


def test_a_view_added_as_a_step_keeps_its_several_values_and_drops_what_is_no_setting() -> None:
    packed = pack_lists({"show_heads": ["1", "3"], "stray": ["a", "b"]})
    link = {"text": SENTENCE, LISTS_PARAM: packed, LESSON_PARAM: COURSE, "present": "1"}
    assert view_query("text", link) == {
        "text": SENTENCE,
        LISTS_PARAM: pack_lists({"show_heads": ["1", "3"]}),
    }
