"""What a training run hands the page: progress updates and the finished result (no PyTorch).

Made by :mod:`.training` (live) or loaded by :mod:`.shipped` (trained ahead of time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.learning.config import TaskTrainingConfig, TinyTransformerConfig
from attention_core.learning.forward import ModelArrays


@dataclass(frozen=True)
class LearningProgress:
    """Handed to the progress callback after every evaluation."""

    step: int
    steps: int
    loss: float
    accuracy: float
    seconds: float


@dataclass(frozen=True)
class LearningResult:
    """A finished run: curves over ``E`` evaluations, ``S`` snapshots; read-only, shareable.

    ``L`` layers, ``H`` heads, ``T`` tokens of the probe.
    """

    model: TinyTransformerConfig
    train: TaskTrainingConfig
    eval_steps: np.ndarray  #: (E,)
    loss: np.ndarray  #: (E,) mean training loss since the previous evaluation
    accuracy: np.ndarray  #: (E,) held-out token accuracy
    scores: dict[str, np.ndarray]  #: name -> (E, L, H) head scores, mean over scored sequences
    probe: np.ndarray  #: (T,) the fixed probe's tokens
    snapshot_steps: np.ndarray  #: (S,) first = 0 (untrained), last = the final step
    snapshot_weights: np.ndarray  #: (S, L, H, T, T) float32, every head on the probe then
    final: ModelArrays  #: the trained matrices
    stop_reason: str
    seconds: float  #: training time, one thread
    steps_to_target: int | None  #: first evaluated step with accuracy >= 99 %
    trained_ahead: bool = False  #: loaded from the runs shipped with the app (:mod:`.shipped`)
