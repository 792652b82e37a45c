"""The "Why a head attends" tab: one head's raw scores QKᵀ split by where its input came from.

For models with absolute positions the input of a layer is token embedding + position
embedding + what earlier layers wrote, and the score of every query-key pair splits
exactly into terms such as token-token and position-position
(:mod:`attention_core.pretrained.score_split`). A head whose scores are mostly
position-position attends by *where* tokens are (a previous-token head); mostly
token-token, by *what* they are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from attention_core.pretrained import score_split
from attention_core.teaching.cell_computation import number
from attention_core.teaching.head_questions import head_name
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import FigureStyle
from ui.pretrained.decoder_figures import shares_alt, shares_bar
from ui.pretrained.state import PretrainedState
from ui.shared.matrix_view import chart
from ui.shared.safe import show_info
from ui.shared.walk_chart import CellLines

MAIN_TERMS = (
    ("token", "token"),
    ("token", "position"),
    ("position", "token"),
    ("position", "position"),
)
READING = {
    "position-position": "it attends mostly by **where** the tokens are, not what they are",
    "token-token": "it attends mostly by **what** the tokens are (their content)",
    "token-position": "the query's content decides which positions it prefers",
    "position-token": "the query's position decides which contents it prefers",
}


REST, BIASES = "with earlier layers' output", "with the biases"
PART_COLUMNS = 3  #: panels to a row in the parts' grid


def group_of(term: tuple[str, str]) -> str:
    """Where a term is shown: one of the four token/position terms, or with the rest/biases."""
    if score_split.BIAS in term or "segment" in term:  # BERT's sentence-A vector: a constant
        return BIASES
    return REST if "rest" in term else score_split.term_label(term)


def grouped(split: dict[tuple[str, str], np.ndarray]) -> dict[str, np.ndarray]:
    """The four token/position terms, then the sums of the terms with earlier layers' output
    (absent at layer 1) and with the biases; the groups sum to the real score."""
    groups: dict[str, np.ndarray] = {}
    for term, scores in split.items():
        name = group_of(term)
        groups[name] = groups[name] + scores if name in groups else scores
    order = [score_split.term_label(term) for term in MAIN_TERMS] + [REST, BIASES]
    return {name: groups[name] for name in order if name in groups}


def grouped_shares(split: dict[tuple[str, str], np.ndarray], mask: np.ndarray | None) -> dict:
    """Each group's share: the sum of its terms' centred shares (:func:`score_split.share`)."""
    shares: dict[str, float] = {}
    for term, value in score_split.share(split, mask, centre_rows=True).items():
        name = group_of(tuple(term.split("-", 1)))  # type: ignore[arg-type]
        shares[name] = shares.get(name, 0.0) + value
    return shares


def reading(shares: dict[str, float]) -> str:
    """A sentence on the largest term, when it is one of the four token/position terms."""
    largest = max(shares, key=shares.__getitem__)
    meaning = READING.get(largest)
    if meaning is None:
        return f"The largest part is **{largest}** ({shares[largest]:.0%})."
    return f"The largest part is **{largest}** ({shares[largest]:.0%}): {meaning}."


def why_attends_tab(state: PretrainedState) -> None:
    split, reason = state.model.score_split(state.trace, state.layer, state.head)
    if split is None:
        show_info(reason)
        return
    head = head_name(state.layer, state.head)
    mask = state.trace.mask  # (T, T) True = may attend; None = everywhere
    groups = grouped(split)
    shares = grouped_shares(split, mask)
    st.markdown(
        f"{head[:1].upper()}{head[1:]}'s raw score for every query-key pair is the sum of the "
        "parts below, exactly (to float rounding). Each part's share counts only the keys a "
        "query may attend to, after removing what is the same for every key of a query "
        "(softmax ignores it). "
        f"{reading(shares)}"
    )
    chart(
        shares_bar(shares, f"Where {head}'s scores come from", state.style),
        key="why_shares",
        alt=shares_alt(shares, head),
    )
    labels = list(state.encoded.labels)

    def raw_scores() -> np.ndarray:  # the layer is recomputed only once a cell is selected
        return state.steps(state.layer).heads.scores[state.head]  # (T, T)

    cells = part_lines(groups, raw_scores)
    chart(parts_figure(groups, labels, head, mask, state.style), key="why_parts", cells=cells)
    st.caption(reason)


def part_lines(groups: dict[str, np.ndarray], raw_scores: Callable[[], np.ndarray]) -> CellLines:
    r"""How a selected cell of part ``k`` (panel ``k`` of :func:`parts_figure`) adds up: its
    value, every part of that query-key pair and their sum, and the head's own raw score
    :math:`q_i \cdot k_j` (``raw_scores()``: ``(T, T)``, asked for once a cell is selected)."""
    names = list(groups)

    def lines(panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        i, j = cell
        parts = {name: float(groups[name][i, j]) for name in names}
        added = " + ".join(f"{name} {number(value)}" for name, value in parts.items())
        return (
            f"Part “{names[panel]}” of the raw score of query {i + 1} and key {j + 1}: "
            f"{number(parts[names[panel]])}.",
            f"Its {len(parts)} parts: {added} = {number(sum(parts.values()))}.",
            f"The head's raw score q{i + 1} · k{j + 1}: {number(float(raw_scores()[i, j]))}.",
        )

    return lines


def parts_figure(
    groups: dict[str, np.ndarray],
    labels: list[str],
    head: str,
    mask: np.ndarray | None,
    style: FigureStyle,
) -> go.Figure:
    """The parts ``(T, T)`` each as a panel, :data:`PART_COLUMNS` to a row, keys labelled once."""
    figure = heatmap_grid(
        np.stack(list(groups.values())),
        labels,
        labels,
        titles=list(groups),
        title=f"The parts of {head}'s scores QKᵀ",
        kind="scores",
        mask=mask,
        style=style,
        columns=PART_COLUMNS,
        value_name="part of the score",
    )
    # Every panel has the same keys: label them under the lowest panel of each column only,
    # or a second row's panel titles run into the first row's key labels.
    covered = [index for index in range(len(groups)) if index + PART_COLUMNS < len(groups)]
    figure.update_layout(
        {f"xaxis{index + 1 if index else ''}": {"showticklabels": False} for index in covered}
    )
    return figure
