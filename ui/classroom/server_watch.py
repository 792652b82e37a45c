"""The class watcher on a running Streamlit server: rerun a session, tell whether its
browser is connected, and the process's one :class:`ui.classroom.watch.Watcher`.

Streamlit's internals (it is pinned): an app session is not thread-safe, so a rerun is
asked of the session's event loop. tests/deploy/test_class_watch.py goes through here on
a real server.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession, AppSessionState

from ui.classroom.class_session import classes
from ui.classroom.watch import WATCHED_FRAGMENT, Link, Watcher
from ui.shared import url


def _rerun_if_idle(
    session: AppSession,
    link: Link | None,
    opening: Callable[[], None],
    declined: Callable[[], None],
) -> None:
    """On the event loop: open ``link`` in ``session``, or rerun its watched fragment.

    A link is opened as the browser's back and forward buttons open one (the link
    wins over the values the widgets hold), in one run, and its widgets' bindings are
    dropped first (:func:`ui.shared.url.drop_link_bindings`), as ``open_link`` does. A
    run under way (the student's own, or the last push's) is left alone, so no click is
    cut short: ``declined()`` says so, and the watcher asks again soon. Without the fragment
    (a run that failed before drawing it), the whole app reruns. ``opening()`` is called
    just before a link is opened, so the run that opens it knows it is not the student's.
    """
    if session._state != AppSessionState.APP_NOT_RUNNING or session._scriptrunner is not None:
        declined()
        return
    state = ClientState()
    state.CopyFrom(session._client_state)
    state.is_auto_rerun = False
    state.is_history_navigation = False
    state.fragment_id = ""
    if link is not None:
        state.page_script_hash, state.query_string = link
        state.is_history_navigation = True
        url.drop_link_bindings(session._session_state.query_params)  # no run under way
        opening()
    else:
        with contextlib.suppress(StreamlitAPIException):  # the last full run did not draw it
            state.fragment_id = session._fragment_storage.resolve_target(WATCHED_FRAGMENT)[0]
    session.request_rerun(state)


def rerun_session(
    session_id: str,
    link: Link | None,
    opening: Callable[[], None],
    declined: Callable[[], None],
) -> None:
    """Ask a connected session's app to run again, as Streamlit's "run on save" does.

    Streamlit's internals (it is pinned): the session's event loop runs the request,
    since an app session is not thread-safe. tests/deploy/test_class_watch.py goes
    through here on a real server.
    """
    session = Runtime.instance().get_app_session(session_id) if Runtime.exists() else None
    if session is None:
        declined()  # closed meanwhile: the next tick forgets it
    else:
        session._event_loop.call_soon_threadsafe(_rerun_if_idle, session, link, opening, declined)


def connected(session_id: str) -> bool:
    """Whether ``session_id``'s browser is connected to this server."""
    return Runtime.exists() and Runtime.instance().is_active_session(session_id)


@st.cache_resource(show_spinner=False)
def watcher() -> Watcher:
    """This server process's one watcher, its thread started on first use."""
    watching = Watcher(classes(), rerun_session, connected)
    stop = threading.Event()  # never set: the thread lives as long as the server
    threading.Thread(target=watching.run, args=(stop,), name="class-watcher", daemon=True).start()
    return watching
