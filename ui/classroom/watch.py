"""One watcher per server process tells a class's students when the teacher changed something.

Each student's full run enlists the session with the class version it drew. A thread
reads each class's version every ``WATCH_SECONDS`` (one store read per class and
process, however many students follow) and, when it moved past what a session drew,
reruns that session's app: the run reads the class and opens the teacher's new view,
shows the question, or says the class ended. It also says "still here" to the store
for every session whose browser is still connected, waits for one that lost its
connection (``RECONNECT_SECONDS``: rerun, if behind, once back), and then forgets it.

Before, every follower's browser polled with a timed fragment: a run of Streamlit per
student per second, 0.3 of a core for 100 idle students. An idle class now costs one
store read per ``WATCH_SECONDS`` and process, and a student's browser sends nothing.

:class:`Watcher` holds the bookkeeping and takes the rerun as a function, so it is
tested without a server; :mod:`ui.classroom.server_watch` is the rerun on a running
server, and the process's one watcher.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from hosting.classroom import limits
from hosting.classroom.classes import Classes
from hosting.classroom.records import ClassError, ClassGoneError
from hosting.classroom.views import STUDENT_PARAM
from ui.classroom.class_session import URL_CODE, link_query

WATCHED_FRAGMENT = "class_watched"  #: the key of the fragment a student's full run draws
#: A view to open: the page's script hash and the query string of the teacher's link.
Link = tuple[str, str]
#: Ask ``session_id``'s app to run again, opening ``Link`` if given. The third argument is
#: called just before a link is opened; the fourth if the app declines, as it does while a
#: run of its own is under way.
Rerun = Callable[[str, "Link | None", Callable[[], None], Callable[[], None]], None]
View = tuple[str, dict[str, str]]  #: a page's URL path and its published query
#: Whether ``session_id``'s browser is still connected.
Alive = Callable[[str], bool]


GONE = -1  #: the version of a class that ended: no session drew it


@dataclass
class Member:
    """A student's session in a class, as the watcher knows it."""

    code: str
    student: str
    seen: int | None  #: the class version its last full run drew (None: the store was out)
    said_at: float  #: when the store last heard "still here" (time.monotonic)
    following: bool = False  #: it shows each new view of the teacher
    applied: View | None = None  #: the teacher's view it last showed


class Watcher:
    """Reruns the apps of a class's students when its version moves (see the module).

    A whole class would otherwise rerun at the same instant: ``at_once`` apps at most
    are rerun at a time, the next as soon as the full run of one of them has ended
    (:meth:`done`), or when ``patience`` seconds have passed without that. An app that
    declines (its own run is under way) frees its place at once and is asked again
    ``retry`` seconds later, or as soon as that run ends.
    """

    def __init__(
        self,
        classes: Classes,
        rerun: Rerun,
        alive: Alive,
        heartbeat: float = limits.HEARTBEAT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        at_once: int = limits.RERUNS_AT_ONCE,
        patience: float = limits.RERUN_PATIENCE_SECONDS,
        retry: float = limits.RERUN_RETRY_SECONDS,
        reconnect: float = limits.RECONNECT_SECONDS,
    ) -> None:
        self.classes = classes
        self.rerun = rerun
        self.alive = alive
        self.heartbeat = heartbeat
        self.clock = clock
        self.at_once = at_once
        self.patience = patience
        self.retry = retry
        self.reconnect = reconnect
        self._members: dict[str, Member] = {}
        self._versions: dict[str, int] = {}  #: each class's version at the last read
        self._rerunning: dict[str, float] = {}  #: session id -> when its rerun was asked
        self._declined: dict[str, float] = {}  #: session id -> when its app last declined
        self._away: dict[str, float] = {}  #: session id -> since when its browser is away
        self._views: dict[str, tuple[int, View]] = {}  #: each class's version and view
        self._pages: dict[str, str] = {}
        self._opened: dict[str, float] = {}  #: session -> when it began opening a link
        self._lock = threading.Lock()

    def enlist(
        self,
        session_id: str,
        code: str,
        student: str,
        seen: int | None,
        following: bool = False,
        applied: View | None = None,
    ) -> None:
        """``session_id`` is a student of ``code`` whose last full run drew version ``seen``.

        A follower's ``applied`` view tells whether the teacher's next view is new to it.
        """
        with self._lock:
            known = self._members.get(session_id)
            # New to the watcher (a first run, or back after it forgot the session): "still
            # here" at the next tick, as its presence may have lapsed while it was away.
            said_at = known.said_at if known and known.code == code else -math.inf
            self._members[session_id] = Member(code, student, seen, said_at, following, applied)

    def opened(self, session_id: str) -> bool:
        """Whether this run of ``session_id`` is the watcher's opening of a link (asked once).

        An opening whose run never asked (it failed before) is not taken, ``OPENING_SECONDS``
        on, for a later run's: that run would be the student's own.
        """
        with self._lock:
            began = self._opened.pop(session_id, None)
        return began is not None and self.clock() - began < limits.OPENING_SECONDS

    def _opening(self, session_id: str) -> None:
        """``session_id``'s app is about to open a link: its next run is the watcher's."""
        with self._lock:
            self._opened[session_id] = self.clock()

    def know_pages(self, pages: dict[str, str]) -> None:
        """The app's pages: URL path -> script hash (the same for every session)."""
        self._pages = dict(pages)

    def done(self, session_id: str) -> None:
        """A full run of ``session_id``'s app has ended: if it was rerun, the next one goes.

        The next rerun is asked of the event loop after the messages of this run, so
        a class's reruns go no faster than the server can send what they draw. This app
        is not asked in this pass, even if the class moved during its run: the run is
        still ending, so it would decline; the next tick asks it.
        """
        with self._lock:
            self._rerunning.pop(session_id, None)
            self._declined.pop(session_id, None)
        self._rerun_next(skip=session_id)

    def _decline(self, session_id: str, asked: float) -> None:
        """``session_id``'s app declined the rerun asked at ``asked``: its place goes on."""
        with self._lock:
            if self._rerunning.get(session_id) == asked:
                del self._rerunning[session_id]
            self._declined[session_id] = self.clock()
        self._rerun_next()

    def drop(self, session_id: str) -> None:
        """``session_id`` left its class (or was closed)."""
        with self._lock:
            self._members.pop(session_id, None)
            self._rerunning.pop(session_id, None)
            self._declined.pop(session_id, None)
            self._away.pop(session_id, None)
            self._opened.pop(session_id, None)

    def student_elsewhere(self, student: str, session_id: str) -> bool:
        """Whether another connected session than ``session_id`` is ``student`` here."""
        return any(
            member.student == student and other != session_id and self.alive(other)
            for other, member in self.members().items()
        )

    def members(self) -> dict[str, Member]:
        """A copy of who is enlisted, by session id."""
        with self._lock:
            return dict(self._members)

    def tick(self) -> None:
        """One pass: read each class's version once; say "still here"; rerun who is behind."""
        versions: dict[str, int] = {}
        by_class = _by_class(self.members())
        for code, members in by_class.items():
            try:
                versions[code] = self.classes.version(code)
            except ClassGoneError:
                versions[code] = GONE  # each app's run says that the class ended
            except ClassError:
                continue  # the store is out of reach for now: try again next tick
            self._read_view(code, versions[code], members)
            for session_id, member in members:
                if self._connected(session_id) and member.seen == versions[code]:
                    self._still_here(member)
        with self._lock:
            self._versions = versions
            self._views = {code: view for code, view in self._views.items() if code in by_class}
        self._rerun_next()

    def _connected(self, session_id: str) -> bool:
        """Whether ``session_id``'s browser is connected; one away for ``reconnect`` seconds
        (a closed tab) is forgotten: it no longer counts as present."""
        if self.alive(session_id):
            with self._lock:
                self._away.pop(session_id, None)
            return True
        with self._lock:
            since = self._away.setdefault(session_id, self.clock())
        if self.clock() - since >= self.reconnect:
            self.drop(session_id)
        return False

    def _rerun_next(self, skip: str = "") -> None:
        """Rerun the apps that are behind (but ``skip``), while fewer than ``at_once`` are
        being rerun."""
        with self._lock:
            now = self.clock()
            for session_id, asked in list(self._rerunning.items()):
                if now - asked >= self.patience:
                    del self._rerunning[session_id]
            for session_id, declined in list(self._declined.items()):
                if now - declined >= self.retry:
                    del self._declined[session_id]
            behind = [
                session_id
                for session_id, member in self._members.items()
                if session_id not in self._rerunning
                and session_id not in self._declined
                and session_id not in self._away
                and session_id != skip
                and member.code in self._versions
                and member.seen != self._versions[member.code]
            ]
            chosen = behind[: max(self.at_once - len(self._rerunning), 0)]
            self._rerunning.update(dict.fromkeys(chosen, now))
            links = [self._link(self._members[session_id]) for session_id in chosen]
        for session_id, link in zip(chosen, links, strict=True):
            self.rerun(
                session_id,
                link,
                functools.partial(self._opening, session_id),
                functools.partial(self._decline, session_id, now),
            )

    def _read_view(self, code: str, version: int, members: list[tuple[str, Member]]) -> None:
        """The teacher's view at ``version``, read once per change while somebody follows."""
        known = self._views.get(code)
        if version == GONE or (known and known[0] == version):
            return
        if not any(member.following for _, member in members):
            return
        with contextlib.suppress(ClassError):  # unknown: the apps read the class themselves
            state = self.classes.state(code)
            self._views[code] = (state.version, (state.page, state.query))

    def _link(self, member: Member) -> Link | None:
        """The teacher's link for a follower to whom it is new; None for a plain rerun."""
        known = self._views.get(member.code)
        if not member.following or known is None or known[0] != self._versions[member.code]:
            return None
        page, query = known[1]
        if (page, query) == member.applied or page not in self._pages:
            return None
        link = {**link_query(query), URL_CODE: member.code, STUDENT_PARAM: member.student}
        return self._pages[page], urllib.parse.urlencode(link, doseq=True)

    def _still_here(self, member: Member) -> None:
        if self.clock() - member.said_at < self.heartbeat:
            return
        member.said_at = self.clock()
        with contextlib.suppress(ClassError):  # gone or full: the next version read tells
            self.classes.join(member.code, member.student)

    def run(self, stop: threading.Event, interval: float = limits.WATCH_SECONDS) -> None:
        """Tick every ``interval`` seconds until ``stop`` is set (the thread body); never raises."""
        while not stop.wait(interval):
            try:
                self.tick()
            except Exception:  # the thread must outlive one bad tick
                logging.getLogger(__name__).exception("A class watcher tick failed")


def _by_class(members: dict[str, Member]) -> dict[str, list[tuple[str, Member]]]:
    by_class: dict[str, list[tuple[str, Member]]] = {}
    for session_id, member in members.items():
        by_class.setdefault(member.code, []).append((session_id, member))
    return by_class
