"""Writing and sharing a lesson in Chromium: three views become a lesson, its file is
downloaded, opened in a new browser context (another person, another session) and played.

The views are added through the app's own navigation: opening an address anew starts a
new session, and the lesson being written lives in the session.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from attention_core.teaching.lesson import read_lesson
from tests.browser.helpers import EXCEPTION, no_axe_violations, screenshot, wait_ready

VIEWPORT = {"width": 1400, "height": 1600}
PHONE = {"width": 390, "height": 844}
#: The first view opens at its link; the next two are reached through the navigation.
FIRST_VIEW = "/positional_encoding?pe_kind=rotary"
NEXT_VIEWS = (("Text attention", "Text attention"), ("Walkthrough", "Classroom walkthrough"))
TITLE = "Three views"


def click(page: Page, key: str) -> None:
    page.locator(f".st-key-{key} button").first.click()
    wait_ready(page)


def add_this_view(page: Page, number: int) -> None:
    click(page, "lessons_add_view")
    expect(page.get_by_text(f"Step {number} added to your lesson.")).to_be_visible()


def navigate(page: Page, link: str, heading: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=60_000)
    wait_ready(page)


def write_three_views(page: Page, app_url: str) -> None:
    page.goto(app_url + FIRST_VIEW)
    expect(page.get_by_role("heading", name="Positional encodings")).to_be_visible(timeout=60_000)
    wait_ready(page)
    add_this_view(page, 1)
    for number, (link, heading) in enumerate(NEXT_VIEWS, start=2):
        navigate(page, link, heading)
        add_this_view(page, number)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Your lesson (3 steps)").click()
    expect(page.get_by_role("heading", name="Your lesson")).to_be_visible(timeout=60_000)
    wait_ready(page)
    title = page.locator(".st-key-lessons_title input")
    title.fill(TITLE)
    title.press("Enter")
    wait_ready(page)
    expect(page.locator(".st-key-lessons_download button").first).to_be_visible()


def test_a_lesson_of_three_views_is_exported_imported_elsewhere_and_played(
    browser: Browser, app_url: str, tmp_path: Path
) -> None:
    writer = browser.new_context(viewport=VIEWPORT, accept_downloads=True).new_page()
    write_three_views(writer, app_url)
    with writer.expect_download() as download:
        writer.locator(".st-key-lessons_download button").first.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "three-views.json"
    lesson = read_lesson(saved.read_bytes())
    assert lesson.title == TITLE
    assert [(step.page, step.params) for step in lesson.steps] == [
        ("positional_encoding", {"pe_kind": "rotary"}),
        ("text", {}),
        ("walkthrough", {}),
    ]

    reader = browser.new_context(viewport=VIEWPORT).new_page()  # another person
    reader.goto(app_url + "/lessons")
    wait_ready(reader)
    reader.locator(".st-key-lessons_upload input[type=file]").set_input_files(saved)
    wait_ready(reader)
    expect(reader.get_by_text(f"{TITLE} · 3 steps")).to_be_visible()
    expect(reader.locator(EXCEPTION)).to_have_count(0)
    click(reader, "lessons_file_play")
    expect(reader.get_by_text("Step 1 of 3")).to_be_visible(timeout=60_000)
    expect(reader).to_have_url(re.compile(r"/positional_encoding\?"))
    reader.get_by_role("button", name="Next").first.click()
    wait_ready(reader)
    expect(reader.get_by_text("Step 2 of 3")).to_be_visible(timeout=60_000)
    expect(reader).to_have_url(re.compile(r"/text(\?|$)"))


def test_the_lessons_page_with_a_draft_of_three_steps_passes_axe_and_fits_a_phone(
    page: Page, app_url: str
) -> None:
    page.set_viewport_size(VIEWPORT)
    write_three_views(page, app_url)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    no_axe_violations(page)
    screenshot(page, "lesson_editor")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(500)
    no_axe_violations(page)
    overflow = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=stMain] *')]"
        ".filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)"
        ".map(e => e.tagName + '.' + e.className).slice(0, 5)"
    )
    assert overflow == [], overflow
