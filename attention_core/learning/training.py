r"""Training the tiny transformer on a toy task: one thread, bounded, seeded, snapshots on the way.

AdamW on the cross-entropy of the task's targets, on fresh random batches
(never a held-out sequence). Every ``eval_every`` steps: token accuracy on
held-out sequences, and the model's matrices copied to NumPy, from which
:mod:`.forward` computes every head's attention on a fixed probe and the head
scores. The attention of about :data:`N_SNAPSHOTS` of those evaluations is kept
for the replay, and the final matrices for "Try it".

A run stops at its step count or its time budget, or ``extra_steps`` after the
target accuracy: those last steps anneal the learning rate linearly to zero,
which sharpens the heads and keeps the accuracy that was reached. The result
holds read-only NumPy arrays only, so every session can share it. An exception
from a callback (a Streamlit rerun stops the script that way) ends the run and
leaves nothing behind. Needs PyTorch; imported only on demand
(``from attention_core.learning import training``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from attention_core.boundary.arrays import read_only
from attention_core.learning.config import TinyTransformerConfig, check_task_training
from attention_core.learning.forward import ModelArrays, forward
from attention_core.learning.model import TinyTransformer, weights_as_arrays
from attention_core.learning.patterns import head_scores
from attention_core.learning.result import TinyTransformerResult
from attention_core.learning.tasks import (
    IGNORE,
    Batch,
    Task,
    get_task,
    held_out_batch,
    is_held_out,
)
from attention_core.training.config import TrainingConfig
from attention_core.training.loop import TurnQueue, in_turn, train_loop
from attention_core.training.optimiser import AdamW
from attention_core.training.result import TrainingProgress

N_SNAPSHOTS = 20
N_SCORED = 8  # the probe and 7 held-out sequences: head scores are their mean


def training_batch(task_name: str, rng: np.random.Generator, size: int) -> Batch:
    """``size`` fresh random sequences, none of them held out."""
    task = get_task(task_name)
    candidates = task.make(rng, 2 * size)
    keep = np.flatnonzero(~is_held_out(candidates.tokens))[:size]
    return Batch(candidates.tokens[keep], candidates.targets[keep])


def token_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    """Share of asked tokens ``targets != IGNORE`` whose arg-max logit is right."""
    asked = targets != IGNORE
    return float((logits.argmax(-1)[asked] == targets[asked]).float().mean())


def _loss(model: TinyTransformer, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    logits, _ = model(torch.from_numpy(batch.tokens))
    targets = torch.from_numpy(batch.targets)
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
    return loss, logits


def train_model(
    config: TinyTransformerConfig,
    train: TrainingConfig,
    progress: Callable[[TrainingProgress], None] | None = None,
    waiting: Callable[[int], None] | None = None,
    turns: TurnQueue | None = None,
) -> TinyTransformerResult:
    """Train a :class:`TinyTransformer` on ``config.task``: one thread, seeded, bounded.

    Trainings take turns in ``turns`` (the page passes :data:`hosting.turns.TRAININGS`;
    None trains at once); ``waiting(ahead)`` is called while runs are ahead of this one.
    On one machine the same configs give the same numbers. ``progress`` is called after
    every evaluation; an exception from either callback ends the run (nothing is
    returned, nothing kept).
    """
    check_task_training(train)
    return in_turn(lambda: _train(config, train, progress), waiting, turns=turns)


def _scored_sequences(config: TinyTransformerConfig, held_out: Batch) -> np.ndarray:
    task = get_task(config.task)
    probe = task.expand(task.parse(task.default_probe)).tokens
    return np.concatenate([probe, held_out.tokens[: N_SCORED - 1]])  # (N_SCORED, T)


class _TaskRun:
    """The task's parts of :func:`train_loop`: its batches, cross-entropy, held-out accuracy.

    Every evaluation keeps the curves, a snapshot of the matrices and the head scores.
    """

    def __init__(
        self,
        config: TinyTransformerConfig,
        train: TrainingConfig,
        model: TinyTransformer,
        progress: Callable[[TrainingProgress], None] | None,
    ) -> None:
        self.config, self.train, self.model, self.progress = config, train, model, progress
        self.task = get_task(config.task)
        self.rng = np.random.default_rng(train.seed)
        self.held_out = held_out_batch(config.task)
        self.scored = _scored_sequences(config, self.held_out)
        self.history: list[tuple[int, float, float]] = []
        self.scores: list[dict[str, np.ndarray]] = []
        self.snapshots: list[tuple[int, ModelArrays]] = []
        self.reached: int | None = None  # the evaluated step that first met the target
        assert train.target_accuracy is not None  # check_task_training refused a run without
        self.target = train.target_accuracy

    def learning_rate(self, step: int) -> float:
        return learning_rate(self.train, step, self.reached)

    def batch_loss(self) -> torch.Tensor:
        batch = training_batch(self.config.task, self.rng, self.train.batch_size)
        loss, _ = _loss(self.model, batch)
        return loss

    def evaluate(self, step: int, train_loss: float | None) -> None:
        with torch.no_grad():
            held_loss, logits = _loss(self.model, self.held_out)
        accuracy = token_accuracy(logits, torch.from_numpy(self.held_out.targets))
        loss = held_loss.item() if train_loss is None else train_loss
        self.history.append((step, loss, accuracy))
        arrays = weights_as_arrays(self.model)
        self.snapshots.append((step, arrays))
        weights = np.stack([forward(arrays, self.config, tokens).weights for tokens in self.scored])
        self.scores.append(_mean_scores(self.task, self.scored, weights))

    def report(self, step: int, seconds: float) -> None:
        if self.progress is not None:
            _, loss, accuracy = self.history[-1]
            self.progress(TrainingProgress(step, self.train.steps, loss, accuracy, seconds))

    def stop_reason(self, step: int) -> str | None:
        train, accuracy = self.train, self.history[-1][2]
        if self.reached is None and accuracy >= self.target:
            self.reached = step
        if self.reached is None or step < self.reached + train.extra_steps:
            return None
        reason = f"reached {self.target:.1%} held-out accuracy at step {self.reached}"
        return reason + (f" and trained on to step {step}" if step > self.reached else "")


def _train(
    config: TinyTransformerConfig,
    train: TrainingConfig,
    progress: Callable[[TrainingProgress], None] | None,
) -> TinyTransformerResult:
    started = time.perf_counter()
    model = TinyTransformer(config, train.seed)
    optimiser = AdamW(model.parameters(), train.learning_rate, train.weight_decay)
    run = _TaskRun(config, train, model, progress)
    stop_reason = train_loop(run, optimiser, train, started, evaluate_untrained=True)
    return _result(
        config, train, run.history, run.scores, run.snapshots, run.scored[0], stop_reason, started
    )


def _mean_scores(task: Task, scored: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Each head score ``(L, H)``, the mean over sequences ``scored (N, T)``, each with its pattern.

    ``weights (N, L, H, T, T)``.
    """
    per_sequence = [head_scores(task, tokens, w) for tokens, w in zip(scored, weights, strict=True)]
    return {name: np.nanmean([s[name] for s in per_sequence], axis=0) for name in task.score_names}


def learning_rate(train: TrainingConfig, step: int, reached: int | None) -> float:
    """The rate of ``step``: constant until the target is reached, then linearly to 0.

    ``reached``: the evaluated step where held-out accuracy first met the target.
    """
    if reached is None or train.extra_steps == 0:
        return train.learning_rate
    return train.learning_rate * max(0.0, 1 - (step - reached) / train.extra_steps)


def _thin(snapshots: list[tuple[int, ModelArrays]]) -> list[tuple[int, ModelArrays]]:
    """About ``N_SNAPSHOTS`` evenly spread snapshots, always the first and the last."""
    if len(snapshots) <= N_SNAPSHOTS:
        return snapshots
    picks = np.unique(np.round(np.linspace(0, len(snapshots) - 1, N_SNAPSHOTS)).astype(int))
    return [snapshots[i] for i in picks]


def _result(
    config: TinyTransformerConfig,
    train: TrainingConfig,
    history: list[tuple[int, float, float]],
    scores: list[dict[str, np.ndarray]],
    snapshots: list[tuple[int, ModelArrays]],
    probe: np.ndarray,
    stop_reason: str,
    started: float,
) -> TinyTransformerResult:
    """The run's curves, ~N_SNAPSHOTS snapshots and their attention on the probe, read-only."""
    steps, loss, accuracy = (read_only(column) for column in zip(*history, strict=True))
    reached = np.flatnonzero(accuracy >= 0.99)
    kept = _thin(snapshots)
    snapshot_weights = np.stack([forward(arrays, config, probe).weights for _, arrays in kept])
    return TinyTransformerResult(
        model=config,
        train=train,
        eval_steps=steps,
        train_loss=loss,
        held_out=accuracy,
        scores={name: read_only([s[name] for s in scores]) for name in scores[0]},
        probe=read_only(probe),
        snapshot_steps=read_only([step for step, _ in kept]),
        snapshot_weights=read_only(snapshot_weights, np.float32),  # drawn only: half the bytes
        final=snapshots[-1][1],
        stop_reason=stop_reason,
        seconds=time.perf_counter() - started,
        steps_to_target=int(steps[reached[0]]) if reached.size else None,
    )
