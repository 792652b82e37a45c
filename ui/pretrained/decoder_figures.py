"""The decoder views' bar charts, without Streamlit: next-token guesses and a score's split.

Both mark what matters by words and a hatch pattern as well as colour (the real next
token; the largest term), and escape every label: token names are text, never markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from ui.figures.bars import marked_bars
from ui.figures.style import FigureStyle

ACTUAL_MARK = "✓ the real next token"


def _bars(
    labels: Sequence[str],
    values: Sequence[float],
    marked: Sequence[bool],
    *,
    title: str,
    axis_title: str,
    style: FigureStyle,
) -> go.Figure:
    """:func:`marked_bars` of fractions, each written to three decimals beside its bar."""
    return marked_bars(
        labels,
        values,
        marked,
        title=title,
        axis_title=axis_title,
        texts=[f"{value:.3f}" for value in values],
        hover="%{y}: %{x:.4f}<extra></extra>",
        style=style,
    )


def next_token_bar(
    names: Sequence[str],
    probabilities: Sequence[float],
    actual: str | None,
    title: str,
    style: FigureStyle,
) -> go.Figure:
    """The model's top guesses for the next token and their probabilities.

    ``actual``: the sentence's real next token (None at the last position); its bar, if it
    is among the guesses, is hatched and says so in its label.
    """
    marked = [name == actual for name in names]
    labels = [
        f"{name} ({ACTUAL_MARK})" if mark else name
        for name, mark in zip(names, marked, strict=True)
    ]
    return _bars(labels, probabilities, marked, title=title, axis_title="probability", style=style)


def next_token_alt(
    names: Sequence[str],
    probabilities: Sequence[float],
    where: str,
    actual: str | None,
    rank: int | None,
) -> str:
    """The bar chart in a sentence, from the same numbers."""
    guesses = "; ".join(f"{name} {p:.3f}" for name, p in zip(names, probabilities, strict=True))
    tail = "" if actual is None else f" The real next token, {actual}, ranks {rank}."
    return f"Bar chart of the model's top guesses after {where}: {guesses}.{tail}"


def shares_bar(shares: Mapping[str, float], title: str, style: FigureStyle) -> go.Figure:
    """Each term's share of a head's score, largest first; the largest hatched and named."""
    ordered = sorted(shares.items(), key=lambda item: -item[1])
    labels = [f"{label} (largest)" if i == 0 else label for i, (label, _) in enumerate(ordered)]
    marked = [i == 0 for i in range(len(ordered))]
    values = [value for _, value in ordered]
    return _bars(labels, values, marked, title=title, axis_title="share of the score", style=style)


def shares_alt(shares: Mapping[str, float], head: str) -> str:
    """The split in a sentence, largest term first."""
    ordered = sorted(shares.items(), key=lambda item: -item[1])
    parts = "; ".join(f"{label} {value:.0%}" for label, value in ordered)
    return f"Bar chart of where {head}'s scores come from: {parts}."


def experiment_bars(
    labels: Sequence[str],
    accuracies: Sequence[float],
    induction: Sequence[bool],
    style: FigureStyle,
) -> go.Figure:
    """Copying accuracy with every head on and with heads off: one bar per run, the runs with
    the strongest induction heads off hatched (``induction``) and named so in their label."""
    return _bars(
        labels,
        accuracies,
        induction,
        title="Copying accuracy on the repeated sequence, heads turned off",
        axis_title="copying accuracy (share of the second copy guessed first)",
        style=style,
    )


def experiment_alt(labels: Sequence[str], accuracies: Sequence[float]) -> str:
    """The experiment's bar chart in a sentence, from the same numbers."""
    parts = "; ".join(
        f"{label} {value:.3f}" for label, value in zip(labels, accuracies, strict=True)
    )
    return f"Bar chart of the copying accuracy on the repeated sequence: {parts}."
