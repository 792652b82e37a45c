"""A lesson in a link: exact round trips, refusals, bounded unpacking, fuzzing of both readers."""

from __future__ import annotations

import base64
import json
import random
import tracemalloc
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, LessonStep, lesson_data, read_lesson
from attention_core.teaching.lesson_link import lesson_link, read_lesson_link
from attention_core.teaching.lesson_schema import PAGE_QUESTIONS

SHORT = Lesson(
    title="Masks",
    steps=(
        LessonStep(
            "text", (("mask", "causal"),), "Causal", "Row *i* sees keys `≤ i`.", None, "mask"
        ),
        LessonStep("walkthrough", (("lecture_step", "4"),), "The notes' days", "**Five** days."),
    ),
)


def packed(data: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(data)).decode("ascii").rstrip("=")


def refusal(param: str) -> str:
    with pytest.raises(InputError) as caught:
        read_lesson_link(param)
    return str(caught.value)


def test_a_link_reads_back_as_the_same_lesson() -> None:
    assert read_lesson_link(lesson_link(SHORT)) == SHORT


def test_a_link_is_written_back_character_for_character() -> None:
    param = lesson_link(SHORT)
    assert lesson_link(read_lesson_link(param)) == param
    assert set(param) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_a_lesson_too_long_for_a_link_is_refused_when_written() -> None:
    random_bytes = random.Random(0).randbytes(15_000)
    noise = base64.b64encode(random_bytes).decode("ascii")  # compresses little
    step = LessonStep("text", (("text", noise[: limits.MAX_TEXT_CHARS]),), "Long", "")
    with pytest.raises(InputError, match=r"too long for a link .* Share it as a file instead"):
        lesson_link(Lesson("Long", (step,)))


def test_a_link_over_the_limit_is_refused_unread() -> None:
    assert refusal("A" * (limits.MAX_LESSON_LINK_CHARS + 1)).startswith(
        f"This link's lesson is {limits.MAX_LESSON_LINK_CHARS + 1:,} characters long"
    )


@pytest.mark.parametrize(
    ("param", "problem"),
    [
        ("abc$", "it is not base64url"),
        ("abcde", "it is not base64url"),
        ("AAAA", "it does not unpack"),
        (lesson_link(SHORT)[:-8], "it is cut short"),
        (packed(b"{}") + "AAAA", "it has bytes after the lesson"),
    ],
)
def test_a_damaged_link_says_how(param: str, problem: str) -> None:
    assert (
        refusal(param)
        == f"The lesson in this link is damaged ({problem}); copy the whole link again."
    )


def test_a_zip_bomb_is_refused_without_unpacking_it() -> None:
    bomb = packed(b" " * 200_000_000)  # 200 MB of spaces: about 260 kB packed
    bomb = bomb[: limits.MAX_LESSON_LINK_CHARS - 200]  # what fits in a link (cut short)
    tracemalloc.start()
    try:
        assert refusal(bomb).startswith("The lesson in this link unpacks to more than")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * limits.MAX_LESSON_BYTES  # never the 200 MB it would unpack to


def test_a_link_s_lesson_is_checked_like_a_file_s() -> None:
    data = lesson_data(SHORT)
    data["steps"][0]["view"]["page"] = "slides"
    param = packed(json.dumps(data).encode("utf-8"))
    assert refusal(param).startswith('Step 1: there is no page "slides"')


@given(st.binary(max_size=600))
def test_any_bytes_give_a_lesson_or_an_input_error(data: bytes) -> None:
    for read, given_data in ((read_lesson, data), (read_lesson_link, packed(data))):
        try:
            read(given_data)  # type: ignore[operator]
        except InputError as error:
            assert str(error)


@given(st.text(max_size=200))
def test_any_text_as_a_link_gives_a_lesson_or_an_input_error(param: str) -> None:
    try:
        read_lesson_link(param)
    except InputError as error:
        assert str(error)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(["title", "text", "prompt", "question", "view", "page", "query"])


@given(JSON, FIELDS, st.integers(0, 1))
def test_any_json_in_any_field_gives_a_lesson_or_an_input_error(
    value: object, name: str, step: int
) -> None:
    data = lesson_data(SHORT)
    target = data["steps"][step]
    if name in ("page", "query"):
        target = target["view"]
    target[name] = value
    try:
        lesson = read_lesson(json.dumps(data).encode("utf-8"))
    except InputError as error:
        assert str(error).startswith((f"Step {step + 1}: ", "The lesson"))
        return
    assert read_lesson_link(lesson_link(lesson)) == lesson  # a lesson read is one that round-trips


@given(
    st.sampled_from(sorted(PAGE_QUESTIONS)),
    st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), st.text(max_size=30)),
    st.text(min_size=1, max_size=30),
    st.text(max_size=80),
)
def test_any_valid_lesson_round_trips_exactly(
    page: str, query: dict[str, str], title: str, text: str
) -> None:
    lesson = Lesson(title, (LessonStep(page, tuple(query.items()), title, text),), text or None)
    assert read_lesson_link(lesson_link(lesson)) == lesson
