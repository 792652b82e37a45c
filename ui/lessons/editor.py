"""The sidebar's "Add this view as a step": a button on every content page, drawn by app.py.

The step is the page's URL path and its link's settings as they are now, minus the link's
parameters that are not part of a view (a lesson being played, presentation mode, a
class …) and any the page does not bind; its view is checked as a lesson file's would be
(:func:`ui.lessons.views.check_view`) before it joins this session's draft
(``ui.lessons.draft``).
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson_schema import PAGE_QUESTIONS
from hosting.classroom.views import LISTS_PARAM, pack_lists, unpack_lists
from ui.classroom.class_session import published_query
from ui.classroom.listed_settings import NotPlainError
from ui.lessons import draft
from ui.lessons.player import VIEW_EXTRA_PARAMS
from ui.lessons.state import PREFIX
from ui.lessons.views import PAGE_LINKS, check_view
from ui.shared.safe import show_error

ADD_KEY = f"{PREFIX}add_view"
ADD_LABEL = "Add this view as a step"
#: Streamlit's own link parameters: never a page's setting.
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


def view_query(page: str, params: Mapping[str, str]) -> dict[str, str]:
    """``params`` (one text per name, several values packed as a class packs them,
    :func:`ui.classroom.class_session.published_query`) as ``page``'s view: only the
    settings it binds.
    """
    not_view = VIEW_EXTRA_PARAMS | STREAMLIT_PARAMS
    view = {key: value for key, value in params.items() if key not in not_view}
    try:
        bound = PAGE_LINKS[page].keys(view)
    except NotPlainError:
        return view  # check_view names the refused setting
    lists = {
        name: values
        for name, values in (unpack_lists(view.get(LISTS_PARAM, "{}")) or {}).items()
        if name in bound
    }
    kept = {key: value for key, value in view.items() if key in bound}
    return kept | ({LISTS_PARAM: pack_lists(lists)} if lists else {})


def add_current_view(page: st.Page) -> int:
    """Add ``page`` at this run's link to the draft: the new step's number, or InputError."""
    query = view_query(page.url_path, published_query())
    check_view(len(draft.current().steps) + 1, page.url_path, query)
    return draft.add_view(page.url_path, query, page.title)


def add_view_button(page: st.Page, lessons_page: st.Page) -> None:
    """The sidebar's "Add this view as a step" and a link to the lesson, on a content page."""
    if page.url_path not in PAGE_QUESTIONS:
        return  # Home, the class page and the Lessons page are not views a lesson shows
    with st.sidebar:
        pressed = st.button(
            ADD_LABEL,
            key=ADD_KEY,
            icon=":material/playlist_add:",
            help="Adds this page, at its settings now, to the lesson you are writing.",
        )
        if pressed:
            try:
                number = add_current_view(page)
            except InputError as error:
                show_error(str(error))
            else:
                st.toast(f"Step {number} added to your lesson", icon=":material/check:")
                st.caption(f"Step {number} added to your lesson.")
        count = len(draft.current().steps)
        if count:
            steps = "1 step" if count == 1 else f"{count} steps"
            st.page_link(lessons_page, label=f"Your lesson ({steps})", icon=":material/edit:")
