"""The one entry point to class sessions: every request is checked here, then stored.

Steering (view, ask, reveal, end) needs the class's teacher key and a request
id used once; answering needs the code and a student present (joined in the last
``PRESENT_SECONDS``), once per student and question.
Sizes are bounded (:mod:`hosting.classroom.limits`) and an expired or ended
class is :class:`ClassGoneError` to everybody. Rate limits per browser session are
the app's (:class:`hosting.classroom.rate.RateLimit`): a store cannot tell
sessions apart.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from hosting.classroom import codes, limits, views
from hosting.classroom.records import (
    FULL,
    NOT_OPEN,
    Answered,
    ClassGoneError,
    ClassRecord,
    Created,
    FullError,
    NotTeacherError,
    RefusedError,
    ReplayedError,
    RequestUse,
    Started,
)
from hosting.classroom.store import ClassStore

PAGE_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")  #: a page's URL path: ``text``, ``time_series``
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
QUESTION_ID = re.compile(r"[A-Za-z0-9_.:-]{1,120}")
CODE_ATTEMPTS = 20  #: a fresh code collides with an open one at most 1 in 1.7 million


def _json(value: object, max_chars: int, what: str) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if len(text) > max_chars:
        raise RefusedError(
            f"This {what} is too large to share with the class ({len(text)} characters)."
        )
    return text


def _changed(version: int) -> int:
    """A store's new version; a negative one means the class went while the request ran."""
    if version < 0:
        raise ClassGoneError()
    return version


class Classes:
    """Class sessions in ``store``; ``clock`` gives seconds since the epoch (tests move it)."""

    def __init__(
        self,
        store: ClassStore,
        clock: Callable[[], float] = time.time,
        lifetime: float = limits.CLASS_SECONDS,
    ) -> None:
        self.store = store
        self.clock = clock
        self.lifetime = lifetime

    # --- anybody ---------------------------------------------------------------------------
    def start(self) -> Started:
        """Open a class with a fresh code and teacher key. :class:`FullError` if the store is.

        The store counts its ``MAX_CLASSES`` open classes in the step that creates one, so
        starts at once (on any server) never open more. A full store first ends its idle
        classes (nothing heard for ``IDLE_SECONDS``), then is asked once more.
        """
        now = self.clock()
        key = codes.new_key()
        digest, expires_at = codes.digest(key), now + self.lifetime

        def create(code: str) -> Created:
            return self.store.create(code, digest, expires_at, now, limits.MAX_CLASSES)

        reclaimed = False
        for _ in range(CODE_ATTEMPTS):
            code = codes.new_code()
            created = create(code)
            if created is Created.FULL and not reclaimed:
                reclaimed = True
                self.store.reclaim(now - limits.IDLE_SECONDS, now)
                created = create(code)
            if created is Created.FULL:
                raise FullError(
                    "This server already hosts as many classes as it can. Try again later."
                )
            if created is Created.OPENED:
                return Started(code, key, expires_at)
        raise FullError("No free class code was found. Try again.")  # pragma: no cover

    def state(self, code: str) -> ClassRecord:
        """The class as followers draw it. :class:`ClassGoneError` if it is not open."""
        state = self.store.state(self._code(code), self.clock())
        if state is None:
            raise ClassGoneError()
        return state

    def version(self, code: str) -> int:
        """The class's version: what a server's watcher reads. :class:`ClassGoneError` if gone."""
        version = self.store.version(self._code(code), self.clock())
        if version is None:
            raise ClassGoneError()
        return version

    # --- students --------------------------------------------------------------------------
    def join(self, code: str, student: str) -> ClassRecord:
        """Enter (or say "still here" to) a class. :class:`FullError` at ``MAX_STUDENTS``
        present (those heard from in the last ``PRESENT_SECONDS``)."""
        state = self.state(code)
        now = self.clock()
        since = now - limits.PRESENT_SECONDS
        if not self.store.join(state.code, self._student(student), now, limits.MAX_STUDENTS, since):
            raise FullError(f"This class is full ({limits.MAX_STUDENTS} students).")
        return state

    def answer(self, code: str, student: str, question_id: str, answer: str) -> bool:
        """Answer the open question; False if this student already did (the first answer counts).

        RefusedError when the question is not the open one, its answer is revealed, the
        answer is longer than ``MAX_ANSWER_CHARS``, or the student is not present (has not
        joined in the last ``PRESENT_SECONDS``). FullError when the question has
        ``MAX_ANSWERS_PER_QUESTION`` answers.
        """
        state = self.state(code)
        if state.question is None or state.question.get("id") != question_id:
            raise RefusedError("That question is no longer open.")
        if state.revealed:
            raise RefusedError("The answer has been revealed: answers are closed.")
        if not answer or len(answer) > limits.MAX_ANSWER_CHARS:
            raise RefusedError(f"An answer has 1 to {limits.MAX_ANSWER_CHARS} characters.")
        since = self.clock() - limits.PRESENT_SECONDS
        answered = self.store.answer(
            state.code,
            question_id,
            self._student(student),
            answer,
            since,
            limits.MAX_ANSWERS_PER_QUESTION,
        )
        if answered is Answered.CLOSED:  # revealed, or another asked, since the read above
            raise RefusedError("That question is closed: its answer was revealed or another "
                               "question was asked.")  # fmt: skip
        if answered is Answered.ABSENT:
            raise RefusedError(
                "Join the class again to answer (reload the page): your browser has not "
                "been heard from for a while."
            )
        if answered is Answered.FULL:
            raise FullError(
                f"This question has {limits.MAX_ANSWERS_PER_QUESTION} answers, the most it "
                "keeps: yours was not counted."
            )
        return answered is Answered.COUNTED

    def answer_of(self, code: str, student: str, question_id: str) -> str | None:
        """The answer ``student`` gave to ``question_id``, for them to see again (a reload)."""
        return self.store.answer_of(self._code(code), question_id, self._student(student))

    def counts(self, code: str, question_id: str) -> dict[str, int]:
        """How many gave each answer to ``question_id`` (no identities)."""
        return self.store.counts(self.state(code).code, question_id)

    def present(self, code: str) -> int:
        """Students whose app said "still here" in the last ``PRESENT_SECONDS``."""
        return self.store.present(self.state(code).code, self.clock() - limits.PRESENT_SECONDS)

    # --- the teacher -----------------------------------------------------------------------
    def steer(
        self, code: str, key: str, request_id: str, page: str, query: Mapping[str, str]
    ) -> int:
        """Show ``page`` with ``query`` (the teacher's link) to every follower; the new version.

        A view that cannot be shared is refused before the request id is recorded, so a
        teacher's app retrying it on every rerun stores nothing.
        """
        if not PAGE_NAME.fullmatch(page):
            raise RefusedError("That page cannot be shared with the class.")
        count = views.parameter_count(query) if len(query) <= limits.MAX_VIEW_PARAMS else None
        if count is None or count > limits.MAX_VIEW_PARAMS:
            raise RefusedError("This view's settings cannot be shared with the class.")
        view = _json(dict(query), limits.MAX_VIEW_CHARS, "view")
        code = self._teacher(code, key, request_id)
        return _changed(self.store.set_view(code, page, view))

    def ask(self, code: str, key: str, request_id: str, question: Mapping[str, Any]) -> int:
        """Make ``question`` (JSON-able, with an ``id``) the open one; the new version.

        :class:`FullError` for a new question once the class has asked ``MAX_QUESTIONS``
        (counted by the store in the step that keeps it); one asked before may be again.
        """
        question_id = question.get("id")
        if not isinstance(question_id, str) or not QUESTION_ID.fullmatch(question_id):
            raise RefusedError("This question has no usable id.")
        body = _json(dict(question), limits.MAX_QUESTION_CHARS, "question")
        code = self._teacher(code, key, request_id)
        version = self.store.ask(code, question_id, body, limits.MAX_QUESTIONS)
        if version == FULL:
            raise FullError(
                f"This class has asked {limits.MAX_QUESTIONS} questions, the most it keeps."
            )
        return _changed(version)

    def reveal(self, code: str, key: str, request_id: str, question_id: str) -> int:
        """Show ``question_id``'s answer on every screen; the new version.

        The teacher reveals the question they see: if another was asked meanwhile (from
        another tab), that one stays unrevealed and this is refused.
        """
        code = self._teacher(code, key, request_id)
        version = self.store.reveal(code, question_id)
        if version == NOT_OPEN:
            raise RefusedError(
                "That question is no longer the open one: another was asked since. "
                "Nothing was revealed."
            )
        return _changed(version)

    def results(self, code: str, key: str) -> list[tuple[dict[str, Any], dict[str, int]]]:
        """Every asked question with its answer counts, in the order asked (teacher only)."""
        code = self._teacher_key(code, key)
        return [
            (question, self.store.counts(code, question["id"]))
            for question in map(json.loads, self.store.questions(code))
        ]

    def end(self, code: str, key: str, request_id: str) -> None:
        """Close the class now: every follower sees it has ended.

        A class that has made ``MAX_CHANGES`` changes can still be ended: its id is one
        past the bound, and ending deletes them all.
        """
        self.store.end(self._teacher(code, key, request_id, limits.MAX_CHANGES + 1))

    # --- checks ----------------------------------------------------------------------------
    def _code(self, code: str) -> str:
        canonical = codes.read_code(code) if isinstance(code, str) else None
        if canonical is None:
            raise ClassGoneError(
                f"A class code has {limits.CODE_LENGTH} letters and digits, like K7QH3M."
            )
        return canonical

    @staticmethod
    def _student(student: str) -> str:
        if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
            raise RefusedError("This browser session has no usable student id.")
        return student

    def _teacher_key(self, code: str, key: str) -> str:
        """The canonical code if ``key`` opens its class; else refuse (reads change nothing)."""
        canonical = self._code(code)
        stored = self.store.key_digest(canonical, self.clock())
        if stored is None:
            raise ClassGoneError()
        if not isinstance(key, str) or not codes.key_matches(key, stored):
            raise NotTeacherError()
        return canonical

    def _teacher(self, code: str, key: str, request_id: str, max_changes: int | None = None) -> str:
        """The canonical code if ``key`` opens it and ``request_id`` is new; else refuse.

        Every change needs a request id: a missing one is refused, never taken as "no
        replay check". A class keeps at most ``max_changes`` ids (``MAX_CHANGES``).
        """
        canonical = self._teacher_key(code, key)
        if (
            not isinstance(request_id, str)
            or not 0 < len(request_id) <= limits.MAX_REQUEST_ID_CHARS
        ):
            raise RefusedError("This request has no usable id.")
        most = limits.MAX_CHANGES if max_changes is None else max_changes
        use = self.store.first_use(canonical, request_id, self.clock(), most)
        if use is RequestUse.REPLAYED:
            raise ReplayedError()
        if use is RequestUse.FULL:
            raise FullError(
                f"This class has made {limits.MAX_CHANGES} changes, the most one class "
                "keeps. Start a new class to go on."
            )
        return canonical
