"""Which store a server opens: SQLite in the data folder, Redis for a redis:// URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from hosting import settings
from hosting.classroom.redis_store import RedisStore
from hosting.classroom.settings import open_store, store_url
from hosting.classroom.sqlite_store import SQLiteStore


def test_no_url_opens_sqlite_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTENTION_DATA_DIR", str(tmp_path / "data"))
    store = open_store("")
    assert isinstance(store, SQLiteStore)
    assert (tmp_path / "data" / "classes.sqlite3").is_file()
    store.close()


def test_without_a_data_folder_setting_sqlite_lives_in_the_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATTENTION_DATA_DIR", raising=False)
    monkeypatch.setattr(settings, "DEFAULT_DATA_DIR", tmp_path / "default")
    store = open_store("")
    assert isinstance(store, SQLiteStore)
    assert (tmp_path / "default" / "classes.sqlite3").is_file()
    store.close()


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:6379/0", "rediss://cache.example:6380/1", "unix:///tmp/r.sock"]
)
def test_a_redis_url_opens_redis(url: str) -> None:
    store = open_store(url)
    assert isinstance(store, RedisStore)
    store.close()


@pytest.mark.parametrize("url", ["postgres://db/classes", "sqlite:///x", "127.0.0.1:6379", "data"])
def test_any_other_url_is_refused_with_the_setting_named(url: str) -> None:
    with pytest.raises(ValueError, match="ATTENTION_CLASS_STORE must be a redis:// URL or empty"):
        open_store(url)


def test_the_environment_wins_over_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_CLASS_STORE", " redis://env:6379/0 ")
    assert store_url("redis://secret:6379/0") == "redis://env:6379/0"


def test_the_secret_is_used_when_the_environment_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATTENTION_CLASS_STORE", raising=False)
    assert store_url("redis://secret:6379/0") == "redis://secret:6379/0"
    assert store_url(None) == ""
    monkeypatch.setenv("ATTENTION_CLASS_STORE", "")
    assert store_url("redis://secret:6379/0") == "redis://secret:6379/0"
