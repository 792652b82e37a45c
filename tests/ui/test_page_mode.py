"""A page's controls and its "Check yourself" ask the session's mode (ui.shared.page_mode).

Alone, a page draws its widgets and shows every question. A mode installed for the
session decides instead, here one that no class is behind: where the settings come from,
whether they are the session's to change, the folding, a held question and what goes
under each "Check" (the class's own mode is tested in tests/views/test_classroom.py).
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.shared import page_mode
from ui.shared.check_yourself import OPEN_KEY

FOLDED = "Folded by the scripted mode."
HELD = "Held by the scripted mode."


def page_script(install: bool) -> None:
    """The model settings, the padding hint and two questions, as a page draws them."""
    from collections.abc import Callable

    import streamlit as st

    from attention_core.teaching.questions import CHOICE, Question
    from ui.shared import page_mode
    from ui.shared.check_yourself import check_yourself
    from ui.shared.control_source import Drawn
    from ui.shared.controls import attention_controls
    from ui.text.mask_inputs import padding_hint

    class Scripted:
        """A mode that says the same on every run and notes what it was asked."""

        def read_settings(self, read: Callable[[Drawn], object], note: bool = True) -> object:
            st.session_state.setdefault("settings_read", []).append(note)
            return read(Drawn())

        def settings_fixed(self) -> bool:
            return True

        def questions_folded(self) -> str | None:
            return "Folded by the scripted mode."

        def question_held(self, question: Question) -> str | None:
            return "Held by the scripted mode." if question.id == "held" else None

        def beside_question(self, question: Question, widget_key: str) -> None:
            st.caption(f"beside {widget_key}")

    if install:
        page_mode.use(Scripted())
    st.session_state["config"] = attention_controls()
    padding_hint(["the", "cat"], "text")
    questions = [
        Question("asked", "Which token?", CHOICE, "", choices=("the", "cat"), correct=("cat",)),
        Question("held", "Which other?", CHOICE, "", choices=("the", "cat"), correct=("the",)),
    ]
    check_yourself("test", lambda: questions)


def opened(install: bool) -> AppTest:
    at = AppTest.from_function(page_script, args=(install,), default_timeout=30).run()
    assert not at.exception, [element.value for element in at.exception]
    return at


def test_alone_a_page_draws_its_widgets_shows_every_question_and_offers_the_padding_button() -> (
    None
):
    at = opened(install=False)
    assert page_mode.MODE_KEY not in at.session_state
    assert at.sidebar.selectbox and at.sidebar.number_input  # the widgets are the settings
    assert at.button[0].label == "Append two `<pad>` tokens"
    checks = [button.label for button in at.button if button.label.startswith("Check answer")]
    assert checks == ["Check answer 1", "Check answer 2"]
    assert OPEN_KEY not in [toggle.key for toggle in at.toggle]
    assert HELD not in [info.value for info in at.info]


def test_an_installed_mode_decides_the_settings_the_folding_the_held_question_and_beside() -> None:
    at = opened(install=True)
    assert at.session_state["settings_read"] == [True]  # the sidebar asked the mode, once
    assert at.sidebar.selectbox  # which, here, gave the widgets
    assert not [button for button in at.button if "pad" in button.label]  # settings fixed
    assert FOLDED in [caption.value for caption in at.caption]
    assert not [button for button in at.button if button.label.startswith("Check answer")]

    at.toggle(key=OPEN_KEY).set_value(True).run()
    checks = [button.label for button in at.button if button.label.startswith("Check answer")]
    assert checks == ["Check answer 1"]  # the second question is held, shown without "Check"
    assert HELD in [info.value for info in at.info]
    assert "beside check_test_1_asked" in [caption.value for caption in at.caption]
