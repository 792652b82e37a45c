"""What a training run is: the model's shape and the training budget (both hashable cache keys).

Checked once here, so the model, the training loop and the NumPy forward pass
can trust them. Each task has defaults that reach 99 % held-out token accuracy
within seconds on one thread and form the heads the page promises for at least
nine seeds in ten (``make bench`` measures seeds 0-29; the runs shipped in
``runs/`` are those seeds).
"""

from __future__ import annotations

from dataclasses import dataclass

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
from attention_core.boundary.validation import check_heads_divide, check_positive_int, check_seed
from attention_core.learning.tasks import get_task
from attention_core.maths.masks import causal_mask
from attention_core.training.config import check_training_budget


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


@dataclass(frozen=True)
class TaskTrainingConfig:
    """Budget and optimiser of one run: AdamW, fresh random batches every step.

    Training stops at the first evaluation whose held-out token accuracy reaches
    ``target_accuracy``, or after ``steps`` steps, or after ``max_seconds``.
    """

    steps: int = 1500
    batch_size: int = 64
    learning_rate: float = 0.003
    seed: int = 0
    eval_every: int = 25
    target_accuracy: float = 1.0
    extra_steps: int = 0  #: steps after the target, learning rate annealed to 0: sharper heads
    weight_decay: float = 0.0  #: AdamW's decoupled weight decay
    max_seconds: float = 20.0

    def __post_init__(self) -> None:
        check_training_budget(
            self,
            most_steps=MAX_LEARNING_STEPS,
            largest_batch=512,
            most_seconds=MAX_LEARNING_SECONDS,
        )
        if not 0 <= self.extra_steps <= MAX_LEARNING_STEPS:
            raise InputError(f"The extra steps must be between 0 and {MAX_LEARNING_STEPS}.")
        check_seed(self.seed)
        if not 0 <= self.weight_decay <= 1:
            raise InputError("The weight decay must be between 0 and 1.")
        if not 0 < self.target_accuracy <= 1:
            raise InputError("The target accuracy must be in (0, 1].")


#: Per task: the model and training defaults the page's link starts from.
DEFAULTS: dict[str, tuple[TinyTransformerConfig, TaskTrainingConfig]] = {
    "reverse": (
        TinyTransformerConfig("reverse", n_layers=1, n_heads=1, d_model=32, mlp=False),
        TaskTrainingConfig(steps=1000, learning_rate=0.003, eval_every=5, extra_steps=100),
    ),
    "sort": (
        TinyTransformerConfig("sort", n_layers=2, n_heads=2, d_model=32, mlp=True),
        # 300 annealed steps after the target: then a model sorts >= 99.7 % of all 729 inputs
        # (without them, 96-99.9 %; measured over 20 seeds, BENCHMARKS.md).
        TaskTrainingConfig(
            steps=1500,
            learning_rate=0.01,
            eval_every=10,
            target_accuracy=0.995,
            extra_steps=300,
        ),
    ),
    "induction": (
        TinyTransformerConfig("induction", n_layers=2, n_heads=2, d_model=32, mlp=False),
        # Two heads per layer, weight decay 0.3 and 1000 annealed steps after the target:
        # measured over 20 seeds (BENCHMARKS.md), every seed then forms both heads of the
        # textbook circuit; with one head per layer, at best 17 in 20 did.
        TaskTrainingConfig(
            steps=3000,
            learning_rate=0.01,
            eval_every=25,
            target_accuracy=0.995,
            extra_steps=1000,
            weight_decay=0.3,
        ),
    ),
}
