"""The SQLite class store's tables, and the row operations its writes share.

Each function takes the connection inside the store's transaction
(:class:`hosting.classroom.sqlite_store.SQLiteStore`).
"""

from __future__ import annotations

import sqlite3

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
CREATE TABLE IF NOT EXISTS heard (code TEXT PRIMARY KEY, at REAL NOT NULL);
"""
CHILD_TABLES = ("questions", "answers", "presence", "requests", "heard")


def has_row(db: sqlite3.Connection, rows: str, args: tuple[object, ...]) -> bool:
    """Whether ``SELECT 1 FROM <rows>`` finds one (``rows``: a table and its condition)."""
    return db.execute(f"SELECT 1 FROM {rows}", args).fetchone() is not None


def count(db: sqlite3.Connection, rows: str, args: tuple[object, ...]) -> int:
    """How many rows ``SELECT COUNT(*) FROM <rows>`` counts."""
    return int(db.execute(f"SELECT COUNT(*) FROM {rows}", args).fetchone()[0])


def heard(db: sqlite3.Connection, code: str, now: float) -> None:
    """The class ``code`` was heard from at ``now`` (the latest time is kept)."""
    db.execute(
        "INSERT INTO heard (code, at) VALUES (?, ?) "
        "ON CONFLICT (code) DO UPDATE SET at = MAX(at, excluded.at)",
        (code, now),
    )


def gone(db: sqlite3.Connection, code: str) -> bool:
    """Whether ``code`` has no class: a write that raced its end must leave no row."""
    return db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None


def delete(db: sqlite3.Connection, codes: list[str]) -> None:
    """Every row of the classes ``codes``."""
    for code in codes:
        db.execute("DELETE FROM classes WHERE code = ?", (code,))
        for table in CHILD_TABLES:
            db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))


def delete_expired(db: sqlite3.Connection, now: float) -> None:
    """Every row of the classes expired at ``now``."""
    expired = db.execute("SELECT code FROM classes WHERE expires_at <= ?", (now,)).fetchall()
    delete(db, [row[0] for row in expired])


def bump(db: sqlite3.Connection, code: str, assignments: str, *args: object) -> int:
    """Set ``assignments`` (SQL, with ``args``) and move the class's version on: the new
    version, or -1 if there is no class ``code``."""
    row = db.execute(
        f"UPDATE classes SET version = version + 1, {assignments} WHERE code = ? RETURNING version",
        (*args, code),
    ).fetchone()
    return int(row[0]) if row else -1
