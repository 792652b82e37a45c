"""A training run's budget: how many steps, how often it is evaluated, how long it may take.

:func:`check_training_budget` is what every trained model's training config
checks (each with its own limits). No PyTorch: those configs are built where
torch is never imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_LEARNING_RATE, MIN_LEARNING_RATE
from attention_core.boundary.validation import check_positive_int


@dataclass(frozen=True)
class Budget:
    """How long a run may train and how often it is evaluated."""

    steps: int
    eval_every: int
    max_seconds: float
    evaluate_untrained: bool = False  #: evaluate at step 0 too, before any training step
    stop_on_divergence: bool = False  #: stop at the first loss that is not finite


class TrainingSettings(Protocol):
    """What a training config holds, whatever it trains (both configs are frozen dataclasses)."""

    @property
    def steps(self) -> int: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def eval_every(self) -> int: ...
    @property
    def learning_rate(self) -> float: ...
    @property
    def max_seconds(self) -> float: ...


def check_training_budget(
    settings: TrainingSettings, *, most_steps: int, largest_batch: int, most_seconds: float
) -> None:
    """Raise InputError unless each number is positive and within its page's limit."""
    check_positive_int(settings.steps, "The number of training steps", most_steps)
    check_positive_int(settings.batch_size, "The batch size", largest_batch)
    check_positive_int(settings.eval_every, "The evaluation interval")
    if not MIN_LEARNING_RATE <= settings.learning_rate <= MAX_LEARNING_RATE:
        raise InputError("The learning rate must be between 0.00001 and 0.1.")
    if not 0 < settings.max_seconds <= most_seconds:
        raise InputError(f"The time budget must be at most {most_seconds} seconds.")
