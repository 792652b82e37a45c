"""The lesson format: exact round trips, and one clear refusal per kind of bad lesson."""

from __future__ import annotations

import json
from typing import Any

import pytest

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, LessonStep, lesson_file, read_lesson

TWO_STEPS = Lesson(
    title="Scores to weights",
    description="From QKᵀ to softmax, on one sentence.",
    steps=(
        LessonStep(
            page="text",
            query=(("heads", "1"), ("mask", "causal"), ("text", "Le chat « dort » 😴")),
            title="One head, causal",
            text="Each row is a **query**.\n\n- scores: `QKᵀ`\n- weights: *softmax*",
            prompt="Switch the mask to none. Which weights change?",
            question="weight",
        ),
        LessonStep(page="positional_encoding", query=(), title="Positions", text=""),
    ),
)


def lesson_dict(**changes: Any) -> dict[str, Any]:
    data = json.loads(lesson_file(TWO_STEPS))
    data.update(changes)
    return data


def refusal(data: object) -> str:
    with pytest.raises(InputError) as caught:
        read_lesson(json.dumps(data, ensure_ascii=False).encode("utf-8"))
    return str(caught.value)


def refusal_of_bytes(data: bytes) -> str:
    with pytest.raises(InputError) as caught:
        read_lesson(data)
    return str(caught.value)


def test_a_lesson_file_reads_back_as_the_same_lesson() -> None:
    assert read_lesson(lesson_file(TWO_STEPS)) == TWO_STEPS


def test_a_lesson_file_is_written_back_byte_for_byte() -> None:
    written = lesson_file(TWO_STEPS)
    assert lesson_file(read_lesson(written)) == written


def test_the_file_is_indented_json_with_the_schema_s_keys_in_order() -> None:
    data = json.loads(lesson_file(TWO_STEPS))
    assert list(data) == ["format", "version", "title", "description", "steps"]
    assert data["steps"][0]["view"] == {
        "page": "text",
        "query": {"heads": "1", "mask": "causal", "text": "Le chat « dort » 😴"},
    }
    assert list(data["steps"][1]) == ["view", "title", "text"]  # no prompt, no question


def test_the_step_s_settings_keep_the_link_s_order() -> None:
    step = read_lesson(lesson_file(TWO_STEPS)).steps[0]
    assert step.query == (("heads", "1"), ("mask", "causal"), ("text", "Le chat « dort » 😴"))
    assert list(step.params) == ["heads", "mask", "text"]


def test_a_byte_order_mark_is_read_as_a_text_editor_writes_it() -> None:
    assert read_lesson(b"\xef\xbb\xbf" + lesson_file(TWO_STEPS)) == TWO_STEPS


def test_a_truncated_file_is_not_json() -> None:
    message = refusal_of_bytes(lesson_file(TWO_STEPS)[:-40])
    assert message.startswith("The lesson file is not JSON (")
    assert "it may be cut short" in message


def test_bytes_that_are_not_utf8_are_refused() -> None:
    assert "not text (UTF-8)" in refusal_of_bytes(b"\xff\xfe{}")


def test_a_file_over_the_size_limit_is_refused_before_it_is_read() -> None:
    message = refusal_of_bytes(b" " * (limits.MAX_LESSON_BYTES + 1))
    assert message.startswith(f"The lesson file has {limits.MAX_LESSON_BYTES + 1:,} bytes")


def test_deeply_nested_json_is_refused_not_a_recursion_error() -> None:
    assert refusal_of_bytes(b"[" * 200_000) == "The lesson file nests too deeply to be a lesson."


def test_json_that_is_not_a_lesson_says_so() -> None:
    expected = 'This is not a lesson file: it does not say "format": "attention-visualizer-lesson".'
    assert refusal([1, 2]) == expected
    assert refusal(lesson_dict(format="slides")) == expected


@pytest.mark.parametrize(
    ("version", "shown"), [(2, "2"), (0, "0"), ("1", '"1"'), (True, "true"), (None, "null")]
)
def test_another_schema_version_is_refused(version: object, shown: str) -> None:
    assert refusal(lesson_dict(version=version)) == (
        f"This lesson is written in format version {shown}; this app reads version 1. "
        "Export it again from an app that writes version 1."
    )


def test_an_unknown_page_names_the_step() -> None:
    data = lesson_dict()
    data["steps"][1]["view"]["page"] = "slides"
    assert refusal(data) == (
        'Step 2: there is no page "slides"; the pages are: text, time_series, '
        "positional_encoding, walkthrough, learning, pretrained."
    )


def test_too_many_steps_are_refused() -> None:
    data = lesson_dict()
    data["steps"] = data["steps"][:1] * (limits.MAX_LESSON_STEPS + 1)
    assert refusal(data) == (
        f"The lesson has {limits.MAX_LESSON_STEPS + 1} steps; at most "
        f"{limits.MAX_LESSON_STEPS} are allowed. Split it in two."
    )


def test_a_lesson_without_steps_is_refused() -> None:
    assert refusal(lesson_dict(steps=[])) == "The lesson has no steps; add at least one."


def test_text_too_long_names_the_step_and_the_limit() -> None:
    data = lesson_dict()
    data["steps"][1]["text"] = "x" * (limits.MAX_STEP_TEXT_CHARS + 1)
    assert refusal(data) == "Step 2: its text has 2,001 characters; at most 2,000 are allowed."


def test_a_title_too_long_is_refused() -> None:
    long_title = "t" * (limits.MAX_LESSON_TITLE_CHARS + 1)
    assert refusal(lesson_dict(title=long_title)) == (
        "The lesson: its title has 101 characters; at most 100 are allowed."
    )


def test_a_setting_that_is_not_text_is_refused() -> None:
    data = lesson_dict()
    data["steps"][0]["view"]["query"]["heads"] = 2
    assert refusal(data) == 'Step 1: its setting "heads" should be text, not 2.'


def test_a_missing_title_and_an_unknown_field_are_named() -> None:
    data = lesson_dict()
    del data["steps"][0]["title"]
    assert refusal(data) == "Step 1: its title is missing."
    data = lesson_dict(author="me")
    assert refusal(data) == 'The lesson: "author" is not part of a lesson; remove it.'


def test_a_question_the_step_s_page_does_not_ask_is_refused() -> None:
    data = lesson_dict()
    data["steps"][1]["question"] = "weight"
    assert refusal(data) == (
        'Step 2: the positional_encoding page asks no "weight" question; '
        "it asks: encoding-value, most-alike."
    )
    data["steps"][1]["question"] = "quiz"
    assert refusal(data).startswith('Step 2: there is no question kind "quiz"; the kinds are: ')


def test_a_hostile_value_is_quoted_short() -> None:
    data = lesson_dict()
    data["steps"][0]["view"]["query"] = {"<script>" * 20: "1"}
    message = refusal(data)
    assert message.startswith('Step 1: "<script><script>')
    assert len(message) < 120


def test_a_field_named_twice_is_refused() -> None:
    data = b'{"format": "attention-visualizer-lesson", "version": 1, "title": "a", "title": "b"}'
    assert refusal_of_bytes(data) == 'The lesson file names "title" twice in one place.'


def test_an_object_with_many_names_finds_the_one_named_twice() -> None:
    names = ", ".join(f'"k{index}": 0' for index in range(150_000))  # about 2 MB
    assert refusal_of_bytes(f'{{"format": 1, {names}, "k7": 1}}'.encode()).startswith(
        'The lesson file names "k7" twice'
    )
