r"""The induction experiment: turn the strongest induction heads off and measure copying.

On the repeated random sequence of :func:`~attention_core.pretrained.circuits.repeated_sequence`
(``[bos] a b c … a b c …``, ``n`` distinct tokens twice, ``T`` tokens in all), the second copy
can be predicted exactly from the first. The **copying accuracy** is the share of its
positions where the model's first guess is the real next token:

.. math::
    \text{acc} = \frac{1}{n-1} \sum_{t = T-n}^{T-2} [\operatorname{rank}_t = 1]

(``rank_t`` the rank of token ``t + 1`` among the guesses after position ``t``; the
second copy's first token follows the first copy's last and cannot be guessed, so it is left
out). The experiment turns off the ``k`` heads of highest induction score, ``k`` in
:data:`SIZES`, and, as a control, ``k`` heads drawn at random, for each seed of
:data:`RANDOM_SEEDS`, from the heads outside the top ``max(k)``: if the induction
heads carry copying, the first should fall much further than the second.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from attention_core.maths.ablation import Ablation, AblationKind
from attention_core.pretrained.circuits import repeated_sequence, strongest
from attention_core.pretrained.slim import SlimTrace, ablated_pass
from attention_core.pretrained.trace import Model

COPY_SEED = 0  #: the seed of the test input's random tokens: every student sees the same
COPY_LENGTH = 40  #: random tokens in each copy of the test input
SIZES = (1, 3, 10)  #: how many heads are turned off at each step of the experiment
#: Seeds of the random draws of the control, averaged: three draws of each size.
RANDOM_SEEDS = (0, 1, 2)
#: Single heads tried for "which head breaks copying the most": the top induction heads.
CANDIDATES = 4

Head = tuple[int, int]  #: (layer, head), counted from 0


def copy_test_ids(vocab_size: int, special_ids: Sequence[int], bos: int | None) -> np.ndarray:
    """The test input of "Heads that copy" and of this experiment: :data:`COPY_LENGTH` random
    ids of seed :data:`COPY_SEED` (no special token), twice, after ``bos`` if the model's texts
    start with one: ``(2n,)`` or ``(2n + 1,)``."""
    rng = np.random.default_rng(COPY_SEED)
    return repeated_sequence(rng, vocab_size, COPY_LENGTH, avoid=special_ids, bos=bos)


def copying_accuracy(ranks: np.ndarray, n: int) -> float:
    r"""The share of the second copy's predictable positions guessed first,
    :math:`\operatorname{mean}_{t = T-n}^{T-2} [\operatorname{rank}_t = 1]`; ``ranks (T-1,)``."""
    return float(np.mean(ranks[-(n - 1) :] == 1))


def sentence_similarity(intact: np.ndarray, ablated: np.ndarray) -> float:
    r"""An encoder's sentence embeddings compared: the cosine of the mean-pooled last outputs,
    :math:`\cos(\bar h, \bar h')` with :math:`\bar h = \tfrac1T \sum_t h_t`; ``(T, d)`` each."""
    mean, other = intact.mean(axis=0), ablated.mean(axis=0)  # (d,)
    return float(mean @ other / (np.linalg.norm(mean) * np.linalg.norm(other)))


def top_heads(scores: np.ndarray, k: int) -> tuple[Head, ...]:
    """The ``k`` heads of highest score ``(L, H)``, best first (ties: lower layer, head)."""
    return tuple((layer, head) for layer, head, _ in strongest(scores, k))


def sizes_for(n_heads: int) -> tuple[int, ...]:
    """The sizes of :data:`SIZES` a model of ``n_heads`` heads in all can be tested at: the top
    ``k`` and ``k`` other heads must fit (``2k <= n_heads``); all three for SmolLM2's 270."""
    return tuple(size for size in SIZES if 2 * size <= n_heads)


def random_heads(scores: np.ndarray, seed: int, top: int = SIZES[-1]) -> tuple[Head, ...]:
    """Every head outside the ``top`` strongest in a random order of ``seed``: the first ``k``
    are the control for the top ``k`` (nested, like the top ``k``)."""
    excluded = set(top_heads(scores, top))
    n_layers, n_heads = scores.shape
    every = [(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    others = [pair for pair in every if pair not in excluded]
    order = np.random.default_rng(seed).permutation(len(others))
    return tuple(others[i] for i in order)


@dataclass(frozen=True)
class ExperimentRow:
    """One size ``k``: the top ``k`` induction heads' accuracy, and each random draw's."""

    size: int
    top: tuple[Head, ...]
    top_accuracy: float
    random_accuracies: tuple[float, ...]  #: one per seed of :data:`RANDOM_SEEDS`

    @property
    def random_mean(self) -> float:
        return float(np.mean(self.random_accuracies))


@dataclass(frozen=True)
class Experiment:
    """The copying accuracy with every head on, and with ``k`` heads off for each size."""

    intact: float
    rows: tuple[ExperimentRow, ...]
    kind: AblationKind


def induction_experiment(
    accuracy: Callable[[Ablation], float],
    scores: np.ndarray,
    intact: float,
    kind: AblationKind = "zero",
    sizes: Sequence[int] | None = None,
) -> Experiment:
    """The experiment on a model: ``accuracy(ablation)`` runs it with those heads off (on the
    repeated sequence), ``scores (L, H)`` its induction scores, ``intact`` its accuracy with
    every head on; ``sizes`` by default those the model fits (:func:`sizes_for`).
    ``1 + len(sizes) * (1 + len(RANDOM_SEEDS))`` passes in all."""
    sizes = sizes_for(scores.size) if sizes is None else sizes
    draws = [random_heads(scores, seed, max(sizes)) for seed in RANDOM_SEEDS]
    rows = []
    for size in sizes:
        top = top_heads(scores, size)
        rows.append(
            ExperimentRow(
                size=size,
                top=top,
                top_accuracy=accuracy(Ablation.of(top, kind)),
                random_accuracies=tuple(accuracy(Ablation.of(d[:size], kind)) for d in draws),
            )
        )
    return Experiment(intact, tuple(rows), kind)


def single_head_drops(
    accuracy: Callable[[Ablation], float],
    scores: np.ndarray,
    intact: float,
    kind: AblationKind = "zero",
) -> tuple[tuple[Head, float], ...]:
    """Each of the top :data:`CANDIDATES` induction heads turned off alone: ``(head, drop)``,
    the drop ``intact - accuracy`` in copying accuracy (positive: copying got worse)."""
    return tuple(
        (head, intact - accuracy(Ablation.of([head], kind)))
        for head in top_heads(scores, CANDIDATES)
    )


def copying_on(model: Model, intact: SlimTrace, n: int) -> Callable[[Ablation], float]:
    """``accuracy(ablation)`` of ``model`` on the repeated sequence of ``intact`` (its intact
    pass, ``n`` tokens per copy): each run reuses the layers below the first one turned off
    (:func:`~attention_core.pretrained.slim.ablated_pass`)."""

    def accuracy(ablation: Ablation) -> float:
        ranks = ablated_pass(model, intact, ablation).ranks
        assert ranks is not None, "copying accuracy needs a decoder's next-token guesses"
        return copying_accuracy(ranks, n)

    return accuracy
