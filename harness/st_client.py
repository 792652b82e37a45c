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

A session that :meth:`Session.follow` s reads the socket all the time, as a
browser tab does, and keeps every ``st.fragment(run_every=...)`` alive: on the
server's ``auto_rerun`` message it sends that fragment's rerun (same page and
query string, ``is_auto_rerun``) every interval, until the next full run
starts (which registers the fragments it still draws again) or the server
sends ``stop_auto_rerun``. Every finished full run is recorded as a
:class:`View` (page, query string, when), so a benchmark can wait for the
query string a teacher's change leads to (:meth:`Session.wait_for_query`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode, urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

TRIGGER = object()  #: set_widget(key, TRIGGER) presses a button
FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
FINISHED_EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FINISHED_FRAGMENT = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


class LostRunError(Exception):
    """The script did not finish in time, or the connection dropped during a run."""


@dataclass
class Run:
    """What one script run sent: widget ids by key, chart specs by key (a walkable matrix's
    data too), exceptions."""

    widget_ids: dict[str, str] = field(default_factory=dict)
    charts: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    elements: int = 0
    bytes: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class View:
    """A finished full run: its page (URL path, "" for the default page) and query string.

    ``at`` is ``time.perf_counter()`` when its ``script_finished`` arrived.
    """

    at: float
    page: str
    query: str

    def shows(self, wanted: Mapping[str, str]) -> bool:
        """Whether every ``wanted`` parameter has that value in this view's query string."""
        params = dict(parse_qsl(self.query, keep_blank_values=True))
        return all(params.get(name) == value for name, value in wanted.items())


def _user_key(element_id: str) -> str:
    """``$$ID-<hash>-seed`` -> ``seed`` (ids of keyed elements end with their key)."""
    return element_id.split("-", 2)[2] if element_id.count("-") >= 2 else element_id


class Session:
    """One headless session on ``base`` (``http://host:port``), opened on ``page?query``.

    ``cookies``: a ``Cookie`` header to send (a load balancer's affinity
    cookie); ``upstream``: the ``X-Upstream`` response header of the websocket
    handshake, when a proxy adds it (which replica serves this session).
    ``polls``: fragment auto-reruns sent; ``views``: every finished full run
    (recorded while following).
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
        self.polls = 0
        self.views: list[View] = []
        self.auto_reruns: dict[str, float] = {}  #: fragment id -> interval (s), as registered
        self._paths: dict[str, str] = {}  # page script hash -> URL path
        self._run = Run()
        self._reader: asyncio.Task | None = None
        self._timers: dict[str, tuple[float, asyncio.Task]] = {}
        self._finished: asyncio.Future[Run] | None = None
        self._new_view = asyncio.Event()

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

    async def follow(self) -> None:
        """From now on read the socket all the time and keep the page's fragments polling."""
        if self._reader is None:
            self._reader = asyncio.create_task(self._read_forever())
            for fragment_id, interval in list(self.auto_reruns.items()):
                self._start_timer(fragment_id, interval)

    async def set_widget(
        self,
        key: str,
        value: object,
        timeout: float = 120.0,
        in_link: bool = True,
        also: Mapping[str, object] | None = None,
    ) -> Run:
        """Change one widget (by user key), or press a button (``TRIGGER``), and wait for the run.

        As the frontend does for a URL-bound widget, the link's ``key`` becomes
        the new value too (unless ``in_link`` is False: a widget the app does
        not bind to the URL), so a reconnect reopens the view as it is now.
        ``also``: other widgets' values to send with it, as the frontend sends
        every widget's value it holds (say, the answer picked before "Send").
        """
        if value is not TRIGGER and in_link:
            params = dict(parse_qsl(self.query, keep_blank_values=True))
            params[key] = str(value).lower() if isinstance(value, bool) else str(value)
            self.query = urlencode(params)
        changes = [(self.last.widget_ids[name], held) for name, held in (also or {}).items()]
        return await self._rerun([*changes, (self.last.widget_ids[key], value)], timeout)

    async def wait_for_query(
        self, wanted: Mapping[str, str], since: float, timeout: float
    ) -> View | None:
        """The first full run finished at ``since`` or later whose query string shows
        ``wanted``; None if none has within ``timeout`` seconds. Needs :meth:`follow`."""
        deadline = time.perf_counter() + timeout
        checked = 0
        while True:
            for view in self.views[checked:]:
                if view.at >= since and view.shows(wanted):
                    return view
            checked = len(self.views)
            self._new_view.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new_view.wait(), left)

    async def close(self) -> None:
        self._stop_timers()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        if self.socket is not None:
            await self.socket.close()

    async def _rerun(self, changes: list[tuple[str, object]] | None, timeout: float) -> Run:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query
        if self.page_script_hash:  # later runs name the page by hash, as the frontend does
            state.page_script_hash = self.page_script_hash
        else:
            state.page_name = self.page
        for widget_id, value in changes or ():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            _set_value(widget, value)
        start = time.perf_counter()
        try:
            if self._reader is None:
                await self.socket.send(message.SerializeToString())
                run = await asyncio.wait_for(self._read_run(), timeout)
            else:
                self._finished = asyncio.get_running_loop().create_future()
                await self.socket.send(message.SerializeToString())
                run = await asyncio.wait_for(asyncio.shield(self._finished), timeout)
        except (TimeoutError, websockets.ConnectionClosed) as error:
            raise LostRunError(str(error) or type(error).__name__) from error
        run.seconds = time.perf_counter() - start
        self.last = run
        return run

    async def _read_run(self) -> Run:
        self._run = Run()
        while True:
            run = self._handle(await self.socket.recv())
            if run is not None:
                return run

    async def _read_forever(self) -> None:
        try:
            while True:
                run = self._handle(await self.socket.recv())
                if run is not None:
                    self.last = run
                if run is not None and self._finished is not None and not self._finished.done():
                    self._finished.set_result(run)
        except websockets.ConnectionClosed as error:
            self._stop_timers()
            if self._finished is not None and not self._finished.done():
                self._finished.set_exception(error)

    def _handle(self, raw: bytes | str) -> Run | None:
        """Take one ForwardMsg into the session's state; the run, when a full one finished."""
        self._run.bytes += len(raw)
        message = ForwardMsg()
        message.ParseFromString(raw)
        kind = message.WhichOneof("type")
        if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            _record(self._run, message.delta.new_element)
        elif kind == "new_session":
            self._new_run(message)
        elif kind == "navigation":
            self.page_script_hash = message.navigation.page_script_hash
            self._paths.update(
                (page.page_script_hash, page.url_pathname) for page in message.navigation.app_pages
            )
        elif kind == "page_info_changed":
            self.query = message.page_info_changed.query_string
        elif kind == "auto_rerun":
            self._auto_rerun(message.auto_rerun.fragment_id, message.auto_rerun.interval)
        elif kind == "stop_auto_rerun":
            for fragment_id in message.stop_auto_rerun.fragment_ids:
                self.auto_reruns.pop(fragment_id, None)
                self._stop_timers(fragment_id)
        elif kind == "script_finished":
            return self._script_finished(message.script_finished)
        return None

    def _new_run(self, message: ForwardMsg) -> None:
        if message.metadata.run.fragment_ids:
            return  # a fragment's run: the page's other elements stay as they were
        new_session = message.new_session
        self._run = Run(bytes=self._run.bytes)
        self.auto_reruns.clear()  # the full run registers the fragments it still draws
        self._stop_timers()
        if new_session.page_script_hash:
            self.page_script_hash = new_session.page_script_hash

    def _script_finished(self, status: int) -> Run | None:
        if status == FINISHED_EARLY_FOR_RERUN:
            self._run = Run()  # a newer run follows; only its output counts
            return None
        if status == FINISHED_FRAGMENT:
            self._run = Run()  # a poll's bytes are not the next full run's
            return None
        run, self._run = self._run, Run()
        page = self._paths.get(self.page_script_hash, self.page)
        self.views.append(View(time.perf_counter(), page, self.query))
        self._new_view.set()
        return run

    def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        """As the frontend does: one timer per fragment; the same interval again keeps it."""
        if self.auto_reruns.get(fragment_id) == interval and fragment_id in self._timers:
            return
        self.auto_reruns[fragment_id] = interval
        if self._reader is not None:
            self._start_timer(fragment_id, interval)

    def _start_timer(self, fragment_id: str, interval: float) -> None:
        self._stop_timers(fragment_id)
        task = asyncio.create_task(self._poll(fragment_id, interval))
        self._timers[fragment_id] = (interval, task)

    def _stop_timers(self, only: str | None = None) -> None:
        for fragment_id in [only] if only is not None else list(self._timers):
            _, task = self._timers.pop(fragment_id, (0.0, None))
            if task is not None:
                task.cancel()

    async def _poll(self, fragment_id: str, interval: float) -> None:
        """Send the fragment's rerun every ``interval`` s (the browser's setInterval)."""
        while True:
            await asyncio.sleep(interval)
            message = BackMsg()
            state = message.rerun_script
            state.query_string = self.query
            state.page_script_hash = self.page_script_hash
            state.fragment_id = fragment_id
            state.is_auto_rerun = True
            try:
                await self.socket.send(message.SerializeToString())
            except websockets.ConnectionClosed:
                return
            self.polls += 1


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
    elif kind == "bidi_component":  # a walkable matrix (ui/shared/walkable_matrix.py): its data,
        # sent as JSON bytes (ui.shared.walkable_data.sent)
        run.charts[_user_key(element_id)] = body.bytes.decode("utf-8", "replace") or body.json
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
