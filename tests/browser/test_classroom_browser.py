"""A live class in Chromium: a teacher and two students, each in their own browser context.

The server is this test's own (``streamlit run app.py``) with its own SQLite folder, so a
``Classes`` opened on that folder reads what the app wrote. Students follow by the
server's watcher alone (ui.classroom.watch): nothing here reloads a student's page.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from harness.local_server import ROOT, running_server
from hosting.classroom.classes import Classes
from hosting.classroom.settings import open_store
from hosting.settings import DATA_DIR_SETTING
from tests.browser.helpers import ARTIFACTS, EXCEPTION, as_shown, wait_ready

FOLLOW_MS = 10_000  #: generous for a loaded test machine; the benchmark measures the real time
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
TEXT_BOX = ".st-key-text textarea"


@pytest.fixture()
def class_server(tmp_path: Path) -> Iterator[tuple[str, Classes]]:
    """A server whose class store is in ``tmp_path``, and a ``Classes`` on the same store."""
    before = os.environ.get(DATA_DIR_SETTING)
    os.environ[DATA_DIR_SETTING] = str(tmp_path)  # the server inherits it
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with (
            open(ARTIFACTS / "streamlit-class-server.log", "w") as log,
            running_server(ROOT / "app.py", log) as (_, url),
        ):
            yield url, Classes(open_store(""))
    finally:
        if before is None:
            os.environ.pop(DATA_DIR_SETTING, None)
        else:
            os.environ[DATA_DIR_SETTING] = before


def person(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
    page.goto(url)
    wait_ready(page)
    return page


def click(page: Page, key: str) -> None:
    page.locator(f".st-key-{key} button").first.click()
    wait_ready(page)


def shows_text(page: Page, sentence: str) -> None:
    """Wait until a follower's text page lists ``sentence`` (the server's watcher; no reload).

    A follower's sentence is a line of text, not a box (ui.classroom.listed_settings), with
    invisible word joiners inside addresses (ui.shared.safe.escape_markdown)."""
    line = page.get_by_test_id("stMarkdownContainer").filter(has_text="Sentence:")
    expect(line).to_contain_text(as_shown(f"Sentence: {sentence}"), timeout=FOLLOW_MS)
    assert page.locator(TEXT_BOX).count() == 0


def set_sentence(page: Page, sentence: str) -> None:
    box = page.locator(TEXT_BOX)
    box.fill(sentence)
    box.press("Control+Enter")
    wait_ready(page)


def no_axe_violation(page: Page) -> None:
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_TAGS}})
    assert results.violations_count == 0, results.generate_report()


def choose(page: Page, choice: str) -> None:
    page.locator(".st-key-class_answer").get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name=choice, exact=True).click()
    wait_ready(page)


def started(browser: Browser, url: str) -> tuple[Page, str]:
    """A teacher who started a class on the class page, and its code."""
    teacher = person(browser, f"{url}/classroom")
    click(teacher, "class_start")
    return teacher, teacher.locator("[data-testid='stMetricValue']").inner_text().strip()


def to_text_page(page: Page) -> None:
    page.locator("[data-testid='stSidebarNav'] a[href$='/text']").click()
    wait_ready(page)


def test_a_class_follows_answers_and_refuses_a_forged_key(
    browser: Browser, class_server: tuple[str, Classes]
) -> None:
    url, store = class_server
    teacher, code = started(browser, url)
    link = f"{url}/?class={code}"
    assert teacher.locator("[data-testid='stCode']").first.inner_text().strip() == link
    expect(teacher.get_by_role("img", name=f"QR code of the join link {link}")).to_have_count(1)
    no_axe_violation(teacher)

    to_text_page(teacher)
    set_sentence(teacher, "the cat sat on the mat")
    first = person(browser, f"{url}/?class={code}")
    second = person(browser, f"{url}/walkthrough?class={code}")
    for student in (first, second):
        shows_text(student, "the cat sat on the mat")
        assert f"class={code}" in student.url

    click(second, "class_stop_following")
    set_sentence(teacher, "a dog barked loudly")
    shows_text(first, "a dog barked loudly")
    # The server opened the teacher's link: the address bar holds it, so a reload keeps it.
    expect(first).to_have_url(re.compile(r"/text\?.*text=a(\+|%20)dog(\+|%20)barked"))
    assert f"class={code}" in first.url
    second.wait_for_timeout(2000)
    assert second.locator(TEXT_BOX).input_value() == "the cat sat on the mat"
    click(second, "class_follow_again")
    shows_text(second, "a dog barked loudly")

    teacher.locator("[class*='st-key-class_ask_'] button").first.click()
    wait_ready(teacher)
    question = store.state(code).question
    assert question is not None and question["kind"] == "choice"
    wrong = next(choice for choice in question["choices"] if choice not in question["correct"])
    for student, answer in ((first, question["correct"][0]), (second, wrong)):
        expect(student.locator(".st-key-class_answer")).to_be_visible(timeout=FOLLOW_MS)
        no_axe_violation(student)  # the class bar and the question card
        choose(student, answer)
        click(student, "class_send")
    expect(teacher.get_by_text("2 of 2 present answered")).to_be_visible(timeout=FOLLOW_MS)
    first.reload()  # the same link: the same student, present once, who has answered
    wait_ready(first)
    assert "student=" in first.url
    right = question["correct"][0]
    expect(first.get_by_text(f"You answered {right}")).to_be_visible(timeout=FOLLOW_MS)
    choose(first, wrong)
    click(first, "class_send")
    expect(first.get_by_text("You have already answered")).to_be_visible(timeout=FOLLOW_MS)
    assert store.counts(code, question["id"]) == {right: 1, wrong: 1}
    assert store.present(code) == 2
    panel = teacher.get_by_test_id("stExpander").filter(has_text="The class's answers")
    expect(panel.get_by_test_id("stPlotlyChart")).to_be_visible()
    panel.screenshot(path=str(ARTIFACTS / "class_answers.png"))  # for docs/teaching.md
    click(teacher, "class_reveal")
    expect(panel.get_by_text("Revealed. The answer is")).to_be_visible(timeout=FOLLOW_MS)
    panel.screenshot(path=str(ARTIFACTS / "class_answers_revealed.png"))
    no_axe_violation(teacher)  # the class bar and the answers chart
    expect(first.get_by_text("Correct.")).to_be_visible(timeout=FOLLOW_MS)  # reloaded, too
    expect(second.get_by_text("Not quite.")).to_be_visible(timeout=FOLLOW_MS)

    click(second, "class_leave")
    expect(second.get_by_text(f"You left class {code}.")).to_be_visible()
    assert "class=" not in second.url
    assert second.locator(".st-key-class_stop_following").count() == 0
    second.goto(f"{url}/?class={code}")  # the join link again: a reload rejoins
    shows_text(second, "a dog barked loudly")
    expect(second.get_by_text(f"Class {code} · Following the teacher")).to_be_visible()

    stranger = person(browser, f"{url}/classroom")
    stranger.get_by_text("Resume a class you teach").click()
    stranger.locator(".st-key-class_resume_code input").fill(code)
    stranger.locator(".st-key-class_resume_key input").fill("forged-key-0123456789")
    stranger.locator(".st-key-class_resume_key input").press("Enter")
    wait_ready(stranger)
    click(stranger, "class_resume")
    expect(stranger.get_by_text("the teacher key is not right")).to_be_visible()
    assert store.state(code).page == "text"
    for page in (teacher, first, second, stranger):
        assert page.locator(EXCEPTION).count() == 0


def set_seed(page: Page, seed: int) -> None:
    box = page.locator(".st-key-seed input")
    box.fill(str(seed))
    box.press("Enter")
    wait_ready(page)


def test_a_followers_sidebar_lists_the_teachers_settings_and_stopping_brings_the_widgets(
    browser: Browser, class_server: tuple[str, Classes]
) -> None:
    url, _ = class_server
    teacher, code = started(browser, url)
    to_text_page(teacher)
    set_seed(teacher, 42)
    student = person(browser, f"{url}/?class={code}")
    sidebar = student.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Seed: 42")).to_be_visible(timeout=FOLLOW_MS)
    assert sidebar.get_by_test_id("stSelectbox").count() == 0
    assert sidebar.get_by_test_id("stNumberInput").count() == 0
    no_axe_violation(student)
    set_seed(teacher, 43)
    expect(sidebar.get_by_text("Seed: 43")).to_be_visible(timeout=FOLLOW_MS)

    click(student, "class_stop_following")
    expect(student.locator(".st-key-seed input")).to_have_value("43")
    assert "seed=43" in student.url
    set_seed(student, 44)  # the student's own change, in the link as always
    expect(student).to_have_url(re.compile(r"seed=44"))
    click(student, "class_follow_again")
    expect(sidebar.get_by_text("Seed: 43")).to_be_visible(timeout=FOLLOW_MS)
    click(student, "class_stop_following")  # the teacher's value again, not the 44 of before
    expect(student.locator(".st-key-seed input")).to_have_value("43")
    click(student, "class_follow_again")  # the same view: the link keeps the settings
    expect(sidebar.get_by_text("Seed: 43")).to_be_visible(timeout=FOLLOW_MS)
    assert "seed=43" in student.url

    typed = "see www.example.com or http://evil.example/x :material/home: <b>x</b>"
    set_sentence(teacher, typed)
    shows_text(student, typed)  # as typed: no link, no icon, no markup
    line = student.get_by_test_id("stMarkdownContainer").filter(has_text="Sentence:")
    assert (
        line.count() == 1
        and line.locator("a").count() == 0
        and line.locator("span[role=img]").count() == 0
    )
    for page in (teacher, student):
        assert page.locator(EXCEPTION).count() == 0
