"""What a class looks like to the app, and the errors a class request can meet.

Every error carries a message a student or teacher can act on; the app shows it
as text.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from hosting.classroom import limits

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Started:
    """A new class: its code (for students) and its teacher key (for the teacher only)."""

    code: str
    key: str
    expires_at: float  #: seconds since the epoch


@dataclass(frozen=True)
class ClassRecord:
    """One read of a class.

    ``version`` grows with every change the teacher makes (view, question,
    reveal), so a follower compares one number to know whether to redraw.
    ``page`` and ``query`` are the teacher's view ("" and {} before the first);
    ``question`` is the open question's JSON (None before the first),
    ``revealed`` whether its answer is shown; ``asked`` counts questions so far.
    """

    code: str
    version: int
    expires_at: float
    page: str = ""
    query: dict[str, str] = field(default_factory=dict)
    question: dict[str, Any] | None = None
    revealed: bool = False
    asked: int = 0


#: A store's reveal of a question that is not the open one (the new version otherwise, -1
#: if the class is gone): Redis's script returns it too.
NOT_OPEN = -2
#: A store's ask of a question new to a class that has asked as many as it may keep (the
#: new version otherwise, -1 if the class is gone): Redis's script returns it too.
FULL = -3


class Created(enum.IntEnum):
    """What a store did with a new class (the numbers are what Redis returns)."""

    TAKEN = 0  #: not opened: an open class has this code
    OPENED = 1
    FULL = 2  #: not opened: the store holds as many open classes as it may


class Answered(enum.IntEnum):
    """What a store did with a student's answer (the numbers are what Redis returns)."""

    ALREADY = 0  #: not kept: this student answered this question before (or the class is gone)
    COUNTED = 1
    ABSENT = 2  #: not kept: the student has not said "still here" recently
    FULL = 3  #: not kept: the question has as many answers as it may keep
    CLOSED = 4  #: not kept: another question is open, or this one's answer was revealed


class RequestUse(enum.IntEnum):
    """What a store did with a teacher's request id (the numbers are what Redis returns)."""

    REPLAYED = 0  #: seen before in this class
    FIRST = 1  #: new, and kept (or the class is gone: the write that follows finds it so)
    FULL = 2  #: new, but the class keeps as many ids as it may


class ClassError(Exception):
    """A class request that cannot be done; ``str(error)`` says why, in plain words."""


class ClassGoneError(ClassError):
    """The class does not exist (any more): a wrong code, expired, ended or the store restarted."""

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message
            or "This class is not open: it has ended, expired (classes last "
            f"{limits.CLASS_SECONDS // 3600} hours), gave its place to a new class after "
            f"{limits.IDLE_SECONDS // 60} minutes unused on a full server, or the code is "
            "wrong. You can keep using the app on your own."
        )


class NotTeacherError(ClassError):
    """A steering request without this class's teacher key."""

    def __init__(self) -> None:
        super().__init__(
            "Only the teacher of this class can do that: the teacher key is not right."
        )


class ReplayedError(ClassError):
    """A teacher request sent a second time (same request id)."""

    def __init__(self) -> None:
        super().__init__("This request was already done once; it is not repeated.")


class RefusedError(ClassError):
    """Input the class cannot take: too long, too many, malformed, too often."""


class FullError(ClassError):
    """A bound reached: classes per server; students, questions or changes per class;
    answers per question."""


class StoreUnavailableError(ClassError):
    """The store cannot be reached or written now (Redis down, SQLite locked or disk full)."""

    def __init__(self) -> None:
        super().__init__(
            "The class service cannot be reached right now. Your view still works on its "
            "own; try again in a moment."
        )


def unavailable_on(
    *outages: type[Exception],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A decorator for a store's methods: ``outages`` become :class:`StoreUnavailableError`.

    Only the errors a store's own backend raises when it is down or overloaded are
    named, so a programming error (a wrong query, a bad argument) stays loud.
    """

    def decorate(method: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(method)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(*args, **kwargs)
            except outages as error:
                raise StoreUnavailableError() from error

        return guarded

    return decorate
