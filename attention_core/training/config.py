"""One training run's settings, whatever it trains: budget, optimiser, seed, when to stop.

:class:`TrainingConfig` is the one config both trainers take (the tiny transformer's
tasks and the time-series forecaster); the model's own architecture stays in its
own config. Each trainer's page allows at most its :class:`TrainingLimits`, checked
with :meth:`TrainingLimits.check`. No PyTorch: configs are built where torch is
never imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_LEARNING_RATE, MIN_LEARNING_RATE
from attention_core.boundary.validation import check_positive_int, check_seed


@dataclass(frozen=True)
class TrainingConfig:
    """AdamW on fresh batches, evaluated every ``eval_every`` steps (hashable: a cache key).

    A run stops after ``steps`` steps or ``max_seconds``, or earlier by the rule its
    trainer uses:

    - ``target_accuracy`` (the tasks): held-out accuracy reached it, and then
      ``extra_steps`` more with the learning rate annealed linearly to 0;
    - ``patience`` (the forecaster): this many evaluations without a lower held-out loss;
      the best evaluation's weights are kept.

    ``weight_decay`` 0 makes AdamW Adam.
    """

    steps: int
    eval_every: int
    max_seconds: float
    batch_size: int = 64
    learning_rate: float = 0.003
    seed: int = 0
    weight_decay: float = 0.0  #: AdamW's decoupled weight decay
    target_accuracy: float | None = None
    extra_steps: int = 0  #: steps after the target, learning rate annealed to 0: sharper heads
    patience: int | None = None

    def __post_init__(self) -> None:
        check_positive_int(self.steps, "The number of training steps")
        check_positive_int(self.batch_size, "The batch size")
        check_positive_int(self.eval_every, "The evaluation interval")
        if not MIN_LEARNING_RATE <= self.learning_rate <= MAX_LEARNING_RATE:
            raise InputError("The learning rate must be between 0.00001 and 0.1.")
        if not self.max_seconds > 0:
            raise InputError(f"The time budget must be positive, got {self.max_seconds}.")
        check_seed(self.seed)
        if not 0 <= self.weight_decay <= 1:
            raise InputError("The weight decay must be between 0 and 1.")
        if self.target_accuracy is not None and not 0 < self.target_accuracy <= 1:
            raise InputError("The target accuracy must be in (0, 1].")
        if self.extra_steps < 0:
            raise InputError("The extra steps must be between 0 and the step limit.")
        if self.patience is not None:
            check_positive_int(self.patience, "The patience")


@dataclass(frozen=True)
class TrainingLimits:
    """The most one page lets a run train: steps, batch size, seconds."""

    steps: int
    batch_size: int
    seconds: float

    def check(self, config: TrainingConfig) -> TrainingConfig:
        """``config`` if it is within these limits, else InputError naming the first one."""
        check_positive_int(config.steps, "The number of training steps", self.steps)
        check_positive_int(config.batch_size, "The batch size", self.batch_size)
        if config.max_seconds > self.seconds:
            raise InputError(f"The time budget must be at most {self.seconds} seconds.")
        if config.extra_steps > self.steps:
            raise InputError(f"The extra steps must be between 0 and {self.steps}.")
        return config
