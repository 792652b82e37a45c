"""Writing a lesson in AppTest: add views from the pages, edit, reorder, delete, export, import.

Each test is one browser session: the draft lives in its session state only.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from attention_core.boundary import limits
from attention_core.teaching.builtin_lessons import builtin_lesson
from attention_core.teaching.lesson import Lesson, LessonStep, lesson_data, lesson_file, read_lesson
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link
from ui.classroom.around import VIEW_PAGES
from ui.lessons.draft import DRAFT_KEY, Draft, DraftStep, as_lesson, from_lesson
from ui.lessons.editor import ADD_KEY
from ui.lessons.opening import LINK_KEY, UPLOAD_KEY
from ui.lessons.player import STEP_PARAM
from ui.lessons.sharing import DOWNLOAD_KEY
from ui.lessons.state import PREFIX
from ui.shared.safe import escape_markdown, unescape_markdown

APP = str(Path(__file__).resolve().parents[2] / "app.py")
#: Three views from three pages, as their links hold them.
VIEWS = (
    ("positional_encoding", {"pe_kind": "rotary"}),
    ("text", {"heads": "4", "mask": "causal"}),
    ("walkthrough", {"step": "4"}),
)
SHARED = Lesson(
    "Scores to weights",
    (
        LessonStep(
            "text", (("heads", "1"), ("mask", "causal")), "One head", "**Look**", "Try", "weight"
        ),
        LessonStep("positional_encoding", (), "Positions", ""),
    ),
    "Two steps.",
)


def new_session() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


def open_page(at: AppTest, page: str, params: dict[str, str] | None = None) -> AppTest:
    at.query_params.clear()
    at.query_params.update(params or {})
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [error.value for error in at.exception]
    return at


def add_view(at: AppTest, page: str, params: dict[str, str]) -> AppTest:
    open_page(at, page, params)
    return at.sidebar.button(key=ADD_KEY).click().run()


def draft_of(at: AppTest) -> Draft:
    return at.session_state[DRAFT_KEY]


def errors_of(at: AppTest) -> list[str]:
    return [unescape_markdown(error.value) for error in at.error]


def with_three_views() -> AppTest:
    at = new_session()
    for page, params in VIEWS:
        add_view(at, page, params)
    return open_page(at, "lessons")


def test_three_views_from_three_pages_become_three_steps_titled_after_their_pages() -> None:
    at = new_session()
    for number, (page, params) in enumerate(VIEWS, start=1):
        add_view(at, page, {**params, "present": "1"})  # presentation mode is no setting
        assert [toast.value for toast in at.toast] == [f"Step {number} added to your lesson"]
    steps = draft_of(at).steps
    assert [(step.page, dict(step.query)) for step in steps] == [
        (page, params) for page, params in VIEWS
    ]
    assert [step.title for step in steps] == [
        "Positional encodings",
        "Text attention",
        "Walkthrough",
    ]
    open_page(at, "lessons")
    assert "### Step 2: Text attention" in [markdown.value for markdown in at.markdown]
    assert "The text page, at heads=4, mask=causal" in [
        unescape_markdown(caption.value) for caption in at.caption
    ]


def test_home_links_to_the_lessons_page_and_the_sidebar_to_the_lesson_being_written() -> None:
    at = new_session()
    assert "lessons" in [link.proto.page for link in at.get("page_link")]
    add_view(at, "walkthrough", {})
    links = [link.proto for link in at.sidebar.get("page_link")]
    assert [(link.page, link.label) for link in links] == [("lessons", "Your lesson (1 step)")]


@pytest.mark.parametrize("page", ["", "classroom", "lessons"])
def test_home_the_class_page_and_the_lessons_page_have_no_add_button(page: str) -> None:
    at = new_session()
    if page:
        open_page(at, page)
    assert ADD_KEY not in [button.key for button in at.sidebar.button]


def test_the_draft_is_kept_under_the_pages_prefix() -> None:
    assert DRAFT_KEY.startswith(PREFIX)


def test_the_lessons_page_is_never_sent_to_a_class_as_a_view() -> None:
    assert "lessons" not in VIEW_PAGES and "classroom" not in VIEW_PAGES
    assert {"text", "pretrained", "walkthrough"} <= VIEW_PAGES


def test_a_steps_title_text_prompt_and_question_are_edited() -> None:
    at = with_three_views()
    first = draft_of(at).steps[0].id
    at.text_input(key=f"lessons_step{first}_title").set_value("Rotary positions").run()
    at.text_area(key=f"lessons_step{first}_text").set_value("Turn **each** pair.").run()
    at.text_input(key=f"lessons_step{first}_prompt").set_value("Raise the base.").run()
    at.selectbox(key=f"lessons_step{first}_question").set_value("most-alike").run()
    step = draft_of(at).steps[0]
    assert (step.title, step.text, step.prompt, step.question) == (
        "Rotary positions",
        "Turn **each** pair.",
        "Raise the base.",
        "most-alike",
    )
    assert "Turn **each** pair\\." in [markdown.value for markdown in at.markdown]  # the preview


def test_steps_move_up_and_down_and_are_deleted_keeping_their_words() -> None:
    at = with_three_views()
    ids = [step.id for step in draft_of(at).steps]
    at.text_input(key=f"lessons_step{ids[2]}_title").set_value("The lecture").run()
    at.button(key=f"lessons_step{ids[2]}_up").click().run()
    assert [step.id for step in draft_of(at).steps] == [ids[0], ids[2], ids[1]]
    at.button(key=f"lessons_step{ids[0]}_down").click().run()
    assert [step.id for step in draft_of(at).steps] == [ids[2], ids[0], ids[1]]
    assert at.button(key=f"lessons_step{ids[2]}_up").disabled
    assert at.button(key=f"lessons_step{ids[1]}_down").disabled
    at.button(key=f"lessons_step{ids[0]}_delete").click().run()
    steps = draft_of(at).steps
    assert [(step.id, step.title) for step in steps] == [
        (ids[2], "The lecture"),
        (ids[1], "Text attention"),
    ]
    assert at.text_input(key=f"lessons_step{ids[2]}_title").value == "The lecture"


def test_the_downloaded_file_is_the_drafts_lesson_file_and_reads_back_equal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files: dict[str, bytes] = {}
    original = st.download_button

    def recording(label: str, data: bytes, *args: object, **kwargs: object) -> bool:
        files[str(kwargs["key"])] = data
        return original(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    at = with_three_views()
    assert DOWNLOAD_KEY not in [button.key for button in at.get("download_button")]
    assert errors_of(at) == [
        "Fix these before you preview or share the lesson:\n\n- The lesson: its title is "
        "empty; write one, or leave it out if it is optional."
    ]
    at.text_input(key="lessons_title").set_value("Three views").run()
    at.selectbox(key="lessons_step2_question").set_value("weight").run()
    assert not at.error
    lesson = as_lesson(draft_of(at))
    assert files[DOWNLOAD_KEY] == lesson_file(lesson)
    assert read_lesson(files[DOWNLOAD_KEY]) == lesson
    assert lesson.steps[1].question == "weight" and lesson.description is None


def test_every_problem_of_the_draft_is_listed_with_its_step() -> None:
    at = with_three_views()
    at.text_input(key="lessons_step2_title").set_value("").run()
    at.text_input(key="lessons_step3_title").set_value("").run()
    (message,) = errors_of(at)
    assert message.splitlines()[2:] == [
        "- The lesson: its title is empty; write one, or leave it out if it is optional.",
        "- Step 2: its title is empty; write one, or leave it out if it is optional.",
        "- Step 3: its title is empty; write one, or leave it out if it is optional.",
    ]


BAD_FILES = {
    "not JSON": (
        b'{"format": "attention-visualizer-lesson", "version": 1, "title": ',
        "The lesson file is not JSON (Expecting value at line 1, column 66); it may be cut "
        "short. Export the lesson again.",
    ),
    "wrong version": (
        json.dumps({**lesson_data(SHARED), "version": 2}).encode(),
        "This lesson is written in format version 2; this app reads version 1. Export it "
        "again from an app that writes version 1.",
    ),
    "refused setting": (
        lesson_file(
            Lesson(
                "Bad",
                (
                    SHARED.steps[1],
                    LessonStep("text", (("d_model", "64"), ("heads", "3")), "Three heads", ""),
                ),
            )
        ),
        "Step 2: the text page refuses heads=3; open the view, set it there and copy its link.",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_file_gets_one_message_naming_the_step_and_nothing_changes(name: str) -> None:
    data, message = BAD_FILES[name]
    at = with_three_views()
    before = draft_of(at)
    at.file_uploader(key=UPLOAD_KEY).set_value(("lesson.json", data, "application/json")).run()
    assert errors_of(at)[0] == message  # (the draft, untitled, has its own below)
    assert draft_of(at) == before
    keys = [button.key for button in at.button]
    assert "lessons_file_play" not in keys and "lessons_file_copy" not in keys


def test_a_good_file_opens_and_its_copy_becomes_the_draft() -> None:
    at = with_three_views()
    at.file_uploader(key=UPLOAD_KEY).set_value(
        ("l.json", lesson_file(SHARED), "application/json")
    ).run()
    assert f"**{escape_markdown(SHARED.title)}** · 2 steps" in [m.value for m in at.markdown]
    at.button(key="lessons_file_copy").click().run()
    assert as_lesson(draft_of(at)) == SHARED
    assert at.text_input(key="lessons_title").value == SHARED.title
    assert [step.id for step in draft_of(at).steps] == [4, 5]  # new widgets for new steps


@pytest.mark.parametrize("whole", [True, False], ids=["whole link", "parameter alone"])
def test_a_pasted_lesson_link_round_trips_into_the_draft(whole: bool) -> None:
    param = lesson_link(SHARED)
    pasted = f"https://example.org/?lesson={param}&lesson_step=2" if whole else param
    at = open_page(new_session(), "lessons")
    at.text_input(key=LINK_KEY).set_value(pasted).run()
    assert not at.error
    at.button(key="lessons_pasted_copy").click().run()
    assert as_lesson(draft_of(at)) == SHARED
    assert draft_of(at) == from_lesson(SHARED, 1)


def test_a_built_in_lessons_name_opens_it_and_a_damaged_link_says_so() -> None:
    at = open_page(new_session(), "lessons")
    at.text_input(key=LINK_KEY).set_value("http://localhost:8501/?lesson=time-series").run()
    lesson = builtin_lesson("time-series")
    heading = f"**{escape_markdown(lesson.title)}** · {len(lesson.steps)} steps"
    assert heading in [markdown.value for markdown in at.markdown]
    at.text_input(key=LINK_KEY).set_value(lesson_link(SHARED)[:-20]).run()
    assert errors_of(at) == [
        "The lesson in this link is damaged (it is cut short); copy the whole link again."
    ]


def test_the_add_button_refuses_a_step_past_the_lessons_limit() -> None:
    full = tuple(
        DraftStep(number, "walkthrough", (), f"Step {number}")
        for number in range(1, limits.MAX_LESSON_STEPS + 1)
    )
    at = new_session()
    at.session_state[DRAFT_KEY] = Draft("Full", steps=full, next_id=len(full) + 1)
    add_view(at, "positional_encoding", {})
    assert errors_of(at) == [
        f"Your lesson already has {limits.MAX_LESSON_STEPS} steps, the most a lesson holds. "
        "Download it, then start a new lesson for the rest."
    ]
    assert draft_of(at).steps == full
    assert not at.toast


def test_a_steps_title_is_shown_as_text_never_markup() -> None:
    title = "<b>bold</b> [x](javascript:alert(1)) :material/home:"
    at = with_three_views()
    at.text_input(key="lessons_step1_title").set_value(title).run()
    assert f"### Step 1: {escape_markdown(title)}" in [markdown.value for markdown in at.markdown]


def test_start_a_new_lesson_asks_first_and_then_empties_the_draft() -> None:
    at = with_three_views()
    at.text_input(key="lessons_title").set_value("Old").run()
    at.button(key="lessons_new").click().run()
    assert len(draft_of(at).steps) == 3
    at.button(key="lessons_new_no").click().run()
    assert len(draft_of(at).steps) == 3 and at.button(key="lessons_new")
    at.button(key="lessons_new").click().run()
    at.button(key="lessons_new_yes").click().run()
    assert draft_of(at).steps == () and at.text_input(key="lessons_title").value == ""


def bar_line(at: AppTest) -> str:
    """The lesson bar's first line: the lesson's title and "Step N of M"."""
    assert not at.exception, [error.value for error in at.exception]
    return at.markdown[0].value


def titled_three_views() -> AppTest:
    at = with_three_views()
    return at.text_input(key="lessons_title").set_value("Three views").run()


def test_play_opens_a_built_in_lessons_first_step_with_the_lesson_bar() -> None:
    at = open_page(new_session(), "lessons")
    at.button(key="lessons_play_time-series").click().run()
    lesson = builtin_lesson("time-series")
    title = escape_markdown(lesson.title)
    assert bar_line(at) == f"**{title}** · Step 1 of {len(lesson.steps)}"
    assert at.query_params[LESSON_PARAM] == "time-series" and at.query_params[STEP_PARAM] == "1"


def test_preview_from_here_plays_the_draft_from_that_step_at_its_view() -> None:
    at = titled_three_views()
    at.button(key="lessons_step2_preview").click().run()
    assert bar_line(at) == "**Three views** · Step 2 of 3"
    assert at.query_params["heads"] == "4" and at.query_params["mask"] == "causal"
    assert at.query_params[LESSON_PARAM] == lesson_link(as_lesson(draft_of(at)))


def test_the_copied_link_opens_the_lesson_in_a_new_session() -> None:
    at = titled_three_views()
    (address,) = [code.value for code in at.code]
    assert address == f"http://localhost:8501/?lesson={lesson_link(as_lesson(draft_of(at)))}"
    student = AppTest.from_file(APP, default_timeout=60)
    student.query_params[LESSON_PARAM] = address.split("lesson=", 1)[1]
    student.run()
    assert bar_line(student) == "**Three views** · Step 1 of 3"
    assert student.query_params["pe_kind"] == "rotary"


def test_a_pasted_link_plays_and_a_view_added_while_playing_leaves_the_lesson_out() -> None:
    at = open_page(new_session(), "lessons")
    at.text_input(key=LINK_KEY).set_value(lesson_link(SHARED)).run()
    at.button(key="lessons_pasted_play").click().run()
    assert bar_line(at) == "**Scores to weights** · Step 1 of 2"
    at.switch_page("views/text.py").run()  # AppTest would rerun the page it last switched to
    assert at.query_params[LESSON_PARAM] and at.query_params[STEP_PARAM] == "1"
    at.sidebar.button(key=ADD_KEY).click().run()
    (step,) = draft_of(at).steps
    assert (step.page, dict(step.query)) == ("text", {"heads": "1", "mask": "causal"})


def test_a_lesson_too_long_for_a_link_says_so_and_still_offers_its_file() -> None:
    letters = random.Random(0)  # text that does not compress: five steps of it pass the limit
    steps = tuple(
        DraftStep(number, "walkthrough", (), f"Step {number}",
                  "".join(letters.choices(string.ascii_letters, k=limits.MAX_STEP_TEXT_CHARS)))
        for number in range(1, 6)
    )  # fmt: skip
    at = new_session()
    at.session_state[DRAFT_KEY] = Draft("Long", steps=steps, next_id=6)
    open_page(at, "lessons")
    (note,) = [unescape_markdown(info.value) for info in at.info]
    assert note.startswith("This lesson is too long for a link (")
    assert note.endswith("Share it as a file instead.")
    assert not at.code
    assert DOWNLOAD_KEY in [button.key for button in at.get("download_button")]
