r"""The text page's experiment: turn heads off where they are combined, and see what changes.

.. math::
    \tilde O = \mathrm{combine}(\tilde C_1, \dots, \tilde C_H) \qquad
    \tilde C_h = R\, C_h \text{ for a head that is off} \qquad \Delta = \tilde O - O

Drawn at the end of the output tab (:func:`ui.text.sections.output_tab`): the shared picker
(:mod:`ui.shared.heads_off`, in the link as ``off`` and ``off_kind``), then the output with
the heads off beside the intact one, their difference as a heatmap and as a table of how far
each row moved (:func:`attention_core.output_change`), and the rows that moved most in words.
Every head combination works: the core replaces the heads' contexts before it combines them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as ac
from ui.shared.heads_off import head_label, heads_off_picker, warn_unknown_heads
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_info
from ui.text.cache import compute_ablated, heads_off_figure
from ui.text.cell_view import heads_off_lines
from ui.text.state import OFF_KEY, TextState

INTRO = (
    "Turn some heads off before the heads are combined and compare the output with the "
    "intact one. A head that is off hands the combination zeros, or its average over the "
    "sentence, instead of its context vectors."
)
#: Rows named in words: the few that moved most.
ROWS_IN_WORDS = 3


def change_table(labels: tuple[str, ...], change: ac.OutputChange, decimals: int) -> pd.DataFrame:
    """One row per query token, the one that moved most first: how far, and how far relative
    to its intact length."""
    order = change.order
    return pd.DataFrame(
        {
            "token": [labels[row] for row in order],
            "moved ‖ΔO_t‖": np.round(change.moved[order], decimals),
            "relative to ‖O_t‖": [f"{value:.0%}" for value in change.relative[order]],
        }
    )


def change_in_words(labels: tuple[str, ...], change: ac.OutputChange) -> str:
    """The rows that moved most, as a sentence (token labels are the user's text)."""
    if not np.any(change.moved > 0):
        return "No row of the output changed: these heads added nothing here."
    moved = [row for row in change.order[:ROWS_IN_WORDS] if change.moved[row] > 0]
    named = [
        f'"{labels[row]}" moved by {change.moved[row]:.3g} ({change.relative[row]:.0%} of '
        "its length)"
        for row in moved
    ]
    least = change.order[-1]
    return (
        "The rows that changed most: "
        + "; ".join(named)
        + f'. The least: "{labels[least]}", by {change.moved[least]:.3g}.'
    )


def heads_off_section(state: TextState) -> None:
    """Pick heads to turn off; the output without them beside the intact one, and the change."""
    st.subheader("Turn heads off")
    st.markdown(INTRO)
    n_heads = state.run.config.n_heads
    warn_unknown_heads(OFF_KEY, 1, n_heads)
    ablation = heads_off_picker(OFF_KEY, 1, n_heads, label="Heads to turn off")
    if ablation is None:
        show_info("Choose one or more heads above to see the output without them.")
        return
    off = compute_ablated(state.inputs, ablation)
    labels = state.inputs.queries.labels
    change = ac.output_change(state.run.trace.output, off.trace.output)
    names = ", ".join(head_label(layer, head) for layer, head in sorted(ablation.heads))
    kind = ac.ABLATION_KINDS[ablation.kind]
    st.markdown(f"**Off:** {names} ({kind.label.lower()}): ${kind.formula}$")
    largest, mean = st.columns(2)
    largest.metric("Largest row change ‖ΔO_t‖", f"{float(change.moved.max()):.4g}")
    mean.metric("Mean row change", f"{float(change.moved.mean()):.4g}")
    st.markdown(escape_markdown(change_in_words(labels, change)))
    style = state.style
    intact_column, off_column = st.columns(2)
    places = {"intact": intact_column, "output": off_column, "change": st, "concat": st}
    for name, place in places.items():
        figure = heads_off_figure(state.inputs, ablation, name, style, off, state.run)
        cells = heads_off_lines(name, state.run, off, ablation)
        chart(figure, key=f"off_{name}", place=place, cells=cells)
    st.dataframe(change_table(labels, change, style.decimals), hide_index=True)
