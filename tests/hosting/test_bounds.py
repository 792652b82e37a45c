"""Every size a stranger controls is bounded (hosting/classroom/limits.py), on both stores."""

from __future__ import annotations

import pytest

import attention_core as ac
from hosting.classroom import limits
from hosting.classroom.classes import Classes
from hosting.classroom.records import ClassGoneError, FullError, RefusedError, ReplayedError
from tests.hosting.conftest import FakeClock

QUESTION = {"id": "q1", "prompt": "How many?"}


def _students(count: int) -> list[str]:
    return [f"student-{number:04d}" for number in range(count)]


def test_the_server_opens_at_most_max_classes_at_once(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_CLASSES", 3)
    first = classes.start()
    classes.start()
    classes.start()
    with pytest.raises(FullError, match="as many classes as it can"):
        classes.start()
    classes.end(first.code, first.key, "r1")
    classes.start()
    clock.advance(12 * 3600)
    assert classes.store.open_classes(clock()) == 0
    assert len({classes.start().code for _ in range(3)}) == 3


def test_a_full_server_ends_its_idle_classes_for_a_new_one_and_keeps_those_in_use(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_CLASSES", 4)
    steered, attended, idle, abandoned = (classes.start() for _ in range(4))
    classes.join(abandoned.code, "student-0001")  # a student came, then left
    clock.advance(limits.IDLE_SECONDS - 20)
    classes.steer(steered.code, steered.key, "r1", "text", {})  # its teacher is at work
    classes.join(attended.code, "student-0002")  # a student is still there
    clock.advance(21)  # the other two: nothing heard for IDLE_SECONDS and a second
    new = classes.start()
    for gone in (idle, abandoned):
        with pytest.raises(ClassGoneError):
            classes.version(gone.code)
        with pytest.raises(ClassGoneError):
            classes.steer(gone.code, gone.key, "r2", "text", {})
    assert classes.version(steered.code) == 1
    assert classes.state(attended.code).version == 0
    assert classes.present(attended.code) == 1
    classes.start()
    with pytest.raises(FullError, match="as many classes as it can"):
        classes.start()  # four classes in use: none is pushed out
    assert classes.version(new.code) == 0


def test_an_idle_class_keeps_its_place_while_the_server_has_room(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_CLASSES", 2)
    prepared = classes.start()  # a teacher prepares a class in the morning
    clock.advance(4 * limits.IDLE_SECONDS)
    classes.start()
    assert classes.version(prepared.code) == 0
    assert classes.steer(prepared.code, prepared.key, "r1", "text", {}) == 1


def test_a_class_takes_at_most_max_students_present_and_frees_the_place_of_one_gone(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_STUDENTS", 3)
    code = classes.start().code
    first, second, third, fourth = _students(4)
    for student in (first, second, third):
        classes.join(code, student)
    with pytest.raises(FullError, match=r"This class is full \(3 students\)"):
        classes.join(code, fourth)
    clock.advance(limits.PRESENT_SECONDS / 2)
    classes.join(code, first)  # "still here" from a student already in
    assert classes.present(code) == 3
    # Reloads and closed tabs leave sessions that never say "still here" again.
    clock.advance(limits.PRESENT_SECONDS / 2 + 1)
    assert classes.present(code) == 1
    classes.join(code, fourth)
    assert classes.present(code) == 2
    classes.join(code, second)  # back: a place is free
    with pytest.raises(FullError, match=r"This class is full \(3 students\)"):
        classes.join(code, third)


def test_a_class_asks_at_most_max_questions_but_may_ask_one_again(
    classes: Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_QUESTIONS", 2)
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", {"id": "q1"})
    classes.ask(code, key, "r2", {"id": "q2"})
    with pytest.raises(FullError, match="has asked 2 questions"):
        classes.ask(code, key, "r3", {"id": "q3"})
    assert classes.ask(code, key, "r4", {"id": "q1"}) == 3
    assert classes.state(code).asked == 2


@pytest.mark.parametrize("question", [{}, {"id": ""}, {"id": 7}, {"id": "has space"}])
def test_a_question_without_a_usable_id_is_refused(classes: Classes, question) -> None:
    started = classes.start()
    with pytest.raises(RefusedError, match="no usable id"):
        classes.ask(started.code, started.key, "r1", question)


def test_a_question_longer_than_max_question_chars_is_refused(classes: Classes) -> None:
    started = classes.start()
    question = {"id": "q1", "prompt": "x" * limits.MAX_QUESTION_CHARS}
    with pytest.raises(RefusedError, match="too large"):
        classes.ask(started.code, started.key, "r1", question)
    assert classes.state(started.code).asked == 0


def test_an_answer_has_one_to_max_answer_chars_characters(classes: Classes) -> None:
    started = classes.start()
    code = started.code
    classes.ask(code, started.key, "r1", QUESTION)
    first, second = _students(2)
    classes.join(code, first)
    classes.join(code, second)
    for too_long_or_empty in ("", "x" * (limits.MAX_ANSWER_CHARS + 1)):
        with pytest.raises(RefusedError, match="An answer has 1 to 64 characters"):
            classes.answer(code, first, "q1", too_long_or_empty)
    assert classes.answer(code, second, "q1", "é" * limits.MAX_ANSWER_CHARS) is True
    assert classes.counts(code, "q1") == {"é" * 64: 1}


def test_a_question_counts_every_answer_however_many_different(classes: Classes) -> None:
    # Numbers differ a lot: the teacher's table draws one row for each, so the rows are
    # bounded by MAX_ANSWERS_PER_QUESTION (the next test), not by what students send.
    started = classes.start()
    code = started.code
    classes.ask(code, started.key, "r1", QUESTION)
    students = _students(30)
    for number, student in enumerate(students):
        classes.join(code, student)
        assert classes.answer(code, student, "q1", f"0.{number:03d}") is True
    assert classes.counts(code, "q1") == {f"0.{n:03d}": 1 for n in range(30)}


def test_a_question_takes_at_most_max_answers_per_question(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A script that joins, answers, and leaves so that its place frees up after
    # PRESENT_SECONDS would otherwise add answers for as long as the question is open.
    monkeypatch.setattr(limits, "MAX_STUDENTS", 2)
    monkeypatch.setattr(limits, "MAX_ANSWERS_PER_QUESTION", 3)
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    first, second, third, fourth = _students(4)
    for student in (first, second):
        classes.join(code, student)
        assert classes.answer(code, student, "q1", student) is True
    clock.advance(limits.PRESENT_SECONDS + 1)  # both left: their places are free
    for student in (third, fourth):
        classes.join(code, student)
    assert classes.answer(code, third, "q1", third) is True
    with pytest.raises(FullError, match="This question has 3 answers, the most it keeps"):
        classes.answer(code, fourth, "q1", fourth)
    assert classes.answer(code, third, "q1", "again") is False  # answered: not "full"
    assert classes.counts(code, "q1") == {first: 1, second: 1, third: 1}
    classes.ask(code, key, "r2", {"id": "q2"})
    assert classes.answer(code, fourth, "q2", "B") is True  # the bound is per question


def test_only_a_student_present_can_answer(classes: Classes, clock: FakeClock) -> None:
    started = classes.start()
    code = started.code
    classes.ask(code, started.key, "r1", QUESTION)
    never_joined, left, stays = _students(3)
    with pytest.raises(RefusedError, match="Join the class again to answer"):
        classes.answer(code, never_joined, "q1", "B")
    classes.join(code, left)
    classes.join(code, stays)
    clock.advance(limits.PRESENT_SECONDS)
    classes.join(code, stays)  # "still here", as a connected app says every 10 s
    clock.advance(1)
    with pytest.raises(RefusedError, match="your browser has not been heard from"):
        classes.answer(code, left, "q1", "B")
    assert classes.answer(code, stays, "q1", "C") is True
    classes.join(code, left)  # back (a reload joins again)
    assert classes.answer(code, left, "q1", "B") is True
    assert classes.counts(code, "q1") == {"B": 1, "C": 1}


def test_a_student_is_present_for_exactly_present_seconds_after_joining(
    classes: Classes, clock: FakeClock
) -> None:
    started = classes.start()
    classes.ask(started.code, started.key, "r1", QUESTION)
    classes.join(started.code, "student-0000")
    clock.advance(limits.PRESENT_SECONDS)
    assert classes.answer(started.code, "student-0000", "q1", "B") is True


def test_a_class_makes_at_most_max_changes_and_a_replay_is_still_a_replay(
    classes: Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_CHANGES", 3)
    started = classes.start()
    code, key = started.code, started.key
    assert classes.steer(code, key, "r1", "text", {}) == 1
    assert classes.ask(code, key, "r2", QUESTION) == 2
    assert classes.reveal(code, key, "r3", "q1") == 3
    with pytest.raises(
        FullError, match=r"This class has made 3 changes, .*Start a new class to go on"
    ):
        classes.steer(code, key, "r4", "text", {"seed": "2"})
    with pytest.raises(FullError, match="made 3 changes"):
        classes.ask(code, key, "r5", {"id": "q2"})
    for replayed in ("r1", "r2", "r3"):
        with pytest.raises(ReplayedError):
            classes.steer(code, key, replayed, "text", {"seed": "3"})
    assert classes.version(code) == 3
    classes.end(code, key, "r6")  # a full class can still be ended
    with pytest.raises(ClassGoneError):
        classes.version(code)


def test_only_the_open_question_takes_answers(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    with pytest.raises(RefusedError, match="no longer open"):
        classes.answer(code, "student-0000", "q1", "B")
    classes.ask(code, key, "r1", QUESTION)
    classes.ask(code, key, "r2", {"id": "q2"})
    with pytest.raises(RefusedError, match="no longer open"):
        classes.answer(code, "student-0000", "q1", "B")
    assert classes.counts(code, "q1") == {}


def test_a_view_has_at_most_max_view_params_settings(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    query = {f"p{number}": "1" for number in range(limits.MAX_VIEW_PARAMS)}
    assert classes.steer(code, key, "r1", "text", query) == 1
    with pytest.raises(RefusedError, match="settings cannot be shared"):
        classes.steer(code, key, "r2", "text", query | {"one_more": "1"})
    assert classes.state(code).query == query


def test_packed_settings_count_against_max_view_params(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    plain = {f"p{number}": "1" for number in range(limits.MAX_VIEW_PARAMS - 2)}
    two = {"class_lists": '{"a":["1","2"],"b":["3","4"]}'}
    assert classes.steer(code, key, "r1", "text", plain | two) == 1
    three = {"class_lists": '{"a":["1","2"],"b":["3","4"],"c":["5","6"]}'}
    with pytest.raises(RefusedError, match="settings cannot be shared"):
        classes.steer(code, key, "r2", "text", plain | three)


def test_a_view_longer_than_max_view_chars_is_refused(classes: Classes) -> None:
    started = classes.start()
    query = {"sentence": "x" * limits.MAX_VIEW_CHARS}
    with pytest.raises(RefusedError, match="too large"):
        classes.steer(started.code, started.key, "r1", "text", query)
    assert classes.version(started.code) == 0


def test_a_view_with_two_of_the_longest_sentences_is_shared(classes: Classes) -> None:
    started = classes.start()
    longest = "é" * ac.limits.MAX_TEXT_CHARS  # the text page's text areas take no more
    query = {"text": longest, "text2": longest, "cross": "true"}
    query |= {f"setting{number}": "x" * 20 for number in range(40)}  # the page binds ~40
    assert classes.steer(started.code, started.key, "r1", "text", query) == 1
    assert classes.state(started.code).query == query


def test_a_refused_view_records_no_request(classes: Classes) -> None:
    # A teacher's app sends its view again on every rerun while it cannot be shared.
    started = classes.start()
    too_large = {"sentence": "x" * limits.MAX_VIEW_CHARS}
    for _ in range(3):
        with pytest.raises(RefusedError, match="too large"):
            classes.steer(started.code, started.key, "r1", "text", too_large)
    assert classes.steer(started.code, started.key, "r1", "text", {"seed": "2"}) == 1


@pytest.mark.parametrize(
    "query",
    [
        {"has space": "1"},
        {"": "1"},
        {"head": 2},
        {"x" * 41: "1"},
        {"a/b": "c"},
        {"embed": "true"},  # Streamlit's own: opening a link with it fails
        {"embed_options": "dark_theme"},
        # Several-valued settings are packed one way only (hosting.classroom.views):
        {"class_lists": "x"},
        {"class_lists": '{"heads": ["1", "2"]}'},  # spaces: not the packed form
        {"class_lists": '{"z":["1","2"],"a":["1","2"]}'},  # names not sorted
        {"class_lists": '{"embed":["a","b"]}'},
        {"class_lists": '{"heads":["1"]}'},  # one value travels plainly
        {"class_lists": '{"heads":["1",2]}'},
        {"class_lists": '{"heads":["1","2"]}', "heads": "1"},  # set twice
        {"class_lists": '{"class_lists":["1","2"]}'},
    ],
)
def test_settings_with_unusable_names_or_values_are_refused(classes: Classes, query) -> None:
    started = classes.start()
    with pytest.raises(RefusedError, match="settings cannot be shared"):
        classes.steer(started.code, started.key, "r1", "text", query)


@pytest.mark.parametrize(
    "page", ["", "Text", "../text", "text/x", "1text", "text page", "a" * 41, "<b>text</b>"]
)
def test_only_page_names_can_be_shared(classes: Classes, page: str) -> None:
    started = classes.start()
    with pytest.raises(RefusedError, match="That page cannot be shared"):
        classes.steer(started.code, started.key, "r1", page, {})
    assert classes.state(started.code).page == ""


@pytest.mark.parametrize("page", ["text", "time_series", "positional_encoding", "a" * 40])
def test_page_names_can_be_shared(classes: Classes, page: str) -> None:
    started = classes.start()
    assert classes.steer(started.code, started.key, "r1", page, {}) == 1
    assert classes.state(started.code).page == page
