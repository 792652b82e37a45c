"""The one small interface every class store implements (SQLite, Redis).

A store keeps data and answers simple questions; it checks only what must be
counted in the same atomic step as the write (open classes, questions per class,
students present, answers per question, request ids per class), with the bounds
it is passed, so servers writing at once never pass one.
:class:`hosting.classroom.classes.Classes` checks everything else before it
calls a store, so a store only needs to be atomic where noted. Times are
seconds since the epoch, passed in (the store reads no clock), and a class
whose ``expires_at`` has passed is gone for every method.
"""

from __future__ import annotations

from typing import Protocol

from hosting.classroom.records import Answered, ClassRecord, Created, RequestUse


class ClassStore(Protocol):
    def create(
        self, code: str, key_digest: str, expires_at: float, now: float, max_open: int
    ) -> Created:
        """Open a class, last heard from at ``now``, checking in one atomic step: FULL if
        ``open_classes(now) >= max_open``, TAKEN if an open class has ``code``; else OPENED
        (two starts never share a code nor open more than ``max_open`` classes)."""

    def open_classes(self, now: float) -> int:
        """How many classes are open (not expired, not ended): what ``create`` bounds."""

    def key_digest(self, code: str, now: float) -> str | None:
        """The stored hash of the class's teacher key; None if the class is gone."""

    def version(self, code: str, now: float) -> int | None:
        """The class's version; None if gone. What the class watcher reads: one cheap read."""

    def state(self, code: str, now: float) -> ClassRecord | None:
        """Everything a follower draws; None if gone."""

    def set_view(self, code: str, page: str, query_json: str) -> int:
        """The teacher's view; returns the new version."""

    def ask(self, code: str, question_id: str, question_json: str, max_questions: int) -> int:
        """Make a question the open one (kept in asked order, not revealed), checking in one
        atomic step: -1 if the class is gone, :data:`~hosting.classroom.records.FULL` (-3)
        if ``question_id`` is new to it and it has asked ``max_questions`` already (one
        asked again keeps its place and counts once); else the new version."""

    def reveal(self, code: str, question_id: str) -> int:
        """Show ``question_id``'s answer everywhere if it is the open question (atomic); the
        new version, -1 if the class is gone, :data:`~hosting.classroom.records.NOT_OPEN`
        (-2) if another question is open (or none)."""

    def questions(self, code: str) -> list[str]:
        """Every asked question's JSON, in the order asked."""

    def answer(
        self,
        code: str,
        question_id: str,
        student: str,
        answer: str,
        since: float,
        max_answers: int,
    ) -> Answered:
        """Record ``student``'s answer, checking in one atomic step, in this order: ALREADY
        if the class is gone, CLOSED if ``question_id`` is not the open question or its
        answer was revealed, ALREADY if they answered it before, ABSENT if they were not
        marked present at ``since`` or later, FULL if the question has ``max_answers``
        answers; else COUNTED."""

    def counts(self, code: str, question_id: str) -> dict[str, int]:
        """How many students gave each answer."""

    def answer_of(self, code: str, question_id: str, student: str) -> str | None:
        """The answer ``student`` gave to ``question_id`` (None if none): theirs to see again."""

    def join(self, code: str, student: str, now: float, max_students: int, since: float) -> bool:
        """Mark ``student`` present (the class is heard from at ``now``); False if they are
        new and ``max_students`` are present.

        Present: marked at ``since`` or later; the others are forgotten here, so a student
        who left (a closed tab, a reload's old session) frees their place.
        """

    def present(self, code: str, since: float) -> int:
        """How many students were marked present at ``since`` or later."""

    def first_use(self, code: str, request_id: str, now: float, max_changes: int) -> RequestUse:
        """Keep a teacher's request id, checking in one atomic step: REPLAYED if this class
        has seen it, FULL if the class keeps ``max_changes`` ids already; else FIRST (also
        for a gone class: the write that follows finds it gone).

        The class is heard from at ``now``: its teacher is changing something.
        """

    def reclaim(self, idle_since: float, now: float) -> int:
        """End every open class last heard from before ``idle_since``; how many ended."""

    def end(self, code: str) -> None:
        """Delete the class and everything in it."""
