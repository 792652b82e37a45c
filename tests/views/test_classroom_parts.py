"""The class feature's pieces without a session: questions as JSON, answer rows, the chart,
the CSV, the join link's address and QR code.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
import segno
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from attention_core.teaching.questions import CHOICE, NUMBER, Question, check
from hosting.classroom.limits import MAX_ANSWER_CHARS
from ui.classroom import figures
from ui.classroom.class_questions import (
    TOO_LARGE,
    UnsendableAnswerError,
    answer_text,
    answer_value,
    question_from_json,
    question_id,
    question_json,
)
from ui.classroom.class_session import (
    link_query,
)
from ui.classroom.results import CHART_NUMBERS, answer_rows, chart_rows, results_csv
from ui.classroom.state import base_url
from ui.figures.style import NORMAL
from ui.shared.check_yourself import digest

CHOICE_QUESTION = Question(
    id="strongest-key/head1/query2",
    prompt="Which key does “sat” attend to most in head 1?",
    kind=CHOICE,
    explanation="“cat” has weight 0.512.",
    choices=("the", "cat", "sat"),
    correct=("cat",),
)
NUMBER_QUESTION = Question(
    id="weight/head1/query0/key1",
    prompt="What is the weight from “the” to “cat”?",
    kind=NUMBER,
    explanation="It is 0.250.",
    value=0.25,
    tolerance=0.01,
)


def test_a_question_survives_json_and_gets_an_id_the_store_accepts() -> None:
    for question in (CHOICE_QUESTION, NUMBER_QUESTION):
        data = json.loads(json.dumps(question_json(question, digest(question)), allow_nan=False))
        back = question_from_json(data)
        assert back.id == f"{question.id.replace('/', ':')}.{digest(question)}"
        assert back == Question(**{**vars(question), "id": back.id})
    assert question_json(CHOICE_QUESTION, "00000000")["value"] is None  # NaN is no JSON
    assert math.isnan(question_from_json(question_json(CHOICE_QUESTION, "0")).value)


def test_the_same_question_id_on_another_view_is_another_question() -> None:
    other = Question(**{**vars(CHOICE_QUESTION), "explanation": "“the” has weight 0.6."})
    assert question_id(CHOICE_QUESTION, digest(CHOICE_QUESTION)) != question_id(
        other, digest(other)
    )


def test_answers_are_sent_as_text_and_checked_by_the_core() -> None:
    assert answer_text(NUMBER_QUESTION, 0.2549) == "0.255"
    assert answer_value(NUMBER_QUESTION, "0.255") == 0.255
    assert answer_value(NUMBER_QUESTION, "abc") is None
    assert not check(NUMBER_QUESTION, answer_value(NUMBER_QUESTION, "abc")).correct
    assert answer_text(CHOICE_QUESTION, "cat") == "cat"


def test_a_number_that_rounds_to_zero_is_one_answer_not_two() -> None:
    assert answer_text(NUMBER_QUESTION, -0.0001) == answer_text(NUMBER_QUESTION, 0.0001) == "0.000"
    assert answer_text(NUMBER_QUESTION, -0.0) == "0.000"
    assert answer_text(NUMBER_QUESTION, -0.0006) == "-0.001"


@given(st.floats(-0.0005, 0.0005, exclude_min=True, exclude_max=True))
def test_every_number_that_rounds_to_zero_is_sent_as_zero(number: float) -> None:
    assert answer_text(NUMBER_QUESTION, number) == "0.000"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_number_is_sent_rounded_within_the_stores_limit_or_refused_in_words(
    number: float,
) -> None:
    try:
        text = answer_text(NUMBER_QUESTION, number)
    except UnsendableAnswerError as error:
        assert str(error) == TOO_LARGE
        assert abs(number) > 1e50  # only a number far beyond any answer here is refused
        return
    assert 1 <= len(text) <= MAX_ANSWER_CHARS
    assert not text.startswith("-0.000")
    assert math.isclose(float(text), number, rel_tol=1e-12, abs_tol=0.0005)


@pytest.mark.parametrize("number", [1e62, -1e62, 1e300, math.inf, -math.inf, math.nan])
def test_a_huge_number_or_no_number_is_refused_with_a_plain_message(number: float) -> None:
    with pytest.raises(UnsendableAnswerError, match="too large to send"):
        answer_text(NUMBER_QUESTION, number)


def test_answer_rows_list_every_choice_and_mark_the_right_one_only_once_revealed() -> None:
    counts = {"cat": 3, "the": 1}
    hidden = answer_rows(CHOICE_QUESTION, counts, revealed=False)
    assert [(row.answer, row.count, row.correct) for row in hidden] == [
        ("the", 1, None),
        ("cat", 3, None),
        ("sat", 0, None),
    ]
    shown = answer_rows(CHOICE_QUESTION, counts, revealed=True)
    assert [row.correct for row in shown] == [False, True, False]
    numbers = answer_rows(NUMBER_QUESTION, {"0.300": 1, "0.252": 2}, revealed=True)
    assert [(row.answer, row.correct) for row in numbers] == [("0.252", True), ("0.300", False)]


def test_the_live_chart_sums_the_numbers_beyond_its_rows_and_the_csv_keeps_them() -> None:
    counts = {f"0.{n:03d}": 1 + (n == 245) for n in range(230, 250)}  # 20 numbers, 0.245 twice
    hidden = chart_rows(NUMBER_QUESTION, answer_rows(NUMBER_QUESTION, counts, revealed=False))
    assert len(hidden) == CHART_NUMBERS and hidden[0].answer == "0.245"
    assert hidden[-1] == figures.AnswerCount("other numbers", 9)
    assert sum(row.count for row in hidden) == 21
    shown = chart_rows(NUMBER_QUESTION, answer_rows(NUMBER_QUESTION, counts, revealed=True))
    right, wrong = (row for row in shown if row.answer.startswith("other"))
    assert (right.answer, right.correct, wrong.answer, wrong.correct) == (
        "other right numbers",
        True,
        "other wrong numbers",
        False,
    )
    assert sum(row.count for row in shown) == 21
    choices = answer_rows(CHOICE_QUESTION, {"cat": 3}, revealed=False)
    assert chart_rows(CHOICE_QUESTION, choices) == choices
    lines = results_csv([(question_json(NUMBER_QUESTION, "d1"), counts)]).decode().splitlines()
    assert len(lines) == 1 + 20  # the header, then every number given


def test_the_chart_marks_the_right_answer_in_words_and_pattern_not_colour_alone() -> None:
    rows = answer_rows(CHOICE_QUESTION, {"cat": 3, "the": 1}, revealed=True)
    figure = figures.answers_bar(rows, NORMAL)
    bar = figure.data[0]
    assert list(bar.y) == ["the", f"cat ({figures.CORRECT_MARK})", "sat"]
    assert list(bar.x) == [1, 3, 0]
    assert list(bar.marker.pattern.shape) == ["", "/", ""]
    alt = figures.answers_alt(rows, answered=4, present=5)
    assert alt == (
        "Bar chart of the class's answers, 4 of 5 present answered. the: 1; cat: 3 (right); sat: 0."
    )


def test_a_students_answer_is_text_in_the_chart_and_no_formula_in_the_csv() -> None:
    rows = answer_rows(CHOICE_QUESTION, {"<b>x</b>": 1}, revealed=False)
    assert figures.answers_bar(rows, NORMAL).data[0].y[-1] == "&lt;b&gt;x&lt;/b&gt;"
    data = question_json(CHOICE_QUESTION, "0")
    text = results_csv([(data, {"=HYPERLINK(1)": 2, "cat": 1})]).decode("utf-8")
    rows_read = list(csv.DictReader(io.StringIO(text)))
    assert [(row["answer"], row["count"], row["right"]) for row in rows_read] == [
        ("the", "0", "no"),
        ("cat", "1", "yes"),
        ("sat", "0", "no"),
        ("'=HYPERLINK(1)", "2", "no"),
    ]


def test_the_join_link_is_the_apps_address_without_the_page_or_query() -> None:
    assert base_url("https://example.org/classroom") == "https://example.org/"
    assert base_url("http://127.0.0.1:8501/") == "http://127.0.0.1:8501/"
    assert base_url("https://host/course/classroom") == "https://host/course/"
    assert base_url(None) == "http://localhost:8501/"


def test_the_qr_code_png_draws_the_join_links_modules() -> None:
    link = "http://localhost:8501/?class=K7QH3M"
    image = np.asarray(Image.open(io.BytesIO(figures.qr_png(link))).convert("L"))
    modules = np.array(segno.make(link, error="m").matrix, dtype=bool)  # (n, n), True = dark
    quiet, scale = 4, figures.QR_SCALE  # segno's default border, in modules
    assert image.shape == ((modules.shape[0] + 2 * quiet) * scale,) * 2
    centres = image[quiet * scale + scale // 2 :: scale, quiet * scale + scale // 2 :: scale]
    np.testing.assert_array_equal(centres[: len(modules), : len(modules)] < 128, modules)


def test_a_views_several_valued_settings_travel_packed_and_never_carry_the_class() -> None:
    published = {"pe_length": "16", "class_lists": '{"pe_dims":["0","3"]}'}
    assert link_query(published) == {"pe_length": "16", "pe_dims": ["0", "3"]}
    # Anything but the one packed form, the class's code and Streamlit's own names open
    # nothing.
    for refused in (
        "not json",
        '{"pe_dims": ["0", "3"]}',
        '{"embed":["a","b"]}',
        '{"class":["X","Y"],"pe_dims":["0","3"]}',
    ):
        assert link_query({"text": "a", "class_lists": refused}) == {"text": "a"}
    assert link_query({"text": "a", "embed": "true", "class": "K7QH3M"}) == {"text": "a"}
