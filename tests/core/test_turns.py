"""Trainings take turns: first come, first served, each waiting run told its place."""

from __future__ import annotations

import threading
import time

import pytest

from hosting.turns import Gate, Turns


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_runs_start_in_arrival_order_and_each_waiting_run_knows_how_many_are_ahead() -> None:
    turns = Turns(at_once=1)
    started: list[int] = []
    places: dict[int, list[int]] = {1: [], 2: [], 3: []}
    release = threading.Event()

    def run(number: int) -> None:
        with turns.turn(places.get(number, []).append if number else None):
            started.append(number)
            if number == 0:
                release.wait(10)

    threads = [threading.Thread(target=run, args=(0,))]
    threads[0].start()
    wait_until(lambda: turns.running == 1)
    for number in (1, 2, 3):
        threads.append(threading.Thread(target=run, args=(number,)))
        threads[-1].start()
        wait_until(lambda n=number: turns.waiting == n and places[n])
    assert [places[n][0] for n in (1, 2, 3)] == [1, 2, 3]  # the running one counts too
    release.set()
    for thread in threads:
        thread.join(10)
    assert started == [0, 1, 2, 3]
    assert turns.running == 0 and turns.waiting == 0


def test_leaving_the_queue_while_waiting_frees_the_place() -> None:
    turns = Turns(at_once=1)
    release = threading.Event()

    class LeftError(Exception):
        pass

    def hold() -> None:
        with turns.turn():
            release.wait(10)

    def impatient(ahead: int) -> None:
        raise LeftError

    holder = threading.Thread(target=hold)
    holder.start()
    wait_until(lambda: turns.running == 1)
    with pytest.raises(LeftError), turns.turn(impatient):
        pass
    assert turns.waiting == 0
    release.set()
    holder.join(10)
    with turns.turn():  # the queue still works
        assert turns.running == 1
    assert turns.running == 0


def test_at_once_lets_that_many_run_together_and_estimates_the_wait() -> None:
    turns = Turns(at_once=2)
    inside = threading.Barrier(3, timeout=10)

    def run() -> None:
        with turns.turn():
            inside.wait()  # both are inside at the same time, or this times out

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    for thread in threads:
        thread.join(10)
    assert turns.wait_seconds(4) == pytest.approx(4 * turns.typical_seconds() / 2)


def test_a_waiting_training_is_told_its_place_and_about_how_long() -> None:
    turns = Turns(at_once=1)
    with turns.turn():
        time.sleep(0.05)
    seconds = max(1, round(turns.typical_seconds()))
    assert turns.waiting_words(1) == (
        f"Waiting for the server's trainer: 1 model ahead of yours, about {seconds} s."
    )
    assert turns.waiting_words(3).startswith("Waiting for the server's trainer: 3 models ahead")


def test_an_interrupted_turn_does_not_count_towards_the_typical_length() -> None:
    turns = Turns(at_once=1)
    with turns.turn():
        pass
    quick = turns.typical_seconds()
    with pytest.raises(KeyboardInterrupt), turns.turn():
        time.sleep(0.3)
        raise KeyboardInterrupt  # as a stopped script leaves a training
    assert turns.typical_seconds() == quick < 0.3
    assert turns.running == 0


def test_a_gate_lets_at_most_its_number_in_and_each_waiter_in_as_a_holder_leaves() -> None:
    gate = Gate(at_once=2, patience=60.0)
    inside: list[int] = []
    most = [0]
    lock = threading.Lock()
    release = threading.Event()
    turns_held: list[bool] = []

    def run(number: int) -> None:
        with gate.turn() as held:
            with lock:
                inside.append(number)
                most[0] = max(most[0], len(inside))
                turns_held.append(held)
            release.wait(10)
            with lock:
                inside.remove(number)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(inside) == 2)
    time.sleep(0.1)  # the other four are waiting, not inside
    assert len(inside) == 2
    release.set()
    for thread in threads:
        thread.join(10)
    assert most[0] == 2
    assert turns_held == [True] * 6


def test_a_gate_waiter_goes_in_without_a_turn_after_its_patience_and_gives_none_back() -> None:
    gate = Gate(at_once=1, patience=0.05)
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with gate.turn():
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(10)
    with gate.turn() as held:  # the holder is still inside
        assert not held
    release.set()
    holder.join(10)
    with gate.turn() as held:  # one turn, as before: nothing was given back twice
        assert held
        with gate.turn() as second:
            assert not second


def test_a_gate_turn_is_given_back_when_the_run_raises() -> None:
    gate = Gate(at_once=1, patience=0.05)
    with pytest.raises(RuntimeError), gate.turn():
        raise RuntimeError("the script stopped")
    with gate.turn() as held:
        assert held
