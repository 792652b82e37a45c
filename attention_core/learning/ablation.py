r"""A trained tiny transformer with heads turned off: held-out accuracy and loss, and the sweep.

.. math::
    \mathrm{acc}(\mathcal A) = \frac1N \sum_{(b,t) \in \mathcal Q}
        \big[\arg\max_v z^{\mathcal A}_{btv} = y_{bt}\big]
    \qquad
    \mathrm{loss}(\mathcal A) = -\frac1N \sum_{(b,t) \in \mathcal Q}
        \log \mathrm{softmax}\big(z^{\mathcal A}_{bt}\big)_{y_{bt}}
    \qquad
    \Delta_{lh} = \mathrm{acc}(\varnothing) - \mathrm{acc}(\{(l, h)\})

:math:`z^{\mathcal A}` ``(B, T, V)`` are the logits of the NumPy forward pass
(:func:`.forward.forward`) with the heads :math:`\mathcal A` off
(:class:`~attention_core.maths.ablation.Ablation`), on the task's held-out sequences
``(B, T)`` (:func:`.tasks.held_out_batch`, the ones training measures its accuracy on);
:math:`\mathcal Q` are the :math:`N` asked positions (``targets != IGNORE``). The loss is
torch's ``cross_entropy(..., ignore_index=IGNORE)``: the mean over asked tokens, in nats.
:math:`\Delta` ``(L, H)`` is the sweep: the accuracy lost when head :math:`(l, h)` alone is
off. Pure functions of the trained matrices; no PyTorch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.forward import ModelArrays, forward
from attention_core.learning.result import TinyTransformerResult
from attention_core.learning.tasks import IGNORE, Batch, held_out_batch
from attention_core.maths.ablation import Ablation, AblationKind


@dataclass(frozen=True)
class HeldOutScore:
    """How well a model with some heads off does on the held-out sequences."""

    accuracy: float  #: share of the asked tokens whose arg-max logit is right
    loss: float  #: mean cross-entropy over the asked tokens (nats)
    asked: int  #: N, the asked tokens


def log_softmax(logits: np.ndarray) -> np.ndarray:
    r""":math:`z_v - m - \log \sum_u e^{z_u - m}`, :math:`m = \max_u z_u`.

    ``(..., V) -> (..., V)``; subtracting the maximum keeps every exponent <= 0.
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def batch_score(
    arrays: ModelArrays,
    config: TinyTransformerConfig,
    batch: Batch,
    ablation: Ablation | None = None,
) -> HeldOutScore:
    """Accuracy and loss of the model on ``batch`` (tokens, targets ``(B, T)``), ``ablation`` off.

    One forward pass per sequence, by the core (:func:`.forward.forward`).
    """
    right, asked, total_loss = 0, 0, 0.0
    for tokens, targets in zip(batch.tokens, batch.targets, strict=True):
        logits = forward(arrays, config, tokens, ablation).logits  # (T, V)
        where = np.flatnonzero(targets != IGNORE)  # the asked positions
        wanted = targets[where]
        right += int(np.sum(logits[where].argmax(axis=-1) == wanted))
        total_loss -= float(log_softmax(logits[where])[np.arange(where.size), wanted].sum())
        asked += where.size
    return HeldOutScore(right / asked, total_loss / asked, asked)


def held_out_score(result: TinyTransformerResult, ablation: Ablation | None = None) -> HeldOutScore:
    """The trained model on its task's held-out sequences with the heads of ``ablation`` off.

    ``ablation`` is checked by the caller against ``result.model`` (None: every head on).
    """
    batch = held_out_batch(result.model.task)
    return batch_score(result.final, result.model, batch, ablation)


@dataclass(frozen=True)
class Sweep:
    """Every head turned off alone, one at a time: ``L`` layers by ``H`` heads."""

    kind: AblationKind  #: how each head was turned off
    intact: HeldOutScore  #: every head on
    accuracy: np.ndarray  #: (L, H) held-out accuracy with head (l, h) alone off
    loss: np.ndarray  #: (L, H) held-out loss with head (l, h) alone off

    @property
    def drops(self) -> np.ndarray:
        r""":math:`\Delta_{lh} = \mathrm{acc}(\varnothing) - \mathrm{acc}(\{(l, h)\})`, ``(L, H)``.

        Positive: the model does worse without the head."""
        return self.intact.accuracy - self.accuracy


def single_head_sweep(result: TinyTransformerResult, kind: AblationKind = "zero") -> Sweep:
    """The held-out accuracy and loss with each head alone off (``kind``), and with none off.

    ``L * H + 1`` passes over the held-out sequences. A model with one head in all has one
    cell: that head off is every head off, which the core computes all the same.
    """
    config = result.model
    batch = held_out_batch(config.task)
    intact = batch_score(result.final, config, batch)
    scores = [
        [
            batch_score(result.final, config, batch, Ablation.of([(layer, head)], kind))
            for head in range(config.n_heads)
        ]
        for layer in range(config.n_layers)
    ]
    accuracy = np.array([[score.accuracy for score in row] for row in scores])  # (L, H)
    loss = np.array([[score.loss for score in row] for row in scores])  # (L, H)
    accuracy.flags.writeable = loss.flags.writeable = False
    return Sweep(kind, intact, accuracy, loss)
