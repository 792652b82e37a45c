"""The learning page's "Turn heads off": the trained model with some heads off, and the sweep.

The heads are picked with the shared picker (:func:`ui.shared.heads_off.heads_off_picker`,
key ``learn_<task>_off``, in the link). Beside the intact model: the held-out accuracy and
loss with those heads off, the sweep (each head alone off) as a layer × head chart, the
claim the task makes when this run keeps it (:data:`attention_core.learning.claims.
HEADS_OFF_CLAIMS`) and the "Try it" sequence answered with the heads off. Every number is
computed by :mod:`attention_core.learning.ablation` and shared across sessions
(:mod:`ui.learning.cache`).
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.learning import claims
from attention_core.learning.ablation import Sweep
from attention_core.learning.tasks import get_task
from attention_core.maths.ablation import ABLATION_KINDS, Ablation
from attention_core.teaching.head_cells import accuracy_drop_cell
from ui.learning.cache import Trained, answer, heads_off_score, sweep_view
from ui.learning.state import PREFIX, task_key
from ui.shared.heads_off import head_label, heads_off_picker, turn_off
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_info, show_warning
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines

#: The buttons that turn one head of the induction circuit off: its role, in words.
CIRCUIT_ROLES = ("previous-token", "induction")


def off_words(ablation: Ablation) -> str:
    """``"L1 H2 and L2 H1 off (zeroed)"``."""
    names = [head_label(layer, head) for layer, head in sorted(ablation.heads)]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{joined} off ({ABLATION_KINDS[ablation.kind].label.lower()})"


def circuit_buttons(trained: Trained, key: str) -> None:
    """One click turns off the run's previous-token head, or its induction head (induction)."""
    heads = claims.circuit_heads(trained.result)
    if heads is None:
        return
    columns = st.columns(2)
    for place, role, head in zip(columns, CIRCUIT_ROLES, heads, strict=True):
        place.button(
            f"Turn off the {role} head ({head_label(*head)})",
            key=f"{key}_{role.replace('-', '_')}",
            on_click=turn_off,
            args=(key, [head]),
            help=f"The layer-{head[0] + 1} head with the highest {role} score at the end of "
            "training; every other head on.",
        )


def score_metrics(trained: Trained, ablation: Ablation | None) -> None:
    """Accuracy and loss with the heads off beside the intact model, and the same in words.

    Nothing off: the accuracy training measured on the same held-out sequences (equal to the
    NumPy pass's, tests/core/learning/test_heads_off_sweep.py), so opening the page costs
    no pass over them.
    """
    columns = st.columns(4)
    if ablation is None:
        accuracy = float(trained.result.held_out[-1])
        columns[0].metric("Held-out accuracy, every head on", f"{accuracy:.1%}")
        st.markdown("Every head is on: pick heads above to turn them off.")
        return
    intact, off = heads_off_score(trained, None), heads_off_score(trained, ablation)
    columns[0].metric("Held-out accuracy, every head on", f"{intact.accuracy:.1%}")
    columns[1].metric("Held-out loss, every head on", f"{intact.loss:.3f}")
    lost = 100 * (off.accuracy - intact.accuracy)
    columns[2].metric("Held-out accuracy, heads off", f"{off.accuracy:.1%}", f"{lost:+.1f} points")
    columns[3].metric(
        "Held-out loss, heads off", f"{off.loss:.3f}", f"{off.loss - intact.loss:+.3f}",
        delta_color="inverse",
    )  # fmt: skip
    st.markdown(
        escape_markdown(
            f"With {off_words(ablation)}, the model gets {off.accuracy:.1%} of the "
            f"{off.asked} held-out answers right, against {intact.accuracy:.1%} with every "
            f"head on; its loss goes from {intact.loss:.3f} to {off.loss:.3f} nats."
        )
    )


def sweep_part(trained: Trained, key: str) -> None:
    """On request (a toggle in the link): each head alone off, drawn, and the task's claim.

    A sweep is a pass over the held-out sequences per head (about a second for induction's
    defaults, once per run for every session): a class opening the page does not pay it.
    """
    kind = st.session_state.get(f"{key}_kind", "zero")
    kind = kind if kind in ABLATION_KINDS else "zero"
    shown = st.toggle(
        "Turn each head off alone (the sweep)",
        key=task_key(trained.state.task, "sweep"),
        bind=BIND,
        help="Runs the held-out sequences once per head, each time with that head alone off "
        "(as chosen above: zero or mean), and draws the accuracy lost, layer by head.",
    )
    if not shown:
        return
    view = sweep_view(trained, kind)
    chart(view.chart, key=f"{PREFIX}sweep", cells=drop_lines(view.sweep))
    words = claim_words(trained, sweep_view(trained, "zero").sweep)
    if words is not None:
        show_info(words)


def drop_lines(sweep: Sweep) -> CellLines:
    """Entry ``(layer, head)`` of the sweep's accuracy lost: every head on, minus that head
    alone off (:func:`attention_core.teaching.head_cells.accuracy_drop_cell`)."""
    how = ABLATION_KINDS[sweep.kind].label.lower()
    intact, asked = sweep.intact.accuracy, sweep.intact.asked
    return lambda _panel, cell: accuracy_drop_cell(intact, sweep.accuracy, asked, *cell, how).lines


def claim_words(trained: Trained, zeroed: Sweep) -> str | None:
    """What this run shows of the task's claim: the claim when it keeps it, else the facts."""
    result = trained.result
    task = result.model.task
    if task == "induction" and (heads := claims.circuit_heads(result)) is not None:
        drops = claims.circuit_drops(result, zeroed)
        named = [
            f"{role} head ({head_label(*head)})"
            for role, head in zip(CIRCUIT_ROLES, heads, strict=True)
        ]
        if claims.needs_both_circuit_heads(result, zeroed):
            return (
                f"This model needs both heads of the textbook circuit: zeroing its {named[0]} "
                f"alone costs {100 * drops[0]:.0f} points of held-out accuracy, its {named[1]} "
                f"alone {100 * drops[1]:.0f} (more than {100 * claims.CIRCUIT_DROP:.0f} each, "
                "as for nine in ten runs of the default settings)."
            )
        alone = [
            f"zeroing the {name} alone costs only {100 * drop:.1f} points"
            for name, drop in zip(named, drops, strict=True)
            if drop <= claims.CIRCUIT_DROP
        ]
        if not alone:  # the heads matter, but the intact model is not accurate enough
            return None
        return (
            f"Here {' and '.join(alone)}: another head of the same layer does that job too, so "
            "the model copies with either. Turn them off together to see copying break."
        )
    if task == "sort" and claims.sort_rests_on_layer_one(result, zeroed):
        return (
            "This model sorts in layer 1: zeroing any layer-1 head alone costs more than "
            f"{100 * claims.SORT_LAYER_ONE_DROP:.0f} points, any layer-2 head alone at most "
            f"{100 * claims.SORT_LAYER_TWO_DROP:.0f}, whatever its sorted-symbol score: a head "
            "that looks right is not always a head the model needs."
        )
    return None


def try_it_off(trained: Trained, ablation: Ablation | None) -> None:
    """The "Try it" sequence answered with the heads off (as typed in section 4)."""
    task = get_task(trained.result.model.task)
    text = st.session_state.get(task_key(task.name, "probe"), task.default_probe)
    try:
        probe = tuple(task.parse(text).tolist())
    except ac.InputError:
        st.markdown("Type a valid sequence in “Try it” to see it answered with the heads off.")
        return
    if ablation is None:
        return
    intact, off = answer(trained, probe), answer(trained, probe, ablation)
    if not off.asked:
        return
    st.markdown(
        escape_markdown(
            f"Your sequence from “Try it”, with {off_words(ablation)}: the model gets "
            f"{off.correct} of {off.asked} answers right ({intact.correct} with every head on)."
        )
    )
    st.dataframe(off.table, key=f"{PREFIX}off_answers")


def warn_long_link(key: str, n_layers: int, n_heads: int) -> None:
    """A link listing more heads than the model has: said in words (the picker keeps the heads
    the model has and drops the rest; Streamlit reads at most 1000 link values at all)."""
    listed = st.query_params.get_all(key)
    if len(listed) > n_layers * n_heads:
        show_warning(
            f"This link lists {len(listed)} heads to turn off, but this model has "
            f"{n_layers * n_heads} (layers 1 to {n_layers}, heads 1 to {n_heads} each): only "
            "heads it has are kept, and never all of them."
        )


def heads_off_section(trained: Trained) -> None:
    """Pick heads to turn off; the held-out scores, the sweep, the claim, "Try it", heads off."""
    model = trained.result.model
    if model.n_layers * model.n_heads == 1:
        st.markdown(
            "This model has one head: turning it off turns off all its attention, and no token "
            "could read another. Give it more heads or layers in the settings to experiment."
        )
        return
    st.markdown(
        "A head's pattern says where it looks, not whether the model needs it. Turn heads off "
        "and measure: if the held-out accuracy falls, the model was using them."
    )
    key = task_key(model.task, "off")
    warn_long_link(key, model.n_layers, model.n_heads)
    circuit_buttons(trained, key)
    ablation = heads_off_picker(key, model.n_layers, model.n_heads)
    score_metrics(trained, ablation)
    try_it_off(trained, ablation)
    sweep_part(trained, key)
