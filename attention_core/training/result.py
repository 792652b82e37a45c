"""What every training run hands its page: progress on the way, and the finished result.

Both trainers report a :class:`TrainingProgress` after every evaluation and return a
:class:`TrainingResult` (the tiny transformer's and the forecaster's results add what
their page shows). "Held out" is what the run is judged on: token accuracy on held-out
sequences (the tasks) or the loss on the validation windows (the forecaster). No PyTorch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TrainingProgress:
    """Handed to the progress callback after every evaluation."""

    step: int
    steps: int
    train_loss: float  #: mean training loss since the previous evaluation
    held_out: float  #: held-out accuracy (tasks) or validation loss (forecaster)
    seconds: float


@dataclass(frozen=True)
class TrainingResult:
    """A finished run's curves over ``E`` evaluations and why it stopped; read-only arrays."""

    eval_steps: np.ndarray  #: (E,)
    train_loss: np.ndarray  #: (E,) mean training loss since the previous evaluation
    held_out: np.ndarray  #: (E,) held-out accuracy (tasks) or validation loss (forecaster)
    stop_reason: str
    seconds: float  #: training time, one thread
