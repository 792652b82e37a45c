"""The embedded class store: one SQLite file in WAL mode, for one server process.

No setup: the file and its tables are made on first use. One connection,
shared by the server's session threads behind a lock (Streamlit runs each
rerun on a new thread, so a connection per thread would be opened per rerun).
Every write is one short transaction. Expired classes are swept when a class
is created. A database that stays locked or a full disk (``sqlite3.OperationalError``)
is :class:`hosting.classroom.records.StoreUnavailableError` to the caller.
When a class was last heard from is a table of its own (``heard``), so a file made
before it existed opens as it is; its classes count as unheard until used.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hosting.classroom import sqlite_rows
from hosting.classroom.records import (
    FULL,
    NOT_OPEN,
    Answered,
    ClassRecord,
    Created,
    RequestUse,
    unavailable_on,
)

BUSY_SECONDS = 5.0  #: how long a write waits for another process's lock before giving up

unavailable = unavailable_on(sqlite3.OperationalError)


class SQLiteStore:
    """A :class:`hosting.classroom.store.ClassStore` in the SQLite file at ``path``."""

    @unavailable_on(sqlite3.OperationalError, OSError)  # also a data folder it cannot make
    def __init__(self, path: Path | str, busy_seconds: float = BUSY_SECONDS) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(f"PRAGMA busy_timeout={int(busy_seconds * 1000)}")
            self._db.executescript(sqlite_rows.SCHEMA)

    def close(self) -> None:
        """Close the file (a test's store; the app keeps one for its life)."""
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                # A failed COMMIT (busy, disk full) leaves the transaction open; some errors
                # have already rolled it back. Either way the next request starts clean.
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def _one(self, sql: str, *args: object) -> tuple | None:
        with self._lock:
            return self._db.execute(sql, args).fetchone()

    @unavailable
    def create(
        self, code: str, key_digest: str, expires_at: float, now: float, max_open: int
    ) -> Created:
        with self._transaction() as db:
            sqlite_rows.delete_expired(db, now)
            if sqlite_rows.count(db, "classes WHERE expires_at > ?", (now,)) >= max_open:
                return Created.FULL
            if sqlite_rows.has_row(db, "classes WHERE code = ?", (code,)):
                return Created.TAKEN
            db.execute(
                "INSERT INTO classes (code, key_digest, expires_at) VALUES (?, ?, ?)",
                (code, key_digest, expires_at),
            )
            sqlite_rows.heard(db, code, now)
            return Created.OPENED

    @unavailable
    def reclaim(self, idle_since: float, now: float) -> int:
        with self._transaction() as db:
            idle = [
                row[0]
                for row in db.execute(
                    "SELECT classes.code FROM classes LEFT JOIN heard USING (code) "
                    "WHERE classes.expires_at > ? AND COALESCE(heard.at, 0) < ?",
                    (now, idle_since),
                )
            ]
            sqlite_rows.delete(db, idle)
            return len(idle)

    @unavailable
    def open_classes(self, now: float) -> int:
        row = self._one("SELECT COUNT(*) FROM classes WHERE expires_at > ?", now)
        return int(row[0]) if row else 0

    @unavailable
    def key_digest(self, code: str, now: float) -> str | None:
        row = self._one(
            "SELECT key_digest FROM classes WHERE code = ? AND expires_at > ?", code, now
        )
        return str(row[0]) if row else None

    @unavailable
    def version(self, code: str, now: float) -> int | None:
        row = self._one("SELECT version FROM classes WHERE code = ? AND expires_at > ?", code, now)
        return int(row[0]) if row else None

    @unavailable
    def state(self, code: str, now: float) -> ClassRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT version, expires_at, page, query, question_id, revealed FROM classes "
                "WHERE code = ? AND expires_at > ?",
                (code, now),
            ).fetchone()
            if row is None:
                return None
            version, expires_at, page, query, question_id, revealed = row
            asked = self._db.execute("SELECT COUNT(*) FROM questions WHERE code = ?", (code,))
            body = self._db.execute(
                "SELECT body FROM questions WHERE code = ? AND id = ?", (code, question_id)
            ).fetchone()
            n_asked = int(asked.fetchone()[0])
        return ClassRecord(
            code=code,
            version=int(version),
            expires_at=float(expires_at),
            page=page,
            query=json.loads(query),
            question=json.loads(body[0]) if body else None,
            revealed=bool(revealed),
            asked=n_asked,
        )

    @unavailable
    def set_view(self, code: str, page: str, query_json: str) -> int:
        with self._transaction() as db:
            return sqlite_rows.bump(db, code, "page = ?, query = ?", page, query_json)

    @unavailable
    def ask(self, code: str, question_id: str, question_json: str, max_questions: int) -> int:
        with self._transaction() as db:
            if sqlite_rows.gone(db, code):
                return -1
            asked = sqlite_rows.count(db, "questions WHERE code = ?", (code,))
            if asked >= max_questions and not sqlite_rows.has_row(
                db, "questions WHERE code = ? AND id = ?", (code, question_id)
            ):
                return FULL
            db.execute(
                "INSERT OR IGNORE INTO questions (code, id, position, body) VALUES "
                "(?, ?, (SELECT COUNT(*) FROM questions WHERE code = ?), ?)",
                (code, question_id, code, question_json),
            )
            return sqlite_rows.bump(db, code, "question_id = ?, revealed = 0", question_id)

    @unavailable
    def reveal(self, code: str, question_id: str) -> int:
        with self._transaction() as db:
            if sqlite_rows.gone(db, code):
                return -1
            row = db.execute(
                "UPDATE classes SET version = version + 1, revealed = 1 "
                "WHERE code = ? AND question_id = ? RETURNING version",
                (code, question_id),
            ).fetchone()
            return int(row[0]) if row else NOT_OPEN

    @unavailable
    def questions(self, code: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM questions WHERE code = ? ORDER BY position", (code,)
            ).fetchall()
        return [row[0] for row in rows]

    @unavailable
    def answer(
        self,
        code: str,
        question_id: str,
        student: str,
        answer: str,
        since: float,
        max_answers: int,
    ) -> Answered:
        with self._transaction() as db:
            if sqlite_rows.gone(db, code):
                return Answered.ALREADY  # as Redis: the next read finds the class gone
            open_question = "classes WHERE code = ? AND question_id = ? AND revealed = 0"
            if not sqlite_rows.has_row(db, open_question, (code, question_id)):
                return Answered.CLOSED
            if sqlite_rows.has_row(
                db,
                "answers WHERE code = ? AND question_id = ? AND student = ?",
                (code, question_id, student),
            ):
                return Answered.ALREADY
            if not sqlite_rows.has_row(
                db, "presence WHERE code = ? AND student = ? AND seen >= ?", (code, student, since)
            ):
                return Answered.ABSENT
            answers = sqlite_rows.count(
                db, "answers WHERE code = ? AND question_id = ?", (code, question_id)
            )
            if answers >= max_answers:
                return Answered.FULL
            db.execute(
                "INSERT INTO answers (code, question_id, student, answer) VALUES (?, ?, ?, ?)",
                (code, question_id, student, answer),
            )
            return Answered.COUNTED

    @unavailable
    def counts(self, code: str, question_id: str) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question_id = ? "
                "GROUP BY answer",
                (code, question_id),
            ).fetchall()
        return {str(answer): int(count) for answer, count in rows}

    @unavailable
    def answer_of(self, code: str, question_id: str, student: str) -> str | None:
        row = self._one(
            "SELECT answer FROM answers WHERE code = ? AND question_id = ? AND student = ?",
            code,
            question_id,
            student,
        )
        return str(row[0]) if row else None

    @unavailable
    def join(self, code: str, student: str, now: float, max_students: int, since: float) -> bool:
        with self._transaction() as db:
            if sqlite_rows.gone(db, code):
                return True  # as Redis: the next read finds the class gone
            db.execute("DELETE FROM presence WHERE code = ? AND seen < ?", (code, since))
            known = db.execute(
                "SELECT 1 FROM presence WHERE code = ? AND student = ?", (code, student)
            ).fetchone()
            if not known:
                (joined,) = db.execute(
                    "SELECT COUNT(*) FROM presence WHERE code = ?", (code,)
                ).fetchone()
                if joined >= max_students:
                    return False
            db.execute(
                "INSERT INTO presence (code, student, seen) VALUES (?, ?, ?) "
                "ON CONFLICT (code, student) DO UPDATE SET seen = excluded.seen",
                (code, student, now),
            )
            sqlite_rows.heard(db, code, now)
            return True

    @unavailable
    def present(self, code: str, since: float) -> int:
        row = self._one("SELECT COUNT(*) FROM presence WHERE code = ? AND seen >= ?", code, since)
        return int(row[0]) if row else 0

    @unavailable
    def first_use(self, code: str, request_id: str, now: float, max_changes: int) -> RequestUse:
        with self._transaction() as db:
            if sqlite_rows.gone(db, code):
                return RequestUse.FIRST  # as Redis: the write that follows finds the class gone
            sqlite_rows.heard(db, code, now)
            if sqlite_rows.has_row(db, "requests WHERE code = ? AND id = ?", (code, request_id)):
                return RequestUse.REPLAYED
            if sqlite_rows.count(db, "requests WHERE code = ?", (code,)) >= max_changes:
                return RequestUse.FULL
            db.execute("INSERT INTO requests (code, id) VALUES (?, ?)", (code, request_id))
            return RequestUse.FIRST

    @unavailable
    def end(self, code: str) -> None:
        with self._transaction() as db:
            sqlite_rows.delete(db, [code])
