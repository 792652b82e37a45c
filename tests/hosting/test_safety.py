"""Safe with strangers (issue 21, part 4): only the teacher key steers, once per request."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hosting.classroom import codes
from hosting.classroom.classes import Classes
from hosting.classroom.records import (
    ClassGoneError,
    NotTeacherError,
    RefusedError,
    ReplayedError,
)
from tests.hosting.conftest import FakeClock

QUESTION = {"id": "q1", "prompt": "Which key?", "answer": "B"}
STUDENT = "student-aaaa"


def _teacher_calls(classes: Classes, code: str, key: str) -> dict[str, Callable[[], object]]:
    """Every request that needs the teacher key, each with a fresh request id."""
    return {
        "steer": lambda: classes.steer(code, key, "forged-1", "text", {"head": "1"}),
        "ask": lambda: classes.ask(code, key, "forged-2", QUESTION),
        "reveal": lambda: classes.reveal(code, key, "forged-3", "q1"),
        "results": lambda: classes.results(code, key),
        "end": lambda: classes.end(code, key, "forged-4"),
    }


def _forged_keys(classes: Classes, code: str, key: str) -> list[str]:
    other = classes.start().key
    return [
        codes.new_key(),  # well formed, but not this class's
        other,  # another class's key
        key[:-1],  # almost the key
        key + "x",
        key.upper() if key.upper() != key else key.lower(),
        "",
        codes.digest(key),  # what the store keeps is not the key
        key * 3,  # over-long: refused before it is hashed
    ]


def test_nobody_without_the_key_can_steer_ask_reveal_end_or_read_results(
    classes: Classes,
) -> None:
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    for forged in _forged_keys(classes, code, key):
        for call in _teacher_calls(classes, code, forged).values():
            with pytest.raises(NotTeacherError, match="Only the teacher"):
                call()
    state = classes.state(code)
    assert (state.version, state.page, state.revealed) == (1, "", False)


def test_a_key_that_is_not_text_is_not_the_teacher(classes: Classes) -> None:
    code = classes.start().code
    with pytest.raises(NotTeacherError):
        classes.steer(code, None, "r1", "text", {})  # type: ignore[arg-type]


def test_a_replayed_request_is_refused_and_changes_nothing(classes: Classes) -> None:
    started = classes.start()
    code, key = started.code, started.key
    assert classes.steer(code, key, "same-id", "text", {"head": "1"}) == 1
    for replay in (
        lambda: classes.steer(code, key, "same-id", "walkthrough", {}),
        lambda: classes.ask(code, key, "same-id", QUESTION),
        lambda: classes.end(code, key, "same-id"),
    ):
        with pytest.raises(ReplayedError, match="already done once"):
            replay()
    state = classes.state(code)
    assert (state.version, state.page, state.query, state.question) == (
        1,
        "text",
        {"head": "1"},
        None,
    )


def test_request_ids_are_per_class(classes: Classes) -> None:
    first, second = classes.start(), classes.start()
    assert classes.steer(first.code, first.key, "r1", "text", {}) == 1
    assert classes.steer(second.code, second.key, "r1", "text", {}) == 1


@pytest.mark.parametrize("request_id", ["", "r" * 65, None])
def test_a_request_without_a_usable_id_is_refused(classes: Classes, request_id) -> None:
    started = classes.start()
    with pytest.raises(RefusedError, match="no usable id"):
        classes.steer(started.code, started.key, request_id, "text", {})
    assert classes.version(started.code) == 0


def test_an_expired_class_is_gone_for_everyone_and_its_key_no_longer_steers(
    classes: Classes, clock: FakeClock
) -> None:
    started = classes.start()
    code, key = started.code, started.key
    classes.ask(code, key, "r1", QUESTION)
    classes.join(code, STUDENT)
    clock.advance(12 * 3600 - 1)
    assert classes.version(code) == 1
    clock.advance(1)
    assert classes.store.open_classes(clock()) == 0
    for call in [
        lambda: classes.state(code),
        lambda: classes.version(code),
        lambda: classes.join(code, STUDENT),
        lambda: classes.answer(code, STUDENT, "q1", "B"),
        lambda: classes.counts(code, "q1"),
        lambda: classes.present(code),
        *_teacher_calls(classes, code, key).values(),
    ]:
        with pytest.raises(ClassGoneError, match="expired"):
            call()


def test_an_expired_code_can_open_a_new_class_without_the_old_ones_data(
    classes: Classes, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codes, "new_code", lambda: "K7QH3M")
    old = classes.start()
    classes.ask(old.code, old.key, "r1", QUESTION)
    classes.join(old.code, STUDENT)
    classes.answer(old.code, STUDENT, "q1", "B")
    clock.advance(12 * 3600)
    new = classes.start()
    assert new.code == old.code
    assert classes.state(new.code).version == 0
    assert classes.present(new.code) == 0
    assert classes.results(new.code, new.key) == []
    with pytest.raises(NotTeacherError):
        classes.steer(old.code, old.key, "r2", "text", {})
    assert classes.steer(new.code, new.key, "r1", "text", {}) == 1


def test_an_ended_class_is_gone_and_no_longer_counts_as_open(
    classes: Classes, clock: FakeClock
) -> None:
    started = classes.start()
    classes.start()
    classes.end(started.code, started.key, "r1")
    assert classes.store.open_classes(clock()) == 1
    for call in _teacher_calls(classes, started.code, started.key).values():
        with pytest.raises(ClassGoneError):
            call()


@pytest.mark.parametrize(
    "typed",
    ["", "K7QH3", "K7QH3MM", "K7QH3O", "K7QH31", "K7QHIM", "K7QHLM", "K7QH0M", "K7QH3M" * 5],
)
def test_a_malformed_code_is_told_what_a_code_looks_like(classes: Classes, typed: str) -> None:
    with pytest.raises(ClassGoneError, match="A class code has 6 letters and digits"):
        classes.state(typed)
    with pytest.raises(ClassGoneError, match="A class code has 6 letters and digits"):
        classes.steer(typed, "any-key", "r1", "text", {})


def test_a_code_that_is_not_text_is_told_what_a_code_looks_like(classes: Classes) -> None:
    with pytest.raises(ClassGoneError, match="6 letters and digits"):
        classes.join(None, STUDENT)  # type: ignore[arg-type]


def test_a_wrong_code_is_gone(classes: Classes) -> None:
    code = classes.start().code
    wrong = "K7QH3M" if code != "K7QH3M" else "P4RT8W"
    with pytest.raises(ClassGoneError, match="not open"):
        classes.join(wrong, STUDENT)


@pytest.mark.parametrize("student", ["", "short", "a" * 65, "has space!", None])
def test_a_student_without_a_usable_id_is_refused(classes: Classes, student) -> None:
    code = classes.start().code
    with pytest.raises(RefusedError, match="no usable student id"):
        classes.join(code, student)
    assert classes.present(code) == 0
