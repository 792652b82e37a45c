"""The learning page after training: the curves, the replay of attention forming, and "Try it".

Every attention matrix drawn here is computed by
:func:`attention_core.learning.forward.forward` (through
:mod:`attention_core.maths.attention`) from the trained matrices, never read back
from PyTorch.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.learning import forward as learned_forward
from attention_core.learning.patterns import pattern_lines
from attention_core.learning.tasks import Task, get_task
from attention_core.maths import attention
from ui.learning.cache import (
    CachedChart,
    Trained,
    answer,
    curves_figure,
    probe_target_figure,
    replay_figure,
)
from ui.learning.heads_off import heads_off_section
from ui.learning.state import PREFIX, task_key
from ui.shared.cell_lines import recorded_lines, weight_lines
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_error
from ui.shared.tabs import Section
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines

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


def heads_beside_target(
    heads: CachedChart,
    target: CachedChart,
    task: Task,
    tokens: np.ndarray,
    key: str,
    cells: CellLines | None = None,
) -> None:
    """Every head's attention (left, from :mod:`ui.learning.cache`) beside the target on
    ``tokens`` (right); ``cells`` explains a selected weight of a head, the task's rule a
    selected cell of the target."""
    left, right = st.columns([3, 1])
    chart(heads, key=f"{key}_heads", place=left, cells=cells)

    def rule(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        return pattern_lines(task, tokens, *cell)

    chart(target, key=f"{key}_target", place=right, cells=rule)
    right.caption(escape_markdown(f"Target pattern: {task.pattern_name}."))


def summary_section(trained: Trained) -> None:
    """Held-out accuracy, steps to 99 %, time, and why training stopped."""
    result = trained.result
    columns = st.columns(3)
    columns[0].metric("Held-out token accuracy", f"{result.held_out[-1]:.1%}")
    reached = result.steps_to_target
    columns[1].metric("Steps to 99 %", "not reached" if reached is None else f"{reached}")
    columns[2].metric("Training time (one thread)", f"{result.seconds:.1f} s")
    st.caption(escape_markdown(f"Training {result.stop_reason}."))


def curves_section(trained: Trained) -> None:
    """Loss, held-out accuracy and every head's score over training; the replayed step marked."""
    chart(curves_figure(trained, replayed_step(trained)), key=f"{PREFIX}curves")


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
    result = trained.result
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
    probe = "".join(task.alphabet[t] for t in result.probe.tolist())
    st.caption(escape_markdown(f"The probe: {probe} (the same sequence at every step)."))
    index = steps.index(chosen)
    heads = replay_figure(trained, index)  # attention_core's, from the weights
    recorded = result.snapshot_weights[index]  # (L, H, T, T): panels layer by layer
    stack = recorded.reshape(-1, *recorded.shape[-2:])
    cells = recorded_lines(stack, [f"at training step {chosen}"] * len(stack))
    target = probe_target_figure(trained)
    heads_beside_target(heads, target, task, result.probe, f"{PREFIX}replay", cells)


def try_it_section(trained: Trained) -> None:
    """The student's own probe: the trained model's answer and every head's attention."""
    task = get_task(trained.result.model.task)
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
    shown = answer(trained, tuple(probe.tolist()))
    if shown.asked:
        st.markdown(f"The model gets **{shown.correct} of {shown.asked}** answers right.")
    else:
        st.markdown("Nothing to predict here: no token repeats, so no answer is determined.")
    st.dataframe(shown.table, key=f"{PREFIX}answers")
    cells = weight_lines(shown.masked)  # the trained model's own scores on the sequence
    heads_beside_target(shown.heads, shown.target, task, shown.tokens, f"{PREFIX}try", cells)
    show_code(TRY_IT_CODE)


#: The sections after the training one, in the order the page shows them.
SECTIONS: tuple[Section[Trained], ...] = (
    Section("2 · Watch the attention form", replay_section),
    Section("3 · Loss, accuracy and head scores", curves_section),
    Section("4 · Try it", try_it_section),
    Section("5 · Turn heads off", heads_off_section),
)
