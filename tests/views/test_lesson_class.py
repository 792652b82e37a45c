"""A lesson played to a live class, with AppTest: the teacher steps, the followers follow.

The class's own helpers and store (tests/views/test_classroom.py) are reused: a teacher
and students are separate sessions on one SQLite store of this test's own.
"""

from __future__ import annotations

import csv
import io

from attention_core.teaching.lesson import Lesson, LessonStep
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link
from hosting.classroom.classes import Classes
from tests.views.test_classroom import join_by_link, own_store, start_class  # noqa: F401
from ui.classroom.class_session import ASK_ON_OPEN_KEY, Role
from ui.classroom.results import results_csv
from ui.lessons.player import STEP_PARAM

SENTENCE = "the cat sat on the mat"
LESSON = Lesson(
    "Masks",
    (
        LessonStep(
            "text", (("text", SENTENCE), ("mask", "causal")), "Causal", "Rows.", question="mask"
        ),
        LessonStep(
            "text",
            (("text", SENTENCE), ("mask", "sliding")),
            "Sliding",
            "A window.",
            question="mask",
        ),
    ),
)


def test_next_moves_every_follower_who_sees_the_bar_without_its_buttons(
    own_store: Classes,  # noqa: F811
) -> None:
    teacher, role = start_class()
    teacher.query_params.update({LESSON_PARAM: lesson_link(LESSON), STEP_PARAM: "1"})
    teacher.switch_page("views/text.py").run()
    assert not teacher.exception
    assert own_store.state(role.code).query["mask"] == "causal"
    students = [join_by_link(role.code) for _ in range(2)]
    for student in students:
        assert "**Masks** · Step 1 of 2" in [m.value for m in student.markdown]
        assert "lesson_next" not in [button.key for button in student.button]
    teacher.button(key="lesson_next").click().run()
    state = own_store.state(role.code)
    assert (state.query["mask"], state.query[STEP_PARAM]) == ("sliding", "2")
    for student in students:
        student.run()
        assert not student.exception
        assert "**Masks** · Step 2 of 2" in [m.value for m in student.markdown]
        assert student.query_params[STEP_PARAM] == "2"


def test_a_steps_question_goes_to_the_class_as_it_opens_and_the_csv_names_lesson_and_step(
    own_store: Classes,  # noqa: F811
) -> None:
    teacher, role = start_class()
    teacher.session_state[ASK_ON_OPEN_KEY] = True
    teacher.query_params.update({LESSON_PARAM: lesson_link(LESSON), STEP_PARAM: "1"})
    teacher.switch_page("views/text.py").run()
    assert not teacher.exception
    asked = own_store.state(role.code).question
    assert asked is not None and asked["id"].startswith("mask")
    assert (asked["lesson"], asked["step"]) == ("Masks", 1)
    teacher.run()  # a rerun of the same step asks nothing again
    assert len(own_store.results(role.code, role.key)) == 1
    student = join_by_link(role.code)
    own_store.answer(role.code, student.session_state["class_student_id"], asked["id"], "causal")
    teacher.button(key="lesson_next").click().run()
    second = own_store.state(role.code).question
    assert second["id"] != asked["id"] and second["step"] == 2
    rows = list(csv.DictReader(io.StringIO(_csv(own_store, role))))
    assert {(row["lesson"], row["step"]) for row in rows} == {("Masks", "1"), ("Masks", "2")}
    assert [row["count"] for row in rows if row["answer"] == "causal" and row["step"] == "1"] == [
        "1"
    ]


def _csv(store: Classes, role: Role) -> str:
    return results_csv(store.results(role.code, role.key)).decode("utf-8")
