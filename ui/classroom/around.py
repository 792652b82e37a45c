"""What app.py draws around every page for a class: before it, the bars; after it, the view.

One call each side keeps the navigation script short: :func:`before_page` joins from a
``class=`` link, shows why a class ended, draws the teacher's or the student's bar (a
follower's app may open the teacher's view instead: nothing after that runs);
:func:`after_page` publishes a teacher's view.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ui.classroom.follow import join_from_link, student_run
from ui.classroom.state import PAGE
from ui.classroom.teaching import publish, teacher_bar
from ui.shared.class_session import show_gone_message, teaching


def before_page(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """The class bars above ``page``, or the teacher's view opened instead of it."""
    join_from_link()
    show_gone_message()
    if teaching() is not None:
        if page.url_path not in ("", PAGE):  # Home has none; the class page has its own
            teacher_bar()
        return
    student_run(page, pages)


def after_page(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """A teacher's content page (not Home, not the class page) is sent to the class."""
    publish(page, set(pages) - {PAGE})
