"""What a training run is: the model's shape and its training config (both hashable cache keys).

Checked once here, so the model, the training loop and the NumPy forward pass
can trust them. Each task has defaults that reach 99 % held-out token accuracy
within seconds on one thread and form the heads the page promises for at least
nine seeds in ten (``make bench`` measures seeds 0-29; the runs shipped in
``runs/`` are those seeds).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import (
    MAX_LEARNING_D_MODEL,
    MAX_LEARNING_HEADS,
    MAX_LEARNING_LAYERS,
    MAX_LEARNING_SECONDS,
    MAX_LEARNING_STEPS,
    MIN_LEARNING_D_MODEL,
)
from attention_core.boundary.validation import check_heads_divide, check_positive_int
from attention_core.learning.tasks import get_task
from attention_core.maths.masks import causal_mask
from attention_core.training.config import TrainingConfig, TrainingLimits


@dataclass(frozen=True)
class TinyTransformerConfig:
    """A tiny transformer for ``task``: layers, heads, width, MLP or attention only."""

    task: str
    n_layers: int = 1
    n_heads: int = 1
    d_model: int = 32
    mlp: bool = False

    def __post_init__(self) -> None:
        get_task(self.task)
        check_positive_int(self.n_layers, "The number of layers", MAX_LEARNING_LAYERS)
        check_positive_int(self.n_heads, "The number of heads", MAX_LEARNING_HEADS)
        d_model = check_positive_int(self.d_model, "d_model", MAX_LEARNING_D_MODEL)
        if d_model < MIN_LEARNING_D_MODEL:
            raise InputError(f"d_model must be at least {MIN_LEARNING_D_MODEL}, got {d_model}.")
        check_heads_divide(self.d_model, self.n_heads, "d_model")

    @property
    def vocab_size(self) -> int:
        return get_task(self.task).vocab_size

    @property
    def length(self) -> int:
        return get_task(self.task).length

    @property
    def causal(self) -> bool:
        return get_task(self.task).causal

    def attention_mask(self) -> np.ndarray:
        """``(T, T)`` bool, True = may attend: causal for next-token tasks, else all True."""
        if self.causal:
            return causal_mask(self.length)
        return np.ones((self.length, self.length), dtype=bool)


#: The most the learning page lets one run train.
LIMITS = TrainingLimits(steps=MAX_LEARNING_STEPS, batch_size=512, seconds=MAX_LEARNING_SECONDS)
#: A task's training before its own defaults: stop at 100 % held-out token accuracy.
TASK_TRAINING = TrainingConfig(steps=1500, eval_every=25, max_seconds=20.0, target_accuracy=1.0)


def check_task_training(train: TrainingConfig) -> TrainingConfig:
    """``train`` if the learning page allows it (its limits, a target accuracy), else InputError."""
    if train.target_accuracy is None or train.patience is not None:
        raise ValueError("A task trains to a target accuracy, without patience.")
    return LIMITS.check(train)


#: Per task: the model and training defaults the page's link starts from.
DEFAULTS: dict[str, tuple[TinyTransformerConfig, TrainingConfig]] = {
    "reverse": (
        TinyTransformerConfig("reverse", n_layers=1, n_heads=1, d_model=32, mlp=False),
        replace(TASK_TRAINING, steps=1000, learning_rate=0.003, eval_every=5, extra_steps=100),
    ),
    "sort": (
        TinyTransformerConfig("sort", n_layers=2, n_heads=2, d_model=32, mlp=True),
        # 300 annealed steps after the target: without them a model that reached the target
        # may still sort some of the 729 inputs wrong, which the page's promise does not allow
        # (seeds that keep it: benchmarks/learning.py).
        replace(
            TASK_TRAINING,
            steps=1500,
            learning_rate=0.01,
            eval_every=10,
            target_accuracy=0.995,
            extra_steps=300,
        ),
    ),
    "induction": (
        TinyTransformerConfig("induction", n_layers=2, n_heads=2, d_model=32, mlp=False),
        # Two heads per layer, weight decay 0.3 and 1000 annealed steps after the target: two
        # chances per layer to form both heads of the textbook circuit, which one head per
        # layer often misses (seeds that form it: benchmarks/learning.py).
        replace(
            TASK_TRAINING,
            steps=3000,
            learning_rate=0.01,
            eval_every=25,
            target_accuracy=0.995,
            extra_steps=1000,
            weight_decay=0.3,
        ),
    ),
}
