"""ui.loop_handoff on a running server: every element of a run arrives, in order, once.

A script installs the handoff as app.py does, then draws a placeholder replaced 100 times
and 3,000 numbered lines, pausing now and then so that the event loop catches up and
batches start afresh; a headless client (harness/st_client.py) reads what it is sent,
run after run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.local_server import ROOT, running_server
from harness.st_client import Run, Session
from tests.deploy.test_replicas import run_async

LINES = 3000
SCRIPT = """
import sys
import time

sys.path.insert(0, {root!r})

import streamlit as st
from streamlit.runtime.app_session import AppSession

from ui.loop_handoff import install

install()
st.text("installed" if hasattr(AppSession._call_soon_on_event_loop, "__wrapped__") else "not")
slot = st.empty()
for number in range(100):
    slot.text(f"slot {{number}}")
for number in range({lines}):
    st.text(f"line {{number}}")
    if number % 700 == 0:
        time.sleep(0.02)
st.text("end")
"""


class Recording(Session):
    """A session that keeps each text element it is sent, with where it goes."""

    def __init__(self, base: str, page: str, query: str) -> None:
        super().__init__(base, page, query)
        self.texts: list[tuple[tuple[int, ...], str]] = []

    def _handle(self, raw: bytes | str) -> Run | None:
        message = ForwardMsg()
        message.ParseFromString(raw)
        if message.WhichOneof("type") == "delta":
            element = message.delta.new_element
            if element.WhichOneof("type") == "text":
                self.texts.append((tuple(message.metadata.delta_path), element.text.body))
        return super()._handle(raw)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    script = Path(tmp_path_factory.mktemp("handoff")) / "many_elements.py"
    script.write_text(SCRIPT.format(root=str(ROOT), lines=LINES), encoding="utf-8")
    with running_server(script) as (_process, url):
        yield url


def test_every_element_of_every_run_arrives_in_order(server: str) -> None:
    async def runs() -> list[list[tuple[tuple[int, ...], str]]]:
        session = Recording(server, "", "")
        seen = []
        await session.open(120)
        seen.append(session.texts)
        for _ in range(3):
            session.texts = []
            await session._rerun(None, 120)
            seen.append(session.texts)
        await session.close()
        return seen

    seen = run_async(runs())
    assert len(seen) == 4
    for number, texts in enumerate(seen):
        bodies = [body for _path, body in texts]
        assert bodies[0] == "installed", number
        slot_path = texts[1][0]
        at_slot = [body for path, body in texts if path == slot_path]
        assert at_slot[-1] == "slot 99"  # replaced in place; the last one stays
        assert at_slot == sorted(at_slot, key=lambda body: int(body.split()[1]))
        others = [body for path, body in texts[1:] if path != slot_path]
        assert others == [f"line {n}" for n in range(LINES)] + ["end"]
        paths = [path for path, _body in texts if path != slot_path]
        assert paths == sorted(paths)  # each where it goes, in the order drawn
