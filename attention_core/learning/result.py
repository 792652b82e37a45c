"""What a training run of the tiny transformer hands the page (no PyTorch).

Made by :mod:`.training` (live) or loaded by :mod:`.shipped` (trained ahead of time).
Progress on the way is the one :class:`attention_core.training.result.TrainingProgress`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.forward import ModelArrays
from attention_core.training.config import TrainingConfig
from attention_core.training.result import TrainingResult


@dataclass(frozen=True)
class TinyTransformerResult(TrainingResult):
    """A finished run: curves over ``E`` evaluations, ``S`` snapshots; read-only, shareable.

    ``held_out`` is the held-out token accuracy; ``train_loss`` at step 0 is the
    untrained model's held-out loss. ``L`` layers, ``H`` heads, ``T`` tokens of the probe.
    """

    model: TinyTransformerConfig
    train: TrainingConfig
    scores: dict[str, np.ndarray]  #: name -> (E, L, H) head scores, mean over scored sequences
    probe: np.ndarray  #: (T,) the fixed probe's tokens
    snapshot_steps: np.ndarray  #: (S,) first = 0 (untrained), last = the final step
    snapshot_weights: np.ndarray  #: (S, L, H, T, T) float32, every head on the probe then
    final: ModelArrays  #: the trained matrices
    steps_to_target: int | None  #: first evaluated step with accuracy >= 99 %
    trained_ahead: bool = False  #: loaded from the runs shipped with the app (:mod:`.shipped`)
