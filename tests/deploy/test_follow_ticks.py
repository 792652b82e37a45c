"""The app's follow tick on a real server, seen on the wire (benchmarks/st_client.py).

A follower's app opens the teacher's view in one run, and every full run draws the
tick under the other of its two fragment ids (ui.classroom.follow._draw_poll). A tick
of the fragment the previous run drew, sent before the browser heard of the new run,
must then be ignored: under load such a tick, landing between the end of a full run
and the sending of its messages, made Streamlit drop those messages, and the
follower stopped polling (the class-session benchmark missed 166 views of 600).
A tick of the old id that lands while the new run is still under way is queued behind
it instead, and must leave the view whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.st_client import Session
from hosting.classroom.classes import Classes
from hosting.classroom.settings import DATA_DIR_SETTING, open_store
from hosting.local_server import ROOT, running_server
from tests.deploy.test_headless_client import _steer
from tests.deploy.test_replicas import run_async

TIMEOUT_S = 120.0


class RecordingSession(Session):
    """A headless session that also records which fragments the server ran."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fragment_runs: list[str] = []
        self.stale_tick: str | None = None  #: sent as soon as the next full run starts
        self.full_runs_started = 0

    def _handle(self, raw: bytes | str):
        message = ForwardMsg()
        message.ParseFromString(raw)
        if message.WhichOneof("type") == "new_session":
            self.fragment_runs.extend(message.metadata.run.fragment_ids)
            if not message.metadata.run.fragment_ids:
                self.full_runs_started += 1
                if self.stale_tick is not None:  # the browser's timer, a moment too late
                    asyncio.get_running_loop().create_task(self.tick(self.stale_tick))
                    self.stale_tick = None
        return super()._handle(raw)

    async def tick(self, fragment_id: str) -> None:
        """One auto-rerun of ``fragment_id``, as the browser's timer sends it."""
        message = BackMsg()
        message.rerun_script.query_string = self.query
        message.rerun_script.page_script_hash = self.page_script_hash
        message.rerun_script.fragment_id = fragment_id
        message.rerun_script.is_auto_rerun = True
        await self.socket.send(message.SerializeToString())


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


async def joined(url: str, code: str) -> tuple[RecordingSession, str]:
    """A follower that opened the join link and polls: the session and its tick's id."""
    session = RecordingSession(url, "", f"class={code}")
    await session.open(TIMEOUT_S)
    (tick,) = session.auto_reruns
    await session.follow()
    return session, tick


def test_a_follower_opens_each_view_in_one_run_and_ignores_a_stale_tick(
    app_server: tuple[str, Classes],
) -> None:
    url, classes = app_server
    code, key = class_on_seed_3(classes)

    async def scenario() -> None:
        session, first = await joined(url, code)
        assert session.views[-1].page == "text"
        assert session.views[-1].shows({"seed": "3", "class": code})

        sent = _steer(classes, code, key, "7")
        view = await session.wait_for_query({"seed": "7"}, since=sent, timeout=TIMEOUT_S)
        assert view is not None and view.page == "text"
        # One full run showed it: the tick opened the link itself.
        assert len([v for v in session.views if v.at >= sent]) == 1
        (second,) = session.auto_reruns
        assert second != first  # the new run draws the tick under the other id

        ran = len(session.fragment_runs)
        await session.tick(first)  # a tick of the previous run's fragment
        await asyncio.sleep(2.5)  # the live tick runs twice meanwhile
        assert first not in session.fragment_runs[ran:]
        assert second in session.fragment_runs[ran:]
        assert session.auto_reruns == {second: 1.0}
        await session.close()

    run_async(scenario())


def test_a_stale_tick_that_lands_while_the_new_view_runs_leaves_the_view_whole(
    app_server: tuple[str, Classes],
) -> None:
    """The tick of the previous run's fragment, sent just as the new run starts.

    It reaches the server while that run is under way (longer now that a class's
    followers take turns: ui.classroom.around.run_turn). Streamlit keeps a fragment
    until the full run that leaves it out ends, so the tick is queued behind the run
    rather than ignored; it must neither interrupt the run nor keep the browser from
    hearing that the view is complete, and the run must still start the live tick.
    """
    url, classes = app_server
    code, key = class_on_seed_3(classes)

    async def scenario() -> None:
        session, first = await joined(url, code)
        for turn, seed in enumerate(("11", "12", "13")):
            session.stale_tick = first
            runs = session.full_runs_started
            sent = _steer(classes, code, key, seed)
            view = await session.wait_for_query({"seed": seed}, since=sent, timeout=30.0)
            assert view is not None, f"change {turn}: the view never finished"
            assert session.stale_tick is None  # it was sent
            assert session.full_runs_started == runs + 1
            (live,) = session.auto_reruns
            assert live != first  # the run started the other id's tick
            first = live
        await session.close()

    run_async(scenario())
