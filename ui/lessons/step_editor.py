"""One step of the lesson being written: its view (read-only), its words, its question, its place.

Each widget's key holds the step's ``id`` (``lessons_step7_title``), so a step's widgets
keep their text when it moves. A widget is filled from the draft when it has no state of
its own yet (the first time, or back from another page, where Streamlit forgets it).
Move up, Move down and Delete change the draft in their callbacks, before the page draws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from attention_core.boundary import limits
from attention_core.teaching.lesson_schema import PAGE_QUESTIONS
from ui.lessons import draft
from ui.lessons.draft import DraftStep
from ui.lessons.state import PREFIX
from ui.lessons.text import step_markdown
from ui.shared import url
from ui.shared.safe import escape_markdown

NO_QUESTION = "none"
TEXT_HELP = (
    "A few lines. Blank line: a new paragraph; a line starting with '- ': a list item; "
    "**bold**, *italic* and `code` within a line. Nothing else is markup."
)


@dataclass(frozen=True)
class StepEdit:
    """A step as its widgets left it, and whether "Preview from here" was pressed."""

    step: DraftStep
    preview: bool


def seeded(key: str, value: object) -> str:
    """``key``, holding ``value`` unless its widget already has a value of its own."""
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def view_summary(step: DraftStep) -> str:
    """The step's page and settings in one line, as text."""
    settings = ", ".join(f"{name}={url.shorten(value)}" for name, value in step.query)
    page = step.page.replace("_", " ")
    return f"The {page} page, at {settings or 'its default settings'}"


def _question(step: DraftStep, key: str) -> str | None:
    kinds = PAGE_QUESTIONS[step.page]
    if not kinds:
        st.caption("This page asks no Check yourself questions yet.")
        return None
    picked = st.selectbox(
        "Question (Check yourself, from this step's numbers)",
        [NO_QUESTION, *kinds],
        key=seeded(key, step.question or NO_QUESTION),
        format_func=lambda kind: "No question" if kind == NO_QUESTION else kind,
    )
    return None if picked == NO_QUESTION else picked


def _words(step: DraftStep, key: str) -> DraftStep:
    title = st.text_input(
        "Step title",
        key=seeded(f"{key}_title", step.title),
        max_chars=limits.MAX_LESSON_TITLE_CHARS,
    )
    text = st.text_area(
        "Text",
        key=seeded(f"{key}_text", step.text),
        max_chars=limits.MAX_STEP_TEXT_CHARS,
        help=TEXT_HELP,
    )
    if text.strip():
        with st.container(border=True):
            st.caption("Preview of the text")
            st.markdown(step_markdown(text))
    prompt = st.text_input(
        "Something to try (optional)",
        key=seeded(f"{key}_prompt", step.prompt),
        max_chars=limits.MAX_STEP_PROMPT_CHARS,
        placeholder="Switch the mask to causal. Which weights become zero?",
    )
    question = _question(step, f"{key}_question")
    return replace(step, title=title, text=text, prompt=prompt, question=question)


def _place_buttons(step: DraftStep, number: int, count: int, key: str) -> bool:
    """Move up, Move down, Delete (callbacks) and Preview from here (pressed or not)."""
    up, down, delete, preview = st.columns(4)
    up.button("Move up", key=f"{key}_up", icon=":material/arrow_upward:",
              disabled=number == 1, on_click=draft.move, args=(step.id, -1))  # fmt: skip
    down.button("Move down", key=f"{key}_down", icon=":material/arrow_downward:",
                disabled=number == count, on_click=draft.move, args=(step.id, 1))  # fmt: skip
    delete.button("Delete", key=f"{key}_delete", icon=":material/delete:",
                  on_click=draft.delete, args=(step.id,))  # fmt: skip
    return preview.button("Preview from here", key=f"{key}_preview",
                          icon=":material/play_arrow:")  # fmt: skip


def step_editor(step: DraftStep, number: int, count: int) -> StepEdit:
    """Step ``number`` of ``count``, in a bordered box: what it shows, its words, its place."""
    key = f"{PREFIX}step{step.id}"
    with st.container(border=True):
        heading = st.empty()  # filled once the title's widget has its value
        st.caption(escape_markdown(view_summary(step)))
        edited = _words(step, key)
        heading.markdown(f"### Step {number}: {escape_markdown(edited.title)}")
        preview = _place_buttons(step, number, count, key)
    return StepEdit(edited, preview)
