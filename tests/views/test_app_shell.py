"""The navigation script: landing page and presentation mode, with AppTest."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_landing_page_explains_attention_with_the_formula() -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "Attention Visualizer"
    assert any("softmax" in latex.value for latex in at.latex)


def test_present_query_parameter_turns_presentation_mode_on() -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert at.sidebar.toggle(key="present").value is True
    assert at.session_state["present"] is True


def test_presentation_mode_is_off_by_default_and_toggles() -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    toggle = at.sidebar.toggle(key="present")
    assert toggle.value is False
    toggle.set_value(True).run()
    assert at.session_state["present"] is True
    assert at.query_params["present"] == "1"
