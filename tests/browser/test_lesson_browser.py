"""Playing a lesson in Chromium: the lesson bar by keyboard, axe-core, a phone's width, and
a lesson played to a class of two students (step, ask, answer, reveal)."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from attention_core.teaching.builtin_lessons import COURSE, builtin_lesson
from attention_core.teaching.lesson import Lesson, LessonStep
from attention_core.teaching.lesson_link import lesson_link
from hosting.classroom.classes import Classes
from tests.browser.helpers import ARTIFACTS, EXCEPTION, wait_ready
from tests.browser.test_classroom_browser import (  # noqa: F401  (a fixture)
    FOLLOW_MS,
    choose,
    class_server,
    click,
    no_axe_violation,
    person,
)

BAR = ".st-key-lesson_bar"
PHONE = {"width": 390, "height": 844}
MAX_TABS = 40  #: Tab presses that must reach the lesson bar's Next from the top of the page
SENTENCE = "the cat sat on the mat"
CLASS_LESSON = Lesson(
    "Masks in class",
    (
        LessonStep("text", (("text", SENTENCE), ("mask", "causal")), "Causal", "Each row.",
                   prompt="Which weights are zero?", question="mask"),
        LessonStep("text", (("text", SENTENCE), ("mask", "sliding")), "Sliding", "A window.",
                   question="mask"),
    ),
)  # fmt: skip


def bar_says(page: Page, text: str) -> None:
    expect(page.locator(BAR)).to_contain_text(text, timeout=FOLLOW_MS)


def tab_to(page: Page, name: str) -> None:
    """Press Tab until the focused element is the button called ``name``; fail if never."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.innerText || ''")
        if focused.strip().splitlines()[-1:] == [name]:  # after an icon's ligature, if any
            return
    raise AssertionError(f"{MAX_TABS} Tab presses never reached {name!r}")


def test_the_course_starts_from_home_and_steps_by_keyboard_and_resumes_on_reload(
    browser: Browser, app_url: str
) -> None:
    course = builtin_lesson(COURSE)
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(app_url)
    wait_ready(page)
    tab_to(page, "Start the course")
    page.keyboard.press("Enter")
    wait_ready(page)
    bar_says(page, f"Step 1 of {len(course.steps)}")
    expect(page).to_have_url(
        re.compile(rf"lesson={COURSE}.*lesson_step=1|lesson_step=1.*lesson={COURSE}")
    )
    no_axe_violation(page)
    page.locator(BAR).screenshot(path=str(ARTIFACTS / "lesson_bar.png"))  # for docs/lessons.md
    tab_to(page, "Next")
    page.keyboard.press("Enter")
    wait_ready(page)
    bar_says(page, f"Step 2 of {len(course.steps)}")
    bar_says(page, course.steps[1].title)
    expect(page).to_have_url(re.compile(rf"/{course.steps[1].page}\?.*lesson_step=2"))
    page.reload()
    wait_ready(page)
    bar_says(page, f"Step 2 of {len(course.steps)}")
    assert page.locator(EXCEPTION).count() == 0


def test_the_lesson_bar_fits_a_phone_and_passes_axe(browser: Browser, app_url: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{app_url}/?lesson={COURSE}&lesson_step=1")
    wait_ready(page)
    bar_says(page, "Step 1 of")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width} px wide"
    for name in ("lesson_back", "lesson_next", "lesson_restore", "lesson_close"):
        box = page.locator(f".st-key-{name} button").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    no_axe_violation(page)


def test_a_lesson_played_to_a_class_moves_both_students_who_answer_the_steps_question(
    browser: Browser,
    class_server: tuple[str, Classes],  # noqa: F811  (the fixture imported above)
) -> None:
    url, store = class_server
    # The teacher opens the lesson, starts a class from the menu (the lesson stays), and
    # goes back to the step's view, which the class then shows.
    teacher = person(browser, f"{url}/text?lesson={lesson_link(CLASS_LESSON)}&lesson_step=1")
    bar_says(teacher, "Step 1 of 2")
    teacher.locator("[data-testid='stSidebarNav'] a[href$='/classroom']").click()
    wait_ready(teacher)
    click(teacher, "class_start")
    code = teacher.locator("[data-testid='stMetricValue']").inner_text().strip()
    bar_says(teacher, "Step 1 of 2")
    click(teacher, "lesson_restore")
    assert store.state(code).query["mask"] == "causal"
    students = [person(browser, f"{url}/?class={code}") for _ in range(2)]
    for student in students:
        bar_says(student, "Masks in class · Step 1 of 2")
        assert student.locator(".st-key-lesson_next").count() == 0  # the teacher moves them
    click(teacher, "lesson_next")
    for student in students:
        bar_says(student, "Step 2 of 2")
        expect(student).to_have_url(re.compile(r"mask=sliding"))
    teacher.locator("[class*='st-key-class_ask_'] button").first.click()
    wait_ready(teacher)
    question = store.state(code).question
    assert question is not None and (question["lesson"], question["step"]) == ("Masks in class", 2)
    for student in students:
        expect(student.locator(".st-key-class_answer")).to_be_visible(timeout=FOLLOW_MS)
        choose(student, question["correct"][0])
        click(student, "class_send")
    expect(teacher.get_by_text("2 of 2 present answered")).to_be_visible(timeout=FOLLOW_MS)
    click(teacher, "class_reveal")
    for student in students:
        expect(student.get_by_text("Correct.")).to_be_visible(timeout=FOLLOW_MS)
    no_axe_violation(teacher)
    assert store.counts(code, question["id"]) == {question["correct"][0]: 2}
    for page in (teacher, *students):
        assert page.locator(EXCEPTION).count() == 0
