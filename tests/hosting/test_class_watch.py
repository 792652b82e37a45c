"""The server's class watcher (ui.classroom.watch.Watcher), over both stores, without a server.

The watcher reads each class's version once per tick, whatever the number of its
students, and reruns the apps of the students whose last run drew an older version.
It says "still here" for the connected ones every ``heartbeat`` seconds and forgets
the others. The rerun and the connection test are plain functions here; on a real
server they are Streamlit's (tests/deploy/test_class_watch.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.parse import parse_qs

import pytest

from hosting.classroom import limits
from hosting.classroom.classes import Classes
from hosting.classroom.records import StoreUnavailableError
from tests.hosting.conftest import FakeClock
from ui.classroom.watch import Link, Watcher

TEACHERS_VIEW = {"seed": "3"}


class Sessions:
    """Stands in for the server: which sessions are connected, which were rerun."""

    def __init__(self) -> None:
        self.closed: set[str] = set()
        self.busy: set[str] = set()  #: sessions whose own run is under way: they decline
        self.reruns: list[str] = []
        self.links: dict[str, Link | None] = {}  #: the link each session was last asked to open

    def rerun(
        self,
        session_id: str,
        link: Link | None,
        opening: Callable[[], None],
        declined: Callable[[], None],
    ) -> None:
        self.reruns.append(session_id)
        self.links[session_id] = link
        if session_id in self.busy:
            declined()
        elif link is not None:
            opening()

    def alive(self, session_id: str) -> bool:
        return session_id not in self.closed


class CountingClasses(Classes):
    """Counts version reads; can be made to fail them as an unreachable store does."""

    def __init__(self, classes: Classes) -> None:
        super().__init__(classes.store, classes.clock, classes.lifetime)
        self.version_reads = 0
        self.down = False

    def version(self, code: str) -> int:
        self.version_reads += 1
        if self.down:
            raise StoreUnavailableError()
        return super().version(code)


@pytest.fixture
def sessions() -> Sessions:
    return Sessions()


@pytest.fixture
def counting(classes: Classes) -> CountingClasses:
    return CountingClasses(classes)


def watcher_for(counting: CountingClasses, sessions: Sessions, clock: FakeClock) -> Watcher:
    return Watcher(counting, sessions.rerun, sessions.alive, heartbeat=10.0, clock=clock, at_once=2)


def class_with_students(classes: Classes, watcher: Watcher, students: int) -> tuple[str, str]:
    """A class with ``students`` joined and enlisted at its current version: (code, key)."""
    started = classes.start()
    version = classes.steer(started.code, started.key, "r0", "text", TEACHERS_VIEW)
    for number in range(students):
        classes.join(started.code, f"student-{number}")
        watcher.enlist(f"session-{number}", started.code, f"student-{number}", version)
    return started.code, started.key


def test_an_idle_class_costs_one_version_read_per_tick_and_no_rerun(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    class_with_students(counting, watcher, 40)
    class_with_students(counting, watcher, 3)
    for _ in range(5):
        watcher.tick()
    assert counting.version_reads == 2 * 5  # two classes, five ticks: not 43 per tick
    assert sessions.reruns == []


def test_a_teachers_change_reruns_each_student_once_until_their_run_draws_it(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, key = class_with_students(counting, watcher, 3)
    other_code, _ = class_with_students(counting, watcher, 0)
    watcher.enlist("elsewhere", other_code, "student-x", counting.version(other_code))

    version = counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    watcher.tick()
    assert sorted(sessions.reruns) == ["session-0", "session-1"]  # two at a time, each once

    watcher.enlist("session-0", code, "student-0", version)  # its run drew the new version
    assert len(sessions.reruns) == 2
    watcher.done("session-0")  # ... and ended
    assert sessions.reruns[2:] == ["session-2"]  # the next one goes at once
    watcher.enlist("session-2", code, "student-2", version)
    watcher.done("session-2")
    watcher.tick()
    assert len(sessions.reruns) == 3  # session 1's run has not drawn it yet: not asked again

    clock.advance(2.0)  # ... for longer than the watcher's patience (a run it cut short)
    watcher.tick()
    assert sessions.reruns[3:] == ["session-1"]
    watcher.enlist("session-1", code, "student-1", version)
    watcher.done("session-1")
    clock.advance(2.0)
    watcher.tick()
    assert len(sessions.reruns) == 4  # everybody has it: nobody is asked again
    assert "elsewhere" not in sessions.reruns


def test_an_app_whose_run_ends_behind_lets_the_next_go_first_and_is_asked_at_the_next_tick(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    # The teacher changed the view again while session 0's run drew the last one: that
    # run is still ending when it says it is done, so asking it again then would be
    # declined (and held the class's one place for 2 s).
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=1)
    code, key = class_with_students(counting, watcher, 2)
    first = counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    assert sessions.reruns == ["session-0"]
    watcher.enlist("session-0", code, "student-0", first)
    second = counting.steer(code, key, "r2", "text", {"seed": "8"})
    watcher.tick()  # reads the new version; session 0 is still being rerun
    watcher.done("session-0")
    assert sessions.reruns == ["session-0", "session-1"]
    watcher.enlist("session-1", code, "student-1", second)
    watcher.done("session-1")
    watcher.tick()
    assert sessions.reruns == ["session-0", "session-1", "session-0"]


def test_an_app_that_declines_frees_its_place_at_once_and_is_asked_again_soon(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=1)
    code, key = class_with_students(counting, watcher, 2)
    sessions.busy.add("session-0")  # the student's own run is under way
    version = counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    assert sessions.reruns == ["session-0", "session-1"]  # the next did not wait 2 s
    watcher.enlist("session-1", code, "student-1", version)
    watcher.done("session-1")
    assert sessions.reruns == ["session-0", "session-1"]  # not asked again at once ...
    sessions.busy.discard("session-0")
    clock.advance(limits.RERUN_RETRY_SECONDS)
    watcher.tick()
    assert sessions.reruns == ["session-0", "session-1", "session-0"]  # ... but soon
    watcher.enlist("session-0", code, "student-0", version)
    watcher.done("session-0")
    watcher.tick()
    assert len(sessions.reruns) == 3


def test_an_app_that_declined_is_asked_as_soon_as_its_own_run_ends(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=1)
    code, key = class_with_students(counting, watcher, 1)
    sessions.busy.add("session-0")
    counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    sessions.busy.discard("session-0")
    watcher.done("session-0")  # its own run ended, having drawn the old version
    watcher.tick()
    assert sessions.reruns == ["session-0", "session-0"]


def test_a_whole_class_is_rerun_a_few_at_a_time(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=3)
    code, key = class_with_students(counting, watcher, 30)
    version = counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    most_at_once = 0
    for _ in range(30):  # each rerun app draws the new version in turn
        redrawing = [sid for sid in sessions.reruns if watcher.members()[sid].seen != version]
        most_at_once = max(most_at_once, len(redrawing))
        number = int(redrawing[0].split("-")[1])
        watcher.enlist(redrawing[0], code, f"student-{number}", version)
        watcher.done(redrawing[0])
    assert most_at_once == 3
    assert sorted(sessions.reruns) == sorted(f"session-{n}" for n in range(30))  # once each


def test_a_session_whose_store_was_out_is_rerun_at_the_first_read(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, _ = class_with_students(counting, watcher, 1)
    watcher.enlist("session-0", code, "student-0", None)  # its last run could not read
    counting.down = True
    watcher.tick()
    assert sessions.reruns == []  # still out: nothing to tell, and no exception
    counting.down = False
    watcher.tick()
    assert sessions.reruns == ["session-0"]


def test_an_ended_class_reruns_its_students_so_they_are_told(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, key = class_with_students(counting, watcher, 2)
    counting.end(code, key, "r-end")
    watcher.tick()
    assert sorted(sessions.reruns) == ["session-0", "session-1"]
    for number in (0, 1):  # their runs leave the class
        watcher.drop(f"session-{number}")
    watcher.tick()
    assert len(sessions.reruns) == 2


def test_connected_students_say_still_here_and_a_closed_tab_is_forgotten(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, _ = class_with_students(counting, watcher, 2)
    assert counting.present(code) == 2
    sessions.closed.add("session-1")
    watcher.tick()
    assert set(watcher.members()) == {"session-0", "session-1"}  # it may come back

    clock.advance(limits.PRESENT_SECONDS - 5)  # the watcher's clock and the store's: one clock
    watcher.tick()  # 25 s since the last "still here": said again
    clock.advance(10)
    assert counting.present(code) == 1  # session 0 said so 10 s ago; session 1 35 s ago
    clock.advance(limits.RECONNECT_SECONDS)
    watcher.tick()
    assert set(watcher.members()) == {"session-0"}  # away too long: a closed tab
    assert sessions.reruns == []


def test_a_student_back_after_being_forgotten_is_present_again_at_the_next_tick(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, key = class_with_students(counting, watcher, 1)
    sessions.closed.add("session-0")  # the phone sleeps
    watcher.tick()
    clock.advance(limits.RECONNECT_SECONDS + 1)
    watcher.tick()
    assert watcher.members() == {} and counting.present(code) == 0
    sessions.closed.discard("session-0")  # back on the same session; a click runs the app
    version = counting.ask(code, key, "r1", {"id": "q1"})
    watcher.enlist("session-0", code, "student-0", version)
    watcher.tick()
    assert counting.present(code) == 1
    assert counting.answer(code, "student-0", "q1", "B") is True


def test_a_student_id_is_elsewhere_only_in_another_connected_session(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    class_with_students(counting, watcher, 1)  # session-0 is student-0
    assert watcher.student_elsewhere("student-0", "new-tab")  # a link passed on
    assert not watcher.student_elsewhere("student-0", "session-0")  # its own run
    assert not watcher.student_elsewhere("student-9", "new-tab")
    sessions.closed.add("session-0")  # a reload closes the old tab first
    assert not watcher.student_elsewhere("student-0", "new-tab")


def test_a_student_whose_connection_dropped_is_not_rerun_then_caught_up_once_back(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, key = class_with_students(counting, watcher, 2)
    sessions.closed.add("session-1")  # a phone's network blip
    version = counting.steer(code, key, "r1", "text", {"seed": "7"})
    watcher.tick()
    assert sessions.reruns == ["session-0"]
    watcher.enlist("session-0", code, "student-0", version)  # its run drew it
    watcher.done("session-0")
    clock.advance(limits.RECONNECT_SECONDS / 2)
    watcher.tick()
    assert sessions.reruns == ["session-0"]  # the other is away: not rerun, not forgotten
    sessions.closed.discard("session-1")  # back, on the same session
    watcher.tick()
    assert sessions.reruns == ["session-0", "session-1"]


def test_the_thread_outlives_a_failing_tick_and_stops_when_told(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = watcher_for(counting, sessions, clock)
    code, key = class_with_students(counting, watcher, 1)
    failures = iter([RuntimeError("a bug in one tick")])

    def alive(session_id: str) -> bool:
        error = next(failures, None)
        if error is not None:
            raise error
        return True

    watcher.alive = alive
    counting.steer(code, key, "r1", "text", {"seed": "9"})
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop, 0.01))
    thread.start()
    try:
        for _ in range(500):
            if sessions.reruns:
                break
            stop.wait(0.01)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert "session-0" in sessions.reruns  # the tick after the failing one did its work


def test_a_follower_is_sent_the_teachers_link_and_an_explorer_a_plain_rerun(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=10)
    watcher.know_pages({"text": "hash-text", "walkthrough": "hash-walk"})
    started = counting.start()
    code, key = started.code, started.key
    version = counting.steer(code, key, "r0", "text", TEACHERS_VIEW)
    seen = ("text", TEACHERS_VIEW)
    for session_id, following in (("follower", True), ("explorer", False)):
        counting.join(code, session_id)
        watcher.enlist(session_id, code, session_id, version, following, seen)
    # A view with two values for one setting travels as JSON (class_session.LISTS_PARAM).
    lists = {"class_lists": '{"heads":["1","2"]}'}
    counting.steer(code, key, "r1", "walkthrough", {"step": "4", **lists})
    watcher.tick()
    assert sessions.links["explorer"] is None  # its run reads the class and shows the question
    page_hash, query = sessions.links["follower"]  # type: ignore[misc]
    assert page_hash == "hash-walk"
    assert parse_qs(query) == {
        "step": ["4"],
        "heads": ["1", "2"],
        "class": [code],
        "student": ["follower"],  # a reload of the follower is the same student
    }
    assert watcher.opened("follower") and not watcher.opened("follower")  # said once
    assert not watcher.opened("explorer")


def test_a_link_the_app_declined_is_not_taken_for_the_watchers_opening(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    # The student's own run was under way: the next run is the student's, not the watcher's.
    watcher, code, key = one_follower(counting, sessions, clock)
    sessions.busy.add("session")
    counting.steer(code, key, "r1", "text", {"seed": "4"})
    watcher.tick()
    assert sessions.links["session"] is not None
    assert not watcher.opened("session")


def test_an_opening_whose_run_never_asked_is_not_taken_for_a_later_run(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher, code, key = one_follower(counting, sessions, clock)
    counting.steer(code, key, "r1", "text", {"seed": "4"})
    watcher.tick()
    assert sessions.links["session"] is not None  # opened: its run failed before asking
    clock.advance(limits.OPENING_SECONDS)
    assert not watcher.opened("session")  # the student's own click, later


def one_follower(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> tuple[Watcher, str, str]:
    """A class on the text page with one follower ("session") showing the teacher's view."""
    watcher = Watcher(counting, sessions.rerun, sessions.alive, clock=clock, at_once=10)
    watcher.know_pages({"text": "hash-text"})
    started = counting.start()
    version = counting.steer(started.code, started.key, "r0", "text", TEACHERS_VIEW)
    counting.join(started.code, "student-1")
    watcher.enlist("session", started.code, "student-1", version, True, ("text", TEACHERS_VIEW))
    return watcher, started.code, started.key


def test_a_follower_already_showing_the_view_or_on_an_unknown_page_gets_a_plain_rerun(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher, code, key = one_follower(counting, sessions, clock)
    counting.ask(code, key, "r1", {"id": "q1", "prompt": "Which?"})  # the view stays
    watcher.tick()
    assert sessions.links == {"session": None}
    version = counting.steer(code, key, "r2", "nowhere", {})  # a page this app lacks
    watcher.enlist("session", code, "student-1", version - 1, True, ("text", TEACHERS_VIEW))
    watcher.done("session")
    watcher.tick()
    assert sessions.reruns == ["session", "session"]
    assert sessions.links == {"session": None}


def test_a_class_with_no_student_left_leaves_no_view_behind(
    counting: CountingClasses, sessions: Sessions, clock: FakeClock
) -> None:
    watcher, code, key = one_follower(counting, sessions, clock)
    counting.steer(code, key, "r1", "text", {"seed": "9"})
    watcher.tick()
    assert code in watcher._views  # read once for its followers
    watcher.drop("session")
    watcher.tick()
    assert watcher._views == {}  # kept no longer than somebody follows the class
