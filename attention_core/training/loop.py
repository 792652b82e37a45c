r"""The one training loop both trained models use: bounded, seeded, one thread, taking turns.

.. math::
    \theta_{s} = \mathrm{AdamW}\big(\theta_{s-1},\ \nabla_\theta\, \mathcal{L}(\text{batch}_s)\big),
    \quad s = 1, \dots, \text{steps}

Every ``eval_every`` steps (and at the last) the run evaluates, reports its
progress and may stop: for its own reason (target reached, no more
improvement), or when its time budget is used. What is trained and how it is
judged comes from a :class:`TrainingRun`: the batch and its loss, the learning rate of
each step, the evaluation, the progress report and the stopping rule.
:func:`in_turn` runs a training on one thread, in its turn of the queue its caller
hands it (the server's is :data:`hosting.turns.TRAININGS`; the core never imports it).
Needs PyTorch; imported only by the training modules.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol, TypeVar

import numpy as np
import torch

from attention_core.training.config import TrainingConfig
from attention_core.training.optimiser import AdamW

Result = TypeVar("Result")


class TurnQueue(Protocol):
    """A queue trainings wait in: ``turn(waiting)`` holds a place for a ``with`` block.

    ``waiting(ahead)`` is called while runs are ahead of this one.
    """

    def turn(
        self, waiting: Callable[[int], None] | None = None
    ) -> AbstractContextManager[None]: ...


class TrainingRun(Protocol):
    """What a training run trains and how it judges it (:func:`train_loop` calls these)."""

    def learning_rate(self, step: int) -> float:
        """The optimiser's learning rate for training step ``step``."""
        ...

    def batch_loss(self) -> torch.Tensor:
        """The loss (a scalar with its graph) on a fresh training batch."""
        ...

    def evaluate(self, step: int, train_loss: float | None) -> None:
        """Evaluate after ``step`` and record it; ``train_loss`` is the mean since the last one.

        ``train_loss`` is None at step 0 (no training step yet).
        """
        ...

    def report(self, step: int, seconds: float) -> None:
        """Hand the latest evaluation to the page (``seconds`` since the run started)."""
        ...

    def stop_reason(self, step: int) -> str | None:
        """Why the run stops after this evaluation, or None to train on."""
        ...


def train_loop(
    run: TrainingRun,
    optimiser: AdamW,
    config: TrainingConfig,
    started: float,
    *,
    evaluate_untrained: bool = False,
    stop_on_divergence: bool = False,
) -> str:
    """Train until ``config``'s budget or ``run`` says stop; returns the reason, in words.

    ``started``: the run's :func:`time.perf_counter` start, for the time budget.
    ``evaluate_untrained``: evaluate at step 0 too, before any training step;
    ``stop_on_divergence``: stop at the first loss that is not finite.
    """
    running: list[float] = []  # training losses since the last evaluation
    for step in range(0 if evaluate_untrained else 1, config.steps + 1):
        if step > 0:
            optimiser.learning_rate = run.learning_rate(step)
            loss = run.batch_loss()
            if stop_on_divergence and not torch.isfinite(loss):
                return f"stopped at step {step}: the loss became infinite (diverged)"
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            running.append(loss.item())
            if step % config.eval_every and step != config.steps:
                continue
        run.evaluate(step, float(np.mean(running)) if running else None)
        running = []
        seconds = time.perf_counter() - started
        run.report(step, seconds)
        reason = run.stop_reason(step)
        if reason is not None:
            return reason
        if seconds > config.max_seconds:
            return f"stopped at step {step}: time budget of {config.max_seconds:g} s used"
    return f"finished all {config.steps} steps"


def in_turn(
    train: Callable[[], Result],
    waiting: Callable[[int], None] | None = None,
    seed: int | None = None,
    turns: TurnQueue | None = None,
) -> Result:
    """``train()`` in its turn of ``turns``, on one thread; the thread count is restored after.

    ``turns``: the queue to wait in (None: train at once, as a script alone does).
    ``waiting(ahead)`` is called while runs are ahead of this one. With a
    ``seed``, torch's global generator is seeded for the run and restored after.
    An exception from ``train`` (a page's callback) ends the turn.
    """
    turn = turns.turn(waiting) if turns is not None else contextlib.nullcontext()
    with turn, torch.random.fork_rng(devices=[], enabled=seed is not None):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            if seed is not None:
                torch.manual_seed(seed)
            return train()
        finally:
            torch.set_num_threads(threads)
