"""The shared-training cache (learning, time series): one run per key, bounded, never half-done."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

from ui.shared.training_cache import TrainingCache


def test_two_sessions_asking_at_the_same_moment_train_once_and_share_the_result() -> None:
    runs: TrainingCache[object, int] = TrainingCache(max_entries=4, ttl_seconds=60)
    trainings, seen, waited = [], [], []
    started = threading.Event()

    def train(report) -> object:
        trainings.append(threading.current_thread().name)
        started.set()
        for step in range(5):
            report(step)
            time.sleep(0.05)
        return object()

    def session() -> None:
        seen.append(runs.get_or_train("reverse|seed 0", train, waited.append))

    first = threading.Thread(target=session, name="first")
    second = threading.Thread(target=session, name="second")
    first.start()
    started.wait()
    second.start()  # asks while the first is training
    first.join()
    second.join()
    assert trainings == ["first"]
    assert len(seen) == 2 and seen[0] is seen[1]
    assert waited and all(update is None or 0 <= update < 5 for update in waited)
    assert runs.slot("reverse|seed 0").runs == 1


def test_many_threads_at_once_still_train_once() -> None:
    runs: TrainingCache[int, int] = TrainingCache(max_entries=4, ttl_seconds=60)
    calls = []
    barrier = threading.Barrier(8)

    def train(report) -> int:
        calls.append(1)
        time.sleep(0.1)
        return 42

    results = []

    def session() -> None:
        barrier.wait()
        results.append(runs.get_or_train("key", train))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1] and results == [42] * 8


@pytest.mark.parametrize("interruption", [StopException, RerunException])
def test_a_rerun_that_stops_training_leaves_nothing_and_the_next_session_trains(
    interruption: type[BaseException],
) -> None:
    runs: TrainingCache[str, int] = TrainingCache(max_entries=4, ttl_seconds=60)

    def interrupted(report) -> str:
        report(10)
        # What Streamlit raises inside the script thread when the user reruns or leaves.
        raise interruption(None) if interruption is RerunException else interruption()

    with pytest.raises(interruption):
        runs.get_or_train("sort", interrupted)
    assert runs.cached("sort") is None
    assert runs.slot("sort").progress is None  # no stale progress for the next session
    assert runs.get_or_train("sort", lambda report: "trained") == "trained"
    assert runs.slot("sort").runs == 2


def test_a_session_waiting_while_another_is_interrupted_trains_itself() -> None:
    runs: TrainingCache[str, int] = TrainingCache(max_entries=4, ttl_seconds=60)
    started = threading.Event()
    outcome = {}

    def interrupted(report) -> str:
        started.set()
        time.sleep(0.3)
        raise StopException()

    def first() -> None:
        try:
            runs.get_or_train("k", interrupted)
        except StopException:
            outcome["first"] = "stopped"

    thread = threading.Thread(target=first)
    thread.start()
    started.wait()
    outcome["second"] = runs.get_or_train("k", lambda report: "second trained")
    thread.join()
    assert outcome == {"first": "stopped", "second": "second trained"}


def test_the_cache_keeps_at_most_max_entries_dropping_the_least_recently_used() -> None:
    runs: TrainingCache[str, int] = TrainingCache(max_entries=2, ttl_seconds=60)
    for key in ("a", "b"):
        runs.get_or_train(key, lambda report, key=key: key)
    runs.slot("a")  # used again: now "b" is the oldest
    runs.get_or_train("c", lambda report: "c")
    assert len(runs) == 2
    assert runs.cached("a") == "a" and runs.cached("c") == "c" and runs.cached("b") is None


def test_expired_results_are_trained_again() -> None:
    runs: TrainingCache[str, int] = TrainingCache(max_entries=2, ttl_seconds=0.0)
    runs.get_or_train("a", lambda report: "old")
    time.sleep(0.01)
    assert runs.get_or_train("a", lambda report: "new") == "new"


def test_two_sessions_training_the_same_real_model_at_once_train_it_once() -> None:
    from attention_core.learning import training
    from attention_core.learning.config import DEFAULTS

    runs: TrainingCache[training.TinyTransformerResult, training.TrainingProgress] = TrainingCache(
        4, 60
    )
    model, train = DEFAULTS["reverse"]
    results, barrier = [], threading.Barrier(2)

    def session() -> None:
        barrier.wait()
        results.append(
            runs.get_or_train(
                (model, train), lambda report: training.train_model(model, train, report)
            )
        )

    threads = [threading.Thread(target=session) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results[0] is results[1] and runs.slot((model, train)).runs == 1
    assert results[0].held_out[-1] >= 0.99
