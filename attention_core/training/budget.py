"""A training run's budget: how many steps, how often it is evaluated, how long it may take.

No PyTorch.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How long a run may train and how often it is evaluated."""

    steps: int
    eval_every: int
    max_seconds: float
    evaluate_untrained: bool = False  #: evaluate at step 0 too, before any training step
    stop_on_divergence: bool = False  #: stop at the first loss that is not finite
