"""A class from start to end, through the checked entry point, on both stores."""

from __future__ import annotations

import functools

import pytest

from hosting.classroom.classes import Classes
from hosting.classroom.records import (
    FULL,
    Answered,
    ClassGoneError,
    ClassRecord,
    Created,
    RefusedError,
    RequestUse,
)
from hosting.classroom.store import ClassStore
from tests.hosting.conftest import START_TIME

QUESTION = {"id": "text:weight:2", "prompt": "Which key does <i>it</i> attend to?", "answer": "B"}
SECOND = {"id": "text:softmax", "prompt": "softmax([1, 2, 3])₃ ≈ ?", "answer": "0.67"}
STUDENTS = ("student-aaaa", "student-bbbb", "student-cccc")
#: Open classes, questions, answers a question may have or ids a class may keep, where no
#: test fills them.
ROOM = 800


def test_a_class_lives_from_start_to_end(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    assert started.expires_at == START_TIME + 12 * 3600
    assert classes.state(code) == ClassRecord(code=code, version=0, expires_at=started.expires_at)
    assert classes.version(code) == 0

    query = {"sentence": "<b>x</b> attends — ünïcødé ✓", "head": "2"}
    assert classes.steer(code, key, "r1", "text", query) == 1
    assert classes.version(code) == 1
    state = classes.state(code)
    assert (state.page, state.query, state.question, state.asked) == ("text", query, None, 0)

    assert classes.ask(code, key, "r2", QUESTION) == 2
    for student in STUDENTS:
        assert classes.join(code, student).question == QUESTION
    assert classes.present(code) == 3
    assert classes.answer(code, STUDENTS[0], QUESTION["id"], "B") is True
    assert classes.answer(code, STUDENTS[1], QUESTION["id"], "<script>") is True
    assert classes.answer(code, STUDENTS[0], QUESTION["id"], "C") is False
    assert classes.counts(code, QUESTION["id"]) == {"B": 1, "<script>": 1}

    assert classes.reveal(code, key, "r3", QUESTION["id"]) == 3
    assert classes.state(code).revealed is True
    with pytest.raises(RefusedError, match="revealed"):
        classes.answer(code, STUDENTS[2], QUESTION["id"], "B")

    assert classes.ask(code, key, "r4", SECOND) == 4
    state = classes.state(code)
    assert (state.question, state.revealed, state.asked, state.version) == (SECOND, False, 2, 4)
    assert classes.answer(code, STUDENTS[2], SECOND["id"], "0.67") is True
    assert classes.results(code, key) == [
        (QUESTION, {"B": 1, "<script>": 1}),
        (SECOND, {"0.67": 1}),
    ]

    classes.end(code, key, "r5")
    for call in (
        lambda: classes.state(code),
        lambda: classes.version(code),
        lambda: classes.join(code, STUDENTS[0]),
        lambda: classes.answer(code, STUDENTS[1], SECOND["id"], "1"),
        lambda: classes.counts(code, SECOND["id"]),
        lambda: classes.present(code),
        lambda: classes.steer(code, key, "r6", "text", {}),
        lambda: classes.ask(code, key, "r7", QUESTION),
        lambda: classes.reveal(code, key, "r8", QUESTION["id"]),
        lambda: classes.results(code, key),
        lambda: classes.end(code, key, "r9"),
    ):
        with pytest.raises(ClassGoneError, match="not open"):
            call()


def test_a_question_asked_again_keeps_its_answers_and_place(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    for student in STUDENTS:
        classes.join(code, student)
    classes.answer(code, STUDENTS[0], QUESTION["id"], "B")
    classes.ask(code, key, "r2", SECOND)
    classes.ask(code, key, "r3", QUESTION | {"prompt": "changed"})
    state = classes.state(code)
    assert (state.question, state.asked, state.revealed) == (QUESTION, 2, False)
    assert classes.answer(code, STUDENTS[0], QUESTION["id"], "C") is False
    assert classes.answer(code, STUDENTS[1], QUESTION["id"], "C") is True
    assert classes.results(code, key) == [(QUESTION, {"B": 1, "C": 1}), (SECOND, {})]


def test_reasking_after_reveal_opens_the_question_again(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    classes.reveal(code, key, "r2", QUESTION["id"])
    assert classes.ask(code, key, "r3", QUESTION) == 3
    assert classes.state(code).revealed is False
    classes.join(code, STUDENTS[0])
    assert classes.answer(code, STUDENTS[0], QUESTION["id"], "B") is True


def test_a_teacher_reveals_the_question_they_see_not_one_asked_since(classes: Classes) -> None:
    # Two tabs of the teacher: one shows question 1's answers while the other asks question 2.
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    later = {**QUESTION, "id": "text:weight:3"}
    version = classes.ask(code, key, "r2", later)
    with pytest.raises(RefusedError, match="no longer the open one"):
        classes.reveal(code, key, "r3", QUESTION["id"])
    state = classes.state(code)
    assert (state.question, state.revealed, state.version) == (later, False, version)
    assert classes.reveal(code, key, "r4", later["id"]) == version + 1
    with pytest.raises(RefusedError, match="no longer the open one"):
        classes.reveal(code, key, "r5", "never-asked")


def test_nothing_is_revealed_before_a_question_is_asked(classes: Classes) -> None:
    started = classes.start()
    with pytest.raises(RefusedError, match="no longer the open one"):
        classes.reveal(started.code, started.key, "r1", QUESTION["id"])
    assert classes.state(started.code).revealed is False


def test_a_student_is_present_for_thirty_seconds_after_their_last_word(
    classes: Classes, clock
) -> None:
    code = classes.start().code
    classes.join(code, STUDENTS[0])
    clock.advance(20)
    classes.join(code, STUDENTS[1])
    clock.advance(10)
    assert classes.present(code) == 2
    clock.advance(0.5)
    assert classes.present(code) == 1
    classes.join(code, STUDENTS[0])
    assert classes.present(code) == 2


def test_a_typed_code_opens_its_class_in_any_case_and_spacing(classes: Classes) -> None:
    code = classes.start().code
    typed = f" {code[:3].lower()}-{code[3:]} "
    assert classes.state(typed).code == code
    assert classes.version(typed) == 0


def test_writes_that_race_the_end_of_a_class_leave_nothing_behind(store: ClassStore) -> None:
    # Each write checked the class, then the teacher ended it before the write ran: a new
    # class that draws the same code later must start empty.
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    store.end("K7QH3M")
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', ROOM) == -1
    assert store.answer("K7QH3M", "q1", "student-aaaa", "B", now - 30, ROOM) is Answered.ALREADY
    assert store.join("K7QH3M", "student-aaaa", now, 400, now - 30) is True
    assert store.first_use("K7QH3M", "r1", now, ROOM) is RequestUse.FIRST
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.questions("K7QH3M") == []
    assert store.counts("K7QH3M", "q1") == {}
    assert store.present("K7QH3M", now - 30) == 0
    assert store.first_use("K7QH3M", "r1", now, ROOM) is RequestUse.FIRST


def test_reclaim_ends_the_classes_unheard_since_a_time_and_leaves_nothing_of_them(
    store: ClassStore,
) -> None:
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', ROOM) == 1
    assert store.join("K7QH3M", "student-aaaa", now, 400, now - 30) is True
    assert store.answer("K7QH3M", "q1", "student-aaaa", "B", now - 30, ROOM) is Answered.COUNTED
    assert store.first_use("K7QH3M", "r1", now, ROOM) is RequestUse.FIRST
    assert store.create("K7QH3N", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.join("K7QH3N", "student-bbbb", now + 5, 400, now - 25) is True
    assert store.create("K7QH3P", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.first_use("K7QH3P", "r1", now + 6, ROOM) is RequestUse.FIRST
    assert store.reclaim(now + 5, now + 10) == 1  # heard at idle_since or later: kept
    assert store.version("K7QH3M", now + 10) is None
    assert store.open_classes(now + 10) == 2
    assert store.create("K7QH3M", "digest", now + 3600, now + 10, ROOM) is Created.OPENED
    assert store.questions("K7QH3M") == []
    assert store.counts("K7QH3M", "q1") == {}
    assert store.present("K7QH3M", now - 30) == 0
    assert store.first_use("K7QH3M", "r1", now + 10, ROOM) is RequestUse.FIRST
    assert store.reclaim(now + 10, now + 10) == 2  # the two older ones, not the new one
    assert store.open_classes(now + 10) == 1


def test_a_store_counts_the_first_answer_of_a_student_present_while_the_question_has_room(
    store: ClassStore,
) -> None:
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', ROOM) == 1
    for student in STUDENTS[:2]:
        assert store.join("K7QH3M", student, now, 400, now - 30) is True
    answer = functools.partial(store.answer, "K7QH3M", "q1", since=now - 30, max_answers=1)
    assert answer(STUDENTS[2], "B") is Answered.ABSENT  # never joined
    assert store.answer("K7QH3M", "q1", STUDENTS[0], "B", now + 1, 1) is Answered.ABSENT
    assert answer(STUDENTS[0], "B") is Answered.COUNTED
    assert answer(STUDENTS[0], "C") is Answered.ALREADY
    assert answer(STUDENTS[1], "C") is Answered.FULL
    assert store.ask("K7QH3M", "q2", '{"id":"q2"}', ROOM) == 2
    assert store.answer("K7QH3M", "q2", STUDENTS[1], "C", now - 30, 1) is Answered.COUNTED
    assert store.counts("K7QH3M", "q1") == {"B": 1}
    assert store.counts("K7QH3M", "q2") == {"C": 1}


def test_a_store_takes_answers_only_to_the_open_question_until_its_reveal(
    store: ClassStore,
) -> None:
    # Classes.answer reads the class first; a reveal or a new question may land after.
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    for student in STUDENTS:
        assert store.join("K7QH3M", student, now, 400, now - 30) is True
    answer = functools.partial(store.answer, "K7QH3M", since=now - 30, max_answers=10)
    assert answer("q1", STUDENTS[0], "B") is Answered.CLOSED  # nothing asked yet
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', ROOM) == 1
    assert answer("q1", STUDENTS[0], "B") is Answered.COUNTED
    assert store.ask("K7QH3M", "q2", '{"id":"q2"}', ROOM) == 2
    assert answer("q1", STUDENTS[1], "B") is Answered.CLOSED  # another question is open
    assert answer("q2", STUDENTS[1], "C") is Answered.COUNTED
    assert store.reveal("K7QH3M", "q2") == 3
    assert answer("q2", STUDENTS[2], "C") is Answered.CLOSED  # revealed
    assert store.counts("K7QH3M", "q1") == {"B": 1}
    assert store.counts("K7QH3M", "q2") == {"C": 1}


def test_a_store_opens_at_most_max_open_classes_and_keeps_at_most_max_questions(
    store: ClassStore,
) -> None:
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, 2) is Created.OPENED
    assert store.create("K7QH3M", "digest", now + 3600, now, 3) is Created.TAKEN
    assert store.create("K7QH3N", "digest", now + 60, now, 2) is Created.OPENED
    assert store.create("K7QH3P", "digest", now + 3600, now, 2) is Created.FULL
    assert store.open_classes(now) == 2
    assert store.create("K7QH3P", "digest", now + 3600, now + 60, 2) is Created.OPENED  # N expired
    assert store.open_classes(now + 60) == 2
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', 2) == 1
    assert store.ask("K7QH3M", "q2", '{"id":"q2"}', 2) == 2
    assert store.ask("K7QH3M", "q3", '{"id":"q3"}', 2) == FULL
    assert store.ask("K7QH3M", "q1", '{"id":"q1"}', 2) == 3  # asked again: it has its place
    assert store.questions("K7QH3M") == ['{"id":"q1"}', '{"id":"q2"}']
    assert store.version("K7QH3M", now + 60) == 3


def test_a_store_keeps_at_most_max_changes_ids_and_still_knows_a_replay(
    store: ClassStore,
) -> None:
    now = START_TIME
    assert store.create("K7QH3M", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.create("K7QH3N", "digest", now + 3600, now, ROOM) is Created.OPENED
    assert store.first_use("K7QH3M", "r1", now, 2) is RequestUse.FIRST
    assert store.first_use("K7QH3M", "r2", now, 2) is RequestUse.FIRST
    assert store.first_use("K7QH3M", "r3", now + 5, 2) is RequestUse.FULL
    assert store.first_use("K7QH3M", "r1", now + 5, 2) is RequestUse.REPLAYED
    assert store.reclaim(now + 5, now + 10) == 1  # a refused id still says its teacher is there
    assert store.version("K7QH3M", now + 10) == 0
    assert store.first_use("K7QH3M", "r3", now + 10, 3) is RequestUse.FIRST  # r3 was not kept
    assert store.create("K7QH3N", "digest", now + 3600, now + 10, ROOM) is Created.OPENED
    assert store.first_use("K7QH3N", "r3", now + 10, 1) is RequestUse.FIRST  # per class


def test_a_student_can_read_back_the_answer_they_gave_and_no_one_elses(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", {"id": "q1"})
    for student in ("student-aaaa", "student-bbbb"):
        classes.join(code, student)
    assert classes.answer_of(code, "student-aaaa", "q1") is None
    classes.answer(code, "student-aaaa", "q1", "B")
    classes.answer(code, "student-aaaa", "q1", "C")  # not counted: the first answer stays
    assert classes.answer_of(code, "student-aaaa", "q1") == "B"
    assert classes.answer_of(code, "student-bbbb", "q1") is None
    assert classes.answer_of(code, "student-aaaa", "q2") is None
