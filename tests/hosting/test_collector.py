"""hosting.collector: what a run imported is frozen out of the garbage collector's passes."""

from __future__ import annotations

import gc
import sys
import types
import weakref
from collections.abc import Iterator

import pytest

from hosting import collector


class Node:
    """An object that can be part of a reference cycle and be watched by a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture(autouse=True)
def unfrozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts as a process that never froze, and leaves nothing frozen."""
    monkeypatch.setattr(collector, "_modules_frozen", 0)
    yield
    gc.unfreeze()


def import_a_module(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setitem(sys.modules, name, types.ModuleType(name))


def test_it_freezes_once_per_new_import_and_not_again_until_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert collector.freeze_new_imports()
    assert gc.get_freeze_count() > 0
    assert not collector.freeze_new_imports()  # nothing imported since
    import_a_module(monkeypatch, "a_page_imported_later")
    assert collector.freeze_new_imports()
    assert not collector.freeze_new_imports()


def test_a_cycle_that_was_garbage_is_collected_first_not_frozen() -> None:
    first, second = Node(), Node()
    first.other, second.other = second, first
    watched = weakref.ref(first)
    del first, second  # garbage, but only the cyclic collector frees a cycle
    assert collector.freeze_new_imports()
    assert watched() is None


def test_a_frozen_object_is_still_freed_when_nothing_refers_to_it() -> None:
    kept = [Node()]
    watched = weakref.ref(kept[0])
    assert collector.freeze_new_imports()
    assert watched() is not None  # alive, so frozen
    kept.clear()
    assert watched() is None  # reference counting frees it without any collection
