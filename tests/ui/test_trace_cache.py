"""The byte-bounded cache keeps the newest values that fit, and always the newest one; sessions
missing one key at once compute it once."""

from __future__ import annotations

import threading
import time

import pytest

from ui.pretrained.passes import ByteBoundedCache


def test_oldest_values_leave_when_the_bytes_run_out() -> None:
    cache: ByteBoundedCache[str] = ByteBoundedCache(max_bytes=10, size_of=len)
    assert cache.get("a", lambda: "aaaa") == "aaaa"
    assert cache.get("b", lambda: "bbbb") == "bbbb"
    assert cache.get("a", lambda: "never") == "aaaa"  # hit; "a" is now the newest
    cache.get("c", lambda: "cccc")  # 12 bytes > 10: "b", the least recent, leaves
    assert cache.get("b", lambda: "new b") == "new b"
    assert cache.misses == 4
    assert cache.total_bytes <= 10


def test_one_value_larger_than_the_budget_is_still_kept() -> None:
    cache: ByteBoundedCache[str] = ByteBoundedCache(max_bytes=3, size_of=len)
    cache.get("big", lambda: "x" * 100)
    assert cache.get("big", lambda: "recomputed") == "x" * 100


def test_sessions_missing_one_key_at_once_compute_it_once() -> None:
    cache: ByteBoundedCache[list[int]] = ByteBoundedCache(max_bytes=100, size_of=len)
    calls: list[int] = []
    started = threading.Event()

    def slow() -> list[int]:
        calls.append(1)
        started.set()
        time.sleep(0.05)  # the others arrive while it runs
        return [1, 2, 3]

    results: list[list[int]] = []
    first = threading.Thread(target=lambda: results.append(cache.get("layer", slow)))
    first.start()
    started.wait()
    others = [
        threading.Thread(target=lambda: results.append(cache.get("layer", slow))) for _ in range(7)
    ]
    for thread in others:
        thread.start()
    for thread in [first, *others]:
        thread.join()
    assert len(calls) == 1 and cache.misses == 1
    assert len(results) == 8 and all(result is results[0] for result in results)


def test_a_failed_computation_leaves_the_key_to_the_next_caller() -> None:
    cache: ByteBoundedCache[str] = ByteBoundedCache(max_bytes=10, size_of=len)

    def failing() -> str:
        raise ValueError("no")

    with pytest.raises(ValueError):
        cache.get("a", failing)
    assert cache.get("a", lambda: "aa") == "aa"
