"""The learning page's figures and tables, built once per server for every session.

Every student of a lecture reruns the same view, one after
another: building the curves, the replayed heads and "Try it" would be most of each
rerun (benchmarks/class_pages.py). They are the same for every session that shows the
same run with the same settings and style, so each is built once, with its text alternative
(:func:`ui.shared.figure_cache.cached_figures`) and keyed by :attr:`Trained.digest`,
a short string computed once per rerun, with the step or the typed sequence.

A finished run (shipped, or trained live and frozen in ``ui.learning.training.RUNS``)
never changes; a training in progress draws its own growing chart in
:mod:`ui.shared.training_progress`, per session, and is not cached here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from attention_core.boundary.arrays import read_only
from attention_core.learning.ablation import HeldOutScore, Sweep, held_out_score, single_head_sweep
from attention_core.learning.forward import arrays_to_dict
from attention_core.learning.predict import Prediction, predict
from attention_core.learning.tasks import IGNORE, Task, get_task
from attention_core.maths.ablation import ABLATION_KINDS, Ablation, AblationKind
from ui.learning.figures import (
    heads_figure,
    sweep_figure,
    sweep_words,
    target_figure,
    training_curves,
)
from ui.learning.state import LearningState
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures, digest

if TYPE_CHECKING:
    from attention_core.learning.result import TinyTransformerResult


@dataclass(frozen=True)
class Trained:
    """The page's settings and the model trained with them: what every later section draws.

    ``digest`` names the pair in every shared cache: the settings and style (their
    reprs list every field), then the bytes of every array the page draws or computes
    from (curves, scores, snapshots, probe, trained matrices). Two runs with the same
    digest draw the same figures.
    """

    state: LearningState
    result: TinyTransformerResult
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        result = self.result
        named = (self.state, result.model, result.train, result.trained_ahead, *result.scores)
        arrays = (
            result.eval_steps,
            result.train_loss,
            result.held_out,
            *result.scores.values(),
            result.probe,
            result.snapshot_steps,
            result.snapshot_weights,
            *arrays_to_dict(result.final).values(),
        )  # cheap beside the run: hashed once per rerun
        object.__setattr__(self, "digest", digest(named, *arrays))

    @property
    def mask(self) -> np.ndarray | None:
        """The model's attention mask ``(T, T)``, or None when it may look ahead."""
        model = self.result.model
        return model.attention_mask() if model.causal else None


# Per builder (each keeps its own): a lecture goes through a handful of
# runs (task, settings, seed) and replay steps; the link holds the typed sequence too,
# so a lecture's students share one answer. A student exploring alone adds entries of their own,
# which evict first. A figure is ~0.1 MB (induction's defaults, 4 heads; ~0.2 MB with
# 8): ~13 MB for the four builders at most (the class mix peak is near its 600 MB limit).
FIGURES_HELD = 32
ANSWERS_HELD = 32
KEYS = {
    Trained: lambda trained: trained.digest,
    Ablation: lambda ablation: (sorted(ablation.heads), ablation.kind),  # frozenset: sorted
}
cache_figure = cached_figures(FIGURES_HELD, KEYS)


@cache_figure
def curves_figure(trained: Trained, marker_step: int) -> CachedChart:
    """Loss, held-out accuracy and every head's score over training, ``marker_step`` marked."""
    result = trained.result
    figure = training_curves(
        result.eval_steps,
        result.train_loss,
        result.held_out,
        result.scores,
        marker_step=marker_step,
        style=trained.state.style,
    )
    return cached_chart(figure)


@cache_figure
def replay_figure(trained: Trained, index: int) -> CachedChart:
    """Every head on the probe at snapshot ``index`` (weights by attention_core)."""
    result = trained.result
    figure = heads_figure(
        get_task(result.model.task),
        result.probe,
        result.snapshot_weights[index],
        trained.mask,
        trained.state.style,
        f"Every head at step {int(result.snapshot_steps[index])}",
    )
    return cached_chart(figure)


@cache_figure
def probe_target_figure(trained: Trained) -> CachedChart:
    """The task's target pattern on the run's probe."""
    task = get_task(trained.result.model.task)
    style = trained.state.style
    return cached_chart(target_figure(task, trained.result.probe, trained.mask, style, "probe"))


@dataclass(frozen=True)
class Answer:
    """The trained model on a typed sequence: its score, its answers, every head, the target."""

    correct: int
    asked: int
    table: pa.Table  #: the answers, one column per position (Arrow: immutable, shareable)
    heads: CachedChart
    target: CachedChart
    #: (L·H, T, T) each head's masked scores, its weights' rows are their softmax: what
    #: explains a selected weight, panel by panel as ``heads`` draws them (layer by layer)
    masked: np.ndarray
    tokens: np.ndarray  #: (T,) what the model read (the typed sequence, as the task expands it)


@cached_figures(ANSWERS_HELD, KEYS)
def answer(trained: Trained, probe: tuple[int, ...], ablation: Ablation | None = None) -> Answer:
    """The model's answer to ``probe`` (token ids, parsed by the task) and its figures,
    with the heads of ``ablation`` off (checked against the model; None: every head on)."""
    result, style = trained.result, trained.state.style
    task = get_task(result.model.task)
    tokens = np.array(probe, dtype=np.int64)
    prediction = predict(result.final, result.model, tokens, ablation)
    masked = np.stack([trace.masked for trace in prediction.trace.traces])  # (L, H, T, T)
    return Answer(
        prediction.correct,
        prediction.asked,
        pa.Table.from_pandas(answer_table(task, prediction)),
        cached_chart(
            heads_figure(
                task,
                prediction.tokens,
                prediction.trace.weights,
                trained.mask,
                style,
                "Every head of the trained model on your sequence"
                + ("" if ablation is None else ", some heads off"),
            )
        ),
        cached_chart(target_figure(task, prediction.tokens, trained.mask, style, "your sequence")),
        read_only(masked.reshape(-1, *masked.shape[2:]), copy=False),
        read_only(prediction.tokens),
    )


def answer_table(task: Task, prediction: Prediction) -> pd.DataFrame:
    """What the model reads, the right answer, its answer and a mark, per position."""

    def symbols(ids: np.ndarray) -> list[str]:
        return [task.alphabet[i] if i != IGNORE else "" for i in ids.tolist()]

    marks = [
        "" if e == IGNORE else ("✓" if a == e else "✗")
        for a, e in zip(prediction.answer.tolist(), prediction.expected.tolist(), strict=True)
    ]
    rows = {
        "model reads": symbols(prediction.tokens),
        "right answer": symbols(prediction.expected),
        "model answers": symbols(prediction.answer),
        "": marks,
    }
    return pd.DataFrame(rows).T.rename(columns=str)  # one column per position


# Per run (and way of turning heads off): a sweep is L*H+1 passes over the 512 held-out
# sequences, about a second for induction's defaults; a score with some heads off is one.
SWEEPS_HELD = 32
SCORES_HELD = 64


@dataclass(frozen=True)
class SweepView:
    """A run's sweep (:func:`attention_core.learning.ablation.single_head_sweep`) and its chart."""

    sweep: Sweep
    chart: CachedChart


@cached_figures(SWEEPS_HELD, KEYS)
def sweep_view(trained: Trained, kind: AblationKind) -> SweepView:
    """Each head alone off (``kind``): the held-out accuracy lost, layer by head, drawn."""
    sweep = single_head_sweep(trained.result, kind)
    label = ABLATION_KINDS[kind].label
    figure = sweep_figure(sweep.drops, label, trained.state.style)
    alt = sweep_words(sweep.drops, sweep.intact.accuracy, label)
    return SweepView(sweep, cached_chart(figure, alt))


@cached_figures(SCORES_HELD, KEYS)
def heads_off_score(trained: Trained, ablation: Ablation | None) -> HeldOutScore:
    """Held-out accuracy and loss with the heads of ``ablation`` off (checked; None: all on)."""
    return held_out_score(trained.result, ablation)
