"""Which store a server uses: SQLite in a data folder by default, Redis when a URL is set.

``ATTENTION_CLASS_STORE`` (an environment variable, or a Streamlit secret of
that name, which the app passes in) holds ``redis://host:port/db`` for Redis;
empty or unset means SQLite in the data folder (:func:`hosting.settings.class_store_file`).
"""

from __future__ import annotations

import os

from hosting.classroom.sqlite_store import SQLiteStore
from hosting.classroom.store import ClassStore
from hosting.settings import class_store_file

SETTING = "ATTENTION_CLASS_STORE"


def store_url(secret: str | None = None) -> str:
    """The configured store URL: the environment wins over the secret; "" for SQLite."""
    return (os.environ.get(SETTING) or secret or "").strip()


def open_store(url: str = "") -> ClassStore:
    """The store ``url`` names: ``redis://``/``rediss://``/``unix://`` -> Redis, "" -> SQLite."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        from hosting.classroom.redis_store import RedisStore  # only replicas need redis

        return RedisStore(url)
    if url:
        raise ValueError(f"{SETTING} must be a redis:// URL or empty, not {url[:20]!r}")
    return SQLiteStore(class_store_file())
