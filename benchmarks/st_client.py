"""A headless Streamlit client: one session over the app's own websocket protocol.

It does what the browser's frontend does on the wire and nothing more: open
``/_stcore/stream``, send a ``rerun_script`` BackMsg (the link's query string
and page name), read ForwardMsgs until ``script_finished``, and send widget
changes as ``WidgetStates``. No rendering, so hundreds of sessions cost the
client almost nothing and the server's cost is what is measured.

A widget is addressed by its user key (``seed``): element ids end with
``-<key>``. Only the changed widget's state is sent; the server keeps the
others' values from the previous run (as it does for the frontend's partial
updates). Cached-message references are never asked for (the client reports
no cached hashes), so every element arrives whole.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode, urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

TRIGGER = object()  #: set_widget(key, TRIGGER) presses a button
FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
FINISHED_EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN


class LostRunError(Exception):
    """The script did not finish in time, or the connection dropped during a run."""


@dataclass
class Run:
    """What one script run sent: widget ids by key, chart specs by key, exceptions."""

    widget_ids: dict[str, str] = field(default_factory=dict)
    charts: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    elements: int = 0
    bytes: int = 0
    seconds: float = 0.0


def _user_key(element_id: str) -> str:
    """``$$ID-<hash>-seed`` -> ``seed`` (ids of keyed elements end with their key)."""
    return element_id.split("-", 2)[2] if element_id.count("-") >= 2 else element_id


class Session:
    """One headless session on ``base`` (``http://host:port``), opened on ``page?query``.

    ``cookies``: a ``Cookie`` header to send (a load balancer's affinity
    cookie); ``upstream``: the ``X-Upstream`` response header of the websocket
    handshake, when a proxy adds it (which replica serves this session).
    """

    def __init__(self, base: str, page: str, query: str, cookies: str = "") -> None:
        parts = urlsplit(base)
        self.ws_url = f"ws://{parts.netloc}{parts.path.rstrip('/')}/_stcore/stream"
        self.page, self.query, self.cookies = page, query, cookies
        self.socket: websockets.ClientConnection | None = None
        self.upstream = ""
        self.page_script_hash = ""
        self.connects = 0
        self.last = Run()

    async def connect(self) -> None:
        headers = {"Cookie": self.cookies} if self.cookies else None
        self.socket = await websockets.connect(
            self.ws_url,
            subprotocols=["streamlit"],
            additional_headers=headers,
            max_size=None,
            open_timeout=60,
            ping_interval=None,
            compression=None,
        )
        self.upstream = self.socket.response.headers.get("X-Upstream", "")
        self.connects += 1

    async def open(self, timeout: float = 120.0) -> Run:
        """Connect and run the page from the link, as a browser opening it does."""
        await self.connect()
        return await self._rerun(None, timeout)

    async def set_widget(self, key: str, value: object, timeout=120.0) -> Run:
        """Change one widget (by user key), or press a button (``TRIGGER``), and wait for the run.

        As the frontend does for a URL-bound widget, the link's ``key`` becomes
        the new value too, so a reconnect reopens the view as it is now.
        """
        if value is not TRIGGER:
            params = dict(parse_qsl(self.query, keep_blank_values=True))
            params[key] = str(value).lower() if isinstance(value, bool) else str(value)
            self.query = urlencode(params)
        return await self._rerun((self.last.widget_ids[key], value), timeout)

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def _rerun(self, change: tuple[str, object] | None, timeout: float) -> Run:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query
        if self.page_script_hash:  # later runs name the page by hash, as the frontend does
            state.page_script_hash = self.page_script_hash
        else:
            state.page_name = self.page
        if change is not None:
            widget = state.widget_states.widgets.add()
            widget.id = change[0]
            _set_value(widget, change[1])
        start = time.perf_counter()
        try:
            await self.socket.send(message.SerializeToString())
            run = await asyncio.wait_for(self._read_run(), timeout)
        except (TimeoutError, websockets.ConnectionClosed) as error:
            raise LostRunError(str(error) or type(error).__name__) from error
        run.seconds = time.perf_counter() - start
        self.last = run
        return run

    async def _read_run(self) -> Run:
        run = Run()
        while True:
            raw = await self.socket.recv()
            run.bytes += len(raw)
            message = ForwardMsg()
            message.ParseFromString(raw)
            kind = message.WhichOneof("type")
            if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                _record(run, message.delta.new_element)
            elif kind == "navigation":
                self.page_script_hash = message.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query = message.page_info_changed.query_string
            elif kind == "script_finished":
                if message.script_finished == FINISHED_EARLY_FOR_RERUN:
                    run = Run()  # a newer run follows; only its output counts
                    continue
                return run


def affinity_cookie(base: str, name: str = "st_replica") -> str:
    """The ``Cookie`` header a browser would send after loading the page once.

    Behind deploy/'s nginx, that cookie pins the session to one replica.
    """
    with urllib.request.urlopen(f"{base}/", timeout=120) as response:
        for header in response.headers.get_all("Set-Cookie") or []:
            morsel = SimpleCookie(header).get(name)
            if morsel is not None:
                return f"{name}={morsel.value}"
    return ""


def _record(run: Run, element) -> None:
    run.elements += 1
    kind = element.WhichOneof("type")
    body = getattr(element, kind)
    element_id = getattr(body, "id", "")
    if kind == "exception":
        run.exceptions.append(f"{body.type}: {body.message}")
    elif kind == "plotly_chart":
        run.charts[_user_key(element_id)] = body.spec
    elif element_id:
        run.widget_ids[_user_key(element_id)] = element_id


def _set_value(widget, value: object) -> None:
    if value is TRIGGER:
        widget.trigger_value = True
    elif isinstance(value, bool):
        widget.bool_value = value
    elif isinstance(value, int):
        widget.int_value = value
    elif isinstance(value, float):
        widget.double_value = value
    else:
        widget.string_value = str(value)
