"""The navigation script: landing page and presentation mode, with AppTest."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hosting import collector

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


def test_a_run_that_imported_modules_freezes_them_out_of_the_collectors_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "_modules_frozen", 0)  # as a server's first run
    gc.unfreeze()
    try:
        at = AppTest.from_file(APP, default_timeout=30).run()
        assert not at.exception
        assert gc.get_freeze_count() > 0
        assert collector._modules_frozen > 0
    finally:
        gc.unfreeze()


def test_a_session_makes_its_pages_once_and_keeps_them_to_itself() -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    pages = at.session_state["app_pages"]
    assert set(pages) >= {"text", "walkthrough", "lessons"}
    at.switch_page("views/text.py").run()
    assert not at.exception
    assert at.title[0].value == "Text attention"
    at.switch_page("views/walkthrough.py").run()
    assert not at.exception
    assert at.session_state["app_pages"] is pages  # the same objects, run after run
    other = AppTest.from_file(APP, default_timeout=30).run()
    assert not other.exception
    # A page notes whether it may run next: another session's runs never touch this one's.
    assert all(other.session_state["app_pages"][name] is not pages[name] for name in pages)
