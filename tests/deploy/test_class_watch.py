"""The server's class watcher on a real server, seen on the wire (harness/st_client.py).

A student's browser sends nothing while the class is idle: the server's watcher
(ui.classroom.watch) reads the class's version and, when the teacher changed
something, reruns the student's watched fragment, which opens the teacher's view in
one full run. A student exploring on their own keeps their own view when the teacher
asks a question, and sees the question.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.class_session import QUESTION
from harness.local_server import ROOT, running_server
from harness.st_client import TRIGGER, Session
from hosting.classroom.classes import Classes
from hosting.classroom.settings import open_store
from hosting.settings import DATA_DIR_SETTING
from tests.deploy.test_headless_client import _steer
from tests.deploy.test_replicas import run_async

TIMEOUT_S = 120.0
IDLE_S = 2.0  #: eight of the watcher's ticks


class RecordingSession(Session):
    """A headless session that also records the fragment runs the server started."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fragment_runs: list[str] = []

    def _handle(self, raw: bytes | str):
        message = ForwardMsg()
        message.ParseFromString(raw)
        if message.WhichOneof("type") == "new_session":
            self.fragment_runs.extend(message.metadata.run.fragment_ids)
        return super()._handle(raw)


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Classes]]:
    data = tmp_path_factory.mktemp("classes")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_DIR_SETTING, str(data))  # the server inherits it
        with running_server(ROOT / "app.py") as (_, url):
            yield url, Classes(open_store(""))


def class_on_seed_3(classes: Classes) -> tuple[str, str]:
    """A new class (code, key) whose teacher shows the text page with seed 3."""
    started = classes.start()
    _steer(classes, started.code, started.key, "3")
    return started.code, started.key


async def joined(url: str, code: str) -> RecordingSession:
    """A student who opened the join link, showing the teacher's view, read all the time."""
    session = RecordingSession(url, "", f"class={code}")
    await session.open(TIMEOUT_S)
    await session.follow()
    view = await session.wait_for_query({"seed": "3", "class": code}, 0.0, TIMEOUT_S)
    assert view is not None and view.page == "text"
    return session


def test_an_idle_follower_sends_and_runs_nothing_and_each_view_comes_in_one_run(
    app_server: tuple[str, Classes],
) -> None:
    url, classes = app_server
    code, key = class_on_seed_3(classes)

    async def scenario() -> None:
        session = await joined(url, code)
        assert session.auto_reruns == {}  # no timer in the browser
        views, fragments = len(session.views), len(session.fragment_runs)
        await asyncio.sleep(IDLE_S)
        assert (len(session.views), len(session.fragment_runs)) == (views, fragments)

        for seed in ("7", "8"):
            sent = _steer(classes, code, key, seed)
            view = await session.wait_for_query({"seed": seed}, since=sent, timeout=TIMEOUT_S)
            assert view is not None and view.page == "text"
            # The watcher opened the teacher's link itself: one full run, no fragment's.
            assert len([v for v in session.views if v.at >= sent]) == 1
            assert len(session.fragment_runs) == fragments
            assert not session.last.exceptions
        await session.close()

    run_async(scenario())


def test_a_student_exploring_keeps_their_view_and_sees_the_teachers_question(
    app_server: tuple[str, Classes],
) -> None:
    url, classes = app_server
    code, key = class_on_seed_3(classes)

    async def scenario() -> None:
        session = await joined(url, code)
        await session.set_widget("class_stop_following", TRIGGER, TIMEOUT_S)  # the widgets now
        await session.set_widget("seed", 42, TIMEOUT_S)  # now on their own
        asked = time.perf_counter()
        classes.ask(code, key, uuid.uuid4().hex, QUESTION)
        deadline = time.monotonic() + TIMEOUT_S
        while "class_answer" not in session.last.widget_ids and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert "class_answer" in session.last.widget_ids
        assert session.views[-1].at >= asked
        assert session.views[-1].shows({"seed": "42", "class": code})
        assert not session.last.exceptions
        # The answer card (a fragment in the app) counts an answer sent from it.
        await session.set_widget("class_answer", "a", TIMEOUT_S, in_link=False)
        sent = await session.set_widget("class_send", TRIGGER, TIMEOUT_S)
        assert not sent.exceptions
        assert classes.counts(code, QUESTION["id"]) == {"a": 1}
        assert session.views[-1].shows({"seed": "42", "class": code})
        await session.close()

    run_async(scenario())
