"""The headless client (harness/st_client.py) keeps a polling fragment alive, as a browser does.

Against harness/follow_app.py, a stand-in for the app's class following on
the real class store (SQLite in a temporary folder): a following session sends
the fragment's auto-reruns, sees a teacher's change arrive as a new query
string, answers through the app's widgets, and stops polling once a full run no
longer draws the fragment. The class session the benchmark plays (harness/class_session.py)
runs on it at a small size and counts every follow and every answer.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import pytest

from harness.class_session import Plan, Where, class_session
from harness.local_server import ROOT, running_server
from harness.st_client import TRIGGER, Session
from hosting.classroom.classes import Classes
from hosting.classroom.settings import open_store
from hosting.settings import DATA_DIR_SETTING
from tests.deploy.test_replicas import run_async

FOLLOW_APP = ROOT / "harness" / "follow_app.py"
TIMEOUT_S = 60.0
QUESTION = {
    "id": "q1",
    "prompt": "Which key does 'it' attend to most?",
    "kind": "choice",
    "choices": ["cat", "mat"],
    "correct": ["cat"],
    "explanation": "Its weight is the largest in the row.",
    "value": None,
    "tolerance": 0,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Where]:
    """The stand-in app and the teacher's side of the same SQLite store."""
    data = tmp_path_factory.mktemp("classes")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_DIR_SETTING, str(data))  # the server inherits it
        with running_server(FOLLOW_APP) as (process, url):
            yield Where(url, [process.pid], Classes(open_store("")))


def _steer(classes: Classes, code: str, key: str, seed: str) -> float:
    sent = time.perf_counter()
    classes.steer(code, key, uuid.uuid4().hex, "text", {"seed": seed})
    return sent


async def _until(condition, timeout: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def test_a_follower_polls_follows_the_teacher_and_answers(server: Where) -> None:
    url, classes = server.url, server.classes
    started = classes.start()
    code, key = started.code, started.key
    _steer(classes, code, key, "3")

    async def scenario() -> None:
        session = Session(url, "", f"class={code}")
        await session.open(TIMEOUT_S)
        # The link's run switched to the teacher's page and query (plus the class).
        assert session.views[-1].page == "text"
        assert session.views[-1].shows({"seed": "3", "class": code})
        assert len(session.auto_reruns) == 1
        assert list(session.auto_reruns.values()) == [1.0]
        await session.follow()
        assert await _until(lambda: session.polls >= 2)

        sent = _steer(classes, code, key, "7")
        view = await session.wait_for_query({"seed": "7"}, since=sent, timeout=TIMEOUT_S)
        assert view is not None and view.at > sent
        assert session.query == f"seed=7&class={code}"

        classes.ask(code, key, uuid.uuid4().hex, QUESTION)
        assert await _until(lambda: "class_answer" in session.last.widget_ids)
        await session.set_widget("class_answer", "mat", TIMEOUT_S, in_link=False)
        sent_run = await session.set_widget("class_send", TRIGGER, TIMEOUT_S)
        assert not sent_run.exceptions
        assert classes.counts(code, "q1") == {"mat": 1}
        assert session.query == f"seed=7&class={code}"  # the answer is not in the link
        await session.close()

    run_async(scenario())


def test_polling_stops_when_a_full_run_no_longer_draws_the_fragment(
    server: Where,
) -> None:
    url, classes = server.url, server.classes
    started = classes.start()
    _steer(classes, started.code, started.key, "1")

    async def scenario() -> None:
        session = Session(url, "", f"class={started.code}")
        await session.open(TIMEOUT_S)
        await session.follow()
        assert await _until(lambda: session.polls >= 1)
        classes.end(started.code, started.key, uuid.uuid4().hex)
        # The next tick sees the class gone and reruns the app, which draws no fragment.
        assert await _until(lambda: not session.auto_reruns)
        polls = session.polls
        await asyncio.sleep(2.5)  # two and a half poll intervals
        assert session.polls == polls
        await session.close()

    run_async(scenario())


def test_a_session_that_does_not_follow_sends_no_polls(server: Where) -> None:
    url, classes = server.url, server.classes
    started = classes.start()
    _steer(classes, started.code, started.key, "2")

    async def scenario() -> None:
        session = Session(url, "", f"class={started.code}")
        await session.open(TIMEOUT_S)
        await asyncio.sleep(1.5)
        assert session.auto_reruns and session.polls == 0
        await session.close()

    run_async(scenario())


def test_the_class_session_benchmark_counts_every_answer_and_every_follow(server: Where) -> None:
    plan = Plan(followers=4, others=2, steers=2, idle_s=2.0, arrival_s=1.0)
    tally = run_async(class_session(server, plan))
    assert tally.join_errors == [] and len(tally.join_s) == 4
    assert tally.missed == 0 and len(tally.follow_s) == 4 * 2
    assert tally.answers_counted == 4 and tally.answer_errors == []
    assert tally.change_errors == []
    assert tally.idle_polls > 0 and tally.idle_cpu_s > 0 and tally.teach_cpu_s > 0
