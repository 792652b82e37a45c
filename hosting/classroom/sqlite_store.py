"""The embedded class store: one SQLite file in WAL mode, for one server process.

No setup: the file and its tables are made on first use. One connection,
shared by the server's session threads behind a lock (Streamlit runs each
rerun on a new thread, so a connection per thread would be opened per rerun).
Every write is one short transaction. Expired classes are swept when a class
is created.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hosting.classroom.records import ClassState

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key_digest TEXT NOT NULL, expires_at REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, page TEXT NOT NULL DEFAULT '',
    query TEXT NOT NULL DEFAULT '{}', question_id TEXT, revealed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS questions (
    code TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (code, id));
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL, question_id TEXT NOT NULL, student TEXT NOT NULL, answer TEXT NOT NULL,
    PRIMARY KEY (code, question_id, student));
CREATE TABLE IF NOT EXISTS presence (
    code TEXT NOT NULL, student TEXT NOT NULL, seen REAL NOT NULL, PRIMARY KEY (code, student));
CREATE TABLE IF NOT EXISTS requests (
    code TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (code, id));
"""
CHILD_TABLES = ("questions", "answers", "presence", "requests")


class SQLiteStore:
    """A :class:`hosting.classroom.store.ClassStore` in the SQLite file at ``path``."""

    def __init__(self, path: Path | str) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(SCHEMA)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _one(self, sql: str, *args: object) -> tuple | None:
        with self._lock:
            return self._db.execute(sql, args).fetchone()

    def _delete(self, db: sqlite3.Connection, codes: list[str]) -> None:
        for code in codes:
            db.execute("DELETE FROM classes WHERE code = ?", (code,))
            for table in CHILD_TABLES:
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def create(self, code: str, key_digest: str, expires_at: float, now: float) -> bool:
        with self._transaction() as db:
            expired = [
                row[0]
                for row in db.execute("SELECT code FROM classes WHERE expires_at <= ?", (now,))
            ]
            self._delete(db, expired)
            taken = db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone()
            if taken:
                return False
            db.execute(
                "INSERT INTO classes (code, key_digest, expires_at) VALUES (?, ?, ?)",
                (code, key_digest, expires_at),
            )
            return True

    def open_classes(self, now: float) -> int:
        row = self._one("SELECT COUNT(*) FROM classes WHERE expires_at > ?", now)
        return int(row[0]) if row else 0

    def key_digest(self, code: str, now: float) -> str | None:
        row = self._one(
            "SELECT key_digest FROM classes WHERE code = ? AND expires_at > ?", code, now
        )
        return str(row[0]) if row else None

    def version(self, code: str, now: float) -> int | None:
        row = self._one("SELECT version FROM classes WHERE code = ? AND expires_at > ?", code, now)
        return int(row[0]) if row else None

    def state(self, code: str, now: float) -> ClassState | None:
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
        return ClassState(
            code=code,
            version=int(version),
            expires_at=float(expires_at),
            page=page,
            query=json.loads(query),
            question=json.loads(body[0]) if body else None,
            revealed=bool(revealed),
            asked=n_asked,
        )

    def _bump(self, db: sqlite3.Connection, code: str, assignments: str, *args: object) -> int:
        row = db.execute(
            f"UPDATE classes SET version = version + 1, {assignments} WHERE code = ? "
            "RETURNING version",
            (*args, code),
        ).fetchone()
        return int(row[0]) if row else -1

    def set_view(self, code: str, page: str, query_json: str) -> int:
        with self._transaction() as db:
            return self._bump(db, code, "page = ?, query = ?", page, query_json)

    def ask(self, code: str, question_id: str, question_json: str) -> int:
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO questions (code, id, position, body) VALUES "
                "(?, ?, (SELECT COUNT(*) FROM questions WHERE code = ?), ?)",
                (code, question_id, code, question_json),
            )
            return self._bump(db, code, "question_id = ?, revealed = 0", question_id)

    def reveal(self, code: str, question_id: str) -> int:
        with self._transaction() as db:
            return self._bump(db, code, "revealed = 1")

    def questions(self, code: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM questions WHERE code = ? ORDER BY position", (code,)
            ).fetchall()
        return [row[0] for row in rows]

    def answer(self, code: str, question_id: str, student: str, answer: str) -> bool:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO answers (code, question_id, student, answer) "
                "VALUES (?, ?, ?, ?)",
                (code, question_id, student, answer),
            )
            return cursor.rowcount == 1

    def counts(self, code: str, question_id: str) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question_id = ? "
                "GROUP BY answer",
                (code, question_id),
            ).fetchall()
        return {str(answer): int(count) for answer, count in rows}

    def join(self, code: str, student: str, now: float, max_students: int) -> bool:
        with self._transaction() as db:
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
            return True

    def present(self, code: str, since: float) -> int:
        row = self._one("SELECT COUNT(*) FROM presence WHERE code = ? AND seen >= ?", code, since)
        return int(row[0]) if row else 0

    def first_use(self, code: str, request_id: str) -> bool:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO requests (code, id) VALUES (?, ?)", (code, request_id)
            )
            return cursor.rowcount == 1

    def end(self, code: str) -> None:
        with self._transaction() as db:
            self._delete(db, [code])
