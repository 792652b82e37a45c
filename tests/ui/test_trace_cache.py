"""The byte-bounded cache keeps the newest values that fit, and always the newest one."""

from __future__ import annotations

from ui.pretrained.cache import ByteBoundedCache


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
