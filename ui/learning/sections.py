"""The learning page after training: the curves, the replay of attention forming, and "Try it".

Every attention matrix drawn here is computed by
:func:`attention_core.learning.forward.forward` (through
:mod:`attention_core.maths.attention`) from the trained matrices, never read back
from PyTorch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as ac
from attention_core.learning import forward as learned_forward
from attention_core.learning.patterns import head_scores, target_pattern
from attention_core.learning.predict import Prediction, predict
from attention_core.learning.tasks import IGNORE, Task, get_task
from attention_core.maths import attention
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import FigureStyle
from ui.learning.figures import training_curves
from ui.learning.state import PREFIX, LearningState, task_key
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_error
from ui.shared.tabs import Section
from ui.shared.url import BIND

if TYPE_CHECKING:
    from attention_core.learning.training import LearningResult

#: The functions that compute every matrix of "Try it", in the order they run.
TRY_IT_CODE = (
    learned_forward.forward,
    attention.multi_head_attention,
    attention.project,
    attention.split_heads,
    attention.scaled_dot_product_attention,
    attention.attention_scores,
    attention.scale_scores,
    attention.mask_scores,
    attention.softmax,
    attention.attention_context,
    attention.output_projection,
    attention.merge_heads,
)


@dataclass(frozen=True)
class Trained:
    """The page's settings and the model trained with them: what every later section draws."""

    state: LearningState
    result: LearningResult


def head_titles(scores: dict[str, np.ndarray], n_layers: int, n_heads: int) -> list[str]:
    """``layer l · head h`` with the head's scores, one per line, e.g. ``anti-diagonal 0.97``."""
    titles = []
    for layer in range(n_layers):
        for head in range(n_heads):
            lines = [f"{name} {value[layer, head]:.2f}" for name, value in scores.items()]
            titles.append("<br>".join([f"layer {layer + 1} · head {head + 1}", *lines]))
    return titles


def heads_beside_target(
    task: Task,
    tokens: np.ndarray,
    weights: np.ndarray,
    mask: np.ndarray | None,
    style: FigureStyle,
    title: str,
    key: str,
    where: str,
) -> dict[str, np.ndarray]:
    """Every head's ``weights (L, H, T, T)`` (left) beside the task's target pattern (right)."""
    labels = task.labels(tokens)
    scores = head_scores(task, tokens, weights)
    n_layers, n_heads = weights.shape[:2]
    left, right = st.columns([3, 1])
    heads = heatmap_grid(
        weights.reshape(-1, *weights.shape[2:]),
        labels,
        labels,
        titles=head_titles(scores, n_layers, n_heads),
        title=title,
        mask=mask,
        style=style,
        columns=min(n_layers * n_heads, 4),
    )
    # room for the panel titles, lifted clear of the panels (plotly.js draws a title of
    # several lines partly over the panel below it)
    heads.update_layout(margin={"t": 110 + 26 * len(scores)})
    heads.update_annotations(yshift=6 * len(scores))
    chart(heads, key=f"{key}_heads", place=left)
    chart(
        heatmap_grid(
            target_pattern(task, tokens)[None],
            labels,
            labels,
            titles=[task.score_names[0]],
            title=f"Target ({where})",
            mask=mask,
            style=style,
            columns=1,
        ),
        key=f"{key}_target",
        place=right,
    )
    right.caption(escape_markdown(f"Target pattern: {task.pattern_name}."))
    return scores


def summary_section(trained: Trained) -> None:
    """Held-out accuracy, steps to 99 %, time, and why training stopped."""
    result = trained.result
    columns = st.columns(3)
    columns[0].metric("Held-out token accuracy", f"{result.accuracy[-1]:.1%}")
    reached = result.steps_to_target
    columns[1].metric("Steps to 99 %", "not reached" if reached is None else f"{reached}")
    columns[2].metric("Training time (one thread)", f"{result.seconds:.1f} s")
    st.caption(escape_markdown(f"Training {result.stop_reason}."))


def curves_section(trained: Trained) -> None:
    """Loss, held-out accuracy and every head's score over training; the replayed step marked."""
    result = trained.result
    chart(
        training_curves(
            result.eval_steps,
            result.loss,
            result.accuracy,
            result.scores,
            marker_step=replayed_step(trained),
            style=trained.state.style,
        ),
        key=f"{PREFIX}curves",
        place=st,
    )


def replayed_step(trained: Trained) -> int:
    """The training step the replay shows: the slider's, or the run's only snapshot.

    Read after :func:`replay_section` has drawn the slider (the curves mark it).
    """
    steps = trained.result.snapshot_steps.tolist()
    if len(steps) == 1:
        return int(steps[0])
    return int(st.session_state.get(task_key(trained.state.task, "replay"), steps[-1]))


def replay_section(trained: Trained) -> None:
    """A training-step slider over the snapshots; every head on the probe at that step."""
    result, style = trained.result, trained.state.style
    task = get_task(result.model.task)
    steps = result.snapshot_steps.tolist()
    if len(steps) == 1:  # a run that stopped at its first evaluation: nothing to slide over
        chosen = steps[0]
        st.markdown(f"Training step: **{chosen}** — the only snapshot of this run.")
    else:
        chosen = st.select_slider(
            "Training step (slide to replay the attention forming)",
            steps,
            value=steps[-1],
            key=task_key(task.name, "replay"),
            bind=BIND,
        )
    index = steps.index(chosen)
    weights = result.snapshot_weights[index]  # (L, H, T, T), by attention_core from the weights
    mask = result.model.attention_mask() if result.model.causal else None
    probe = "".join(task.alphabet[t] for t in result.probe.tolist())
    st.caption(escape_markdown(f"The probe: {probe} (the same sequence at every step)."))
    heads_beside_target(
        task,
        result.probe,
        weights,
        mask,
        style,
        f"Every head at step {chosen}",
        f"{PREFIX}replay",
        "probe",
    )


def _answer_table(task: Task, prediction: Prediction) -> pd.DataFrame:
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


def try_it_section(trained: Trained) -> None:
    """The student's own probe: the trained model's answer and every head's attention."""
    result, style = trained.result, trained.state.style
    task = get_task(result.model.task)
    text = st.text_input(
        f"Your sequence: {task.probe_length} symbols from {task.alphabet}",
        task.default_probe,
        max_chars=4 * task.probe_length,
        key=task_key(task.name, "probe"),
        bind=BIND,
    )
    try:
        probe = task.parse(text)
    except ac.InputError as error:
        show_error(str(error))
        return
    prediction = predict(result.final, result.model, probe)
    if prediction.asked:
        st.markdown(f"The model gets **{prediction.correct} of {prediction.asked}** answers right.")
    else:
        st.markdown("Nothing to predict here: no token repeats, so no answer is determined.")
    st.dataframe(_answer_table(task, prediction), key=f"{PREFIX}answers")
    mask = result.model.attention_mask() if result.model.causal else None
    heads_beside_target(
        task,
        prediction.tokens,
        prediction.trace.weights,
        mask,
        style,
        "Every head of the trained model on your sequence",
        f"{PREFIX}try",
        "your sequence",
    )
    show_code(TRY_IT_CODE)


#: The sections after the training one, in the order the page shows them.
SECTIONS: tuple[Section[Trained], ...] = (
    Section("2 · Watch the attention form", replay_section),
    Section("3 · Loss, accuracy and head scores", curves_section),
    Section("4 · Try it", try_it_section),
)
