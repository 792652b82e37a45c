r"""Training the tiny transformer on a toy task: one thread, bounded, seeded, snapshots on the way.

AdamW on the cross-entropy of the task's targets, on fresh random batches
(never a held-out sequence). Every ``eval_every`` steps: token accuracy on
held-out sequences, and the model's matrices copied to NumPy, from which
:mod:`.forward` computes every head's attention on a fixed probe and the head
scores. About :data:`N_SNAPSHOTS` of those copies are kept for the replay.

A run stops at the target accuracy, its step count or its time budget. The
result holds read-only NumPy arrays only, so every session can share it. An
exception from the progress callback (a Streamlit rerun stops the script that
way) ends the run and leaves nothing behind. Needs PyTorch; imported only on
demand (``from attention_core.learning import training``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import nn

# One training at a time per process, whichever page asks: it keeps to one core,
# and the global torch RNG and thread settings are not shared between runs.
from ..timeseries.training import TRAINING_LOCK
from .config import ModelConfig, TrainConfig
from .forward import ModelArrays, forward
from .model import TinyTransformer, weights_as_arrays
from .patterns import head_scores
from .tasks import IGNORE, Batch, Task, get_task, is_held_out

N_SNAPSHOTS = 20
N_HELD_OUT = 512
N_SCORED = 8  # the probe and 7 held-out sequences: head scores are their mean
HELD_OUT_SEED = 20_240_601  # the same held-out sequences for every seed


@dataclass(frozen=True)
class LearningProgress:
    """Handed to the progress callback after every evaluation."""

    step: int
    steps: int
    loss: float
    accuracy: float
    seconds: float


@dataclass(frozen=True)
class Snapshot:
    """The model at one training step, as NumPy arrays."""

    step: int
    arrays: ModelArrays


@dataclass(frozen=True)
class LearningResult:
    """A finished run: curves over ``E`` evaluations, ``S`` snapshots; read-only, shareable.

    ``L`` layers, ``H`` heads, ``T`` tokens of the probe.
    """

    model: ModelConfig
    train: TrainConfig
    eval_steps: np.ndarray  #: (E,)
    loss: np.ndarray  #: (E,) mean training loss since the previous evaluation
    accuracy: np.ndarray  #: (E,) held-out token accuracy
    scores: dict[str, np.ndarray]  #: name -> (E, L, H) head scores, mean over scored sequences
    probe: np.ndarray  #: (T,) the fixed probe's tokens
    snapshots: tuple[Snapshot, ...]  #: (S,) first = untrained, last = final
    snapshot_weights: np.ndarray  #: (S, L, H, T, T) every head on the probe
    stop_reason: str
    seconds: float
    steps_to_target: int | None  #: first evaluated step with accuracy >= 99 %

    @property
    def final(self) -> ModelArrays:
        return self.snapshots[-1].arrays


def _read_only(array: ArrayLike) -> np.ndarray:
    array = np.array(array)
    array.setflags(write=False)
    return array


def held_out_batch(task_name: str) -> Batch:
    """``N_HELD_OUT`` fixed sequences that training never draws (same for every seed)."""
    task = get_task(task_name)
    candidates = task.make(np.random.default_rng(HELD_OUT_SEED), 8 * N_HELD_OUT)
    keep = np.flatnonzero(is_held_out(candidates.tokens))[:N_HELD_OUT]
    return Batch(candidates.tokens[keep], candidates.targets[keep])


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
    config: ModelConfig,
    train: TrainConfig,
    progress: Callable[[LearningProgress], None] | None = None,
) -> LearningResult:
    """Train a :class:`TinyTransformer` on ``config.task``: one thread, seeded, bounded.

    One run at a time per process; the same configs give the same numbers.
    ``progress`` is called after every evaluation; an exception it raises ends
    the run (nothing is returned, nothing kept).
    """
    with TRAINING_LOCK, torch.random.fork_rng(devices=[]):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            torch.manual_seed(train.seed)
            return _train(config, train, progress)
        finally:
            torch.set_num_threads(threads)


def _scored_sequences(config: ModelConfig, held_out: Batch) -> np.ndarray:
    task = get_task(config.task)
    probe = task.expand(task.parse(task.default_probe)).tokens
    return np.concatenate([probe, held_out.tokens[: N_SCORED - 1]])  # (N_SCORED, T)


def _train(
    config: ModelConfig,
    train: TrainConfig,
    progress: Callable[[LearningProgress], None] | None,
) -> LearningResult:
    started = time.perf_counter()
    task = get_task(config.task)
    model = TinyTransformer(config)
    optimiser = torch.optim.AdamW(
        model.parameters(), lr=train.learning_rate, weight_decay=train.weight_decay
    )
    rng = np.random.default_rng(train.seed)
    held_out = held_out_batch(config.task)
    scored = _scored_sequences(config, held_out)
    history: list[tuple[int, float, float]] = []
    scores: list[dict[str, np.ndarray]] = []
    snapshots: list[Snapshot] = []
    running: list[float] = []
    stop_reason = f"finished all {train.steps} steps"
    reached: int | None = None
    for step in range(train.steps + 1):
        if step > 0:
            loss, _ = _loss(model, training_batch(config.task, rng, train.batch_size))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            running.append(loss.item())
            if step % train.eval_every and step != train.steps:
                continue
        with torch.no_grad():
            held_loss, logits = _loss(model, held_out)
        accuracy = token_accuracy(logits, torch.from_numpy(held_out.targets))
        history.append((step, float(np.mean(running)) if running else held_loss.item(), accuracy))
        running = []
        arrays = weights_as_arrays(model)
        snapshots.append(Snapshot(step, arrays))
        weights = np.stack([forward(arrays, config, tokens).weights for tokens in scored])
        scores.append(_mean_scores(task, scored, weights))
        seconds = time.perf_counter() - started
        if progress is not None:
            progress(LearningProgress(step, train.steps, history[-1][1], accuracy, seconds))
        if reached is None and accuracy >= train.target_accuracy:
            reached = step
        if reached is not None and step >= reached + train.extra_steps:
            stop_reason = f"reached {train.target_accuracy:.1%} held-out accuracy at step {reached}"
            stop_reason += f" and trained on to step {step}" if step > reached else ""
            break
        if seconds > train.max_seconds:
            stop_reason = f"stopped at step {step}: time budget of {train.max_seconds:g} s used"
            break
    return _result(config, train, history, scores, snapshots, scored[0], stop_reason, started)


def _mean_scores(task: Task, scored: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Each head score ``(L, H)``, the mean over sequences ``scored (N, T)``, each with its pattern.

    ``weights (N, L, H, T, T)``.
    """
    per_sequence = [head_scores(task, tokens, w) for tokens, w in zip(scored, weights, strict=True)]
    return {name: np.nanmean([s[name] for s in per_sequence], axis=0) for name in task.score_names}


def _thin(snapshots: list[Snapshot]) -> list[Snapshot]:
    """About ``N_SNAPSHOTS`` evenly spread snapshots, always the first and the last."""
    if len(snapshots) <= N_SNAPSHOTS:
        return snapshots
    picks = np.unique(np.round(np.linspace(0, len(snapshots) - 1, N_SNAPSHOTS)).astype(int))
    return [snapshots[i] for i in picks]


def _result(
    config: ModelConfig,
    train: TrainConfig,
    history: list[tuple[int, float, float]],
    scores: list[dict[str, np.ndarray]],
    snapshots: list[Snapshot],
    probe: np.ndarray,
    stop_reason: str,
    started: float,
) -> LearningResult:
    """The run's curves, ~N_SNAPSHOTS snapshots and their attention on the probe, read-only."""
    steps, loss, accuracy = (_read_only(column) for column in zip(*history, strict=True))
    reached = np.flatnonzero(accuracy >= 0.99)
    kept = tuple(_thin(snapshots))
    snapshot_weights = np.stack([forward(s.arrays, config, probe).weights for s in kept])
    return LearningResult(
        model=config,
        train=train,
        eval_steps=steps,
        loss=loss,
        accuracy=accuracy,
        scores={name: _read_only([s[name] for s in scores]) for name in scores[0]},
        probe=_read_only(probe),
        snapshots=kept,
        snapshot_weights=_read_only(snapshot_weights),
        stop_reason=stop_reason,
        seconds=time.perf_counter() - started,
        steps_to_target=int(steps[reached[0]]) if reached.size else None,
    )
