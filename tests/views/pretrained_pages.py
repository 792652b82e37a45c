"""Driving the pretrained page in AppTest: open it with a link, read what it shows as text."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.shared.safe import unescape_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "views" / "pretrained.py")


def page(**params: str) -> AppTest:
    """The page opened with ``params`` as its link's query, run once without an exception."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def markdown(at: AppTest) -> str:
    """Every Markdown block and caption of the run, joined."""
    return " ".join(block.value for block in [*at.markdown, *at.caption])


def unescaped(text: str) -> str:
    """A message as shown: the Markdown escapes of user text removed."""
    return unescape_markdown(text)


def fresh_model_menu() -> None:
    """Forget the server's model settings and menu (cached), so a test's settings count."""
    from ui.pretrained import models

    models.choices.clear()
    models.model_settings.clear()
