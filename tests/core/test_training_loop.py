"""The one training loop: when it evaluates, why it stops, and the turn it trains in."""

from __future__ import annotations

import time

import pytest
import torch

from attention_core.training.config import TrainingConfig
from attention_core.training.loop import in_turn, train_loop
from attention_core.training.optimiser import AdamW
from hosting.turns import Turns


class Quadratic:
    """Minimises ``(w - 3)^2``; records what the loop hands it, stops at ``stop_at``."""

    def __init__(self, stop_at: int | None = None, loss_scale: float = 1.0) -> None:
        self.weight = torch.nn.Parameter(torch.zeros(()))
        self.stop_at, self.loss_scale = stop_at, loss_scale
        self.rates: list[int] = []
        self.evaluated: list[tuple[int, float | None]] = []
        self.reported: list[int] = []

    def learning_rate(self, step: int) -> float:
        self.rates.append(step)
        return 0.1

    def batch_loss(self) -> torch.Tensor:
        return self.loss_scale * (self.weight - 3.0) ** 2

    def evaluate(self, step: int, train_loss: float | None) -> None:
        self.evaluated.append((step, train_loss))

    def report(self, step: int, seconds: float) -> None:
        self.reported.append(step)

    def stop_reason(self, step: int) -> str | None:
        return f"stopped by the run at {step}" if step == self.stop_at else None


def run_loop(
    run: Quadratic, config: TrainingConfig, started: float | None = None, **flags: bool
) -> str:
    optimiser = AdamW([run.weight], 0.1)
    started = time.perf_counter() if started is None else started
    return train_loop(run, optimiser, config, started, **flags)


def test_the_loop_evaluates_every_interval_and_at_the_last_step() -> None:
    run = Quadratic()
    reason = run_loop(run, TrainingConfig(steps=7, eval_every=3, max_seconds=60))
    assert reason == "finished all 7 steps"
    assert [step for step, _ in run.evaluated] == run.reported == [3, 6, 7]
    assert run.rates == list(range(1, 8))
    assert all(loss is not None and loss > 0 for _, loss in run.evaluated)
    assert 0 < float(run.weight.detach()) < 3


def test_an_untrained_evaluation_comes_first_without_a_training_loss() -> None:
    run = Quadratic()
    run_loop(run, TrainingConfig(steps=4, eval_every=2, max_seconds=60), evaluate_untrained=True)
    assert run.evaluated[0] == (0, None)
    assert [step for step, _ in run.evaluated] == [0, 2, 4]


def test_the_mean_training_loss_since_the_last_evaluation_is_handed_over() -> None:
    run = Quadratic()
    run_loop(run, TrainingConfig(steps=1, eval_every=1, max_seconds=60))
    assert run.evaluated == [(1, 9.0)]  # (0 - 3)^2 before the first update


def test_the_run_stops_for_its_own_reason_after_reporting() -> None:
    run = Quadratic(stop_at=4)
    assert (
        run_loop(run, TrainingConfig(steps=10, eval_every=2, max_seconds=60))
        == "stopped by the run at 4"
    )
    assert run.reported == [2, 4]


def test_the_time_budget_stops_at_the_first_evaluation_past_it() -> None:
    run = Quadratic()
    reason = run_loop(
        run, TrainingConfig(steps=10, eval_every=2, max_seconds=1), time.perf_counter() - 5
    )
    assert reason == "stopped at step 2: time budget of 1 s used"


def test_a_loss_that_is_not_finite_stops_before_the_update_when_asked() -> None:
    run = Quadratic(loss_scale=float("inf"))
    config = TrainingConfig(steps=5, eval_every=1, max_seconds=60)
    reason = run_loop(run, config, stop_on_divergence=True)
    assert reason == "stopped at step 1: the loss became infinite (diverged)"
    assert run.evaluated == [] and float(run.weight.detach()) == 0.0


def test_a_turn_runs_on_one_thread_seeds_torch_and_restores_both() -> None:
    threads, before = torch.get_num_threads(), torch.random.get_rng_state()

    def draw() -> tuple[int, torch.Tensor]:
        return torch.get_num_threads(), torch.rand(2)

    in_thread, drawn = in_turn(draw, seed=4, turns=Turns())

    assert in_thread == 1
    torch.testing.assert_close(drawn, torch.rand(2, generator=torch.Generator().manual_seed(4)))
    assert torch.equal(torch.random.get_rng_state(), before)
    assert torch.get_num_threads() == threads


def test_an_exception_ends_the_turn_and_restores_the_threads() -> None:
    turns, threads = Turns(), torch.get_num_threads()

    def fail() -> None:
        raise KeyError("stop")

    with pytest.raises(KeyError):
        in_turn(fail, turns=turns)
    assert turns.running == 0 and turns.waiting == 0
    assert torch.get_num_threads() == threads
