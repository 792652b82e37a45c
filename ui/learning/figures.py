"""Figures of the learning page: loss, held-out accuracy and head scores over training;
every head's attention beside the task's target pattern."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention_core.learning.patterns import head_scores, target_pattern
from attention_core.learning.tasks import Task
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, FigureStyle

SCORE_DASHES = ("solid", "dot", "dash", "dashdot")


def training_curves(
    steps: np.ndarray,
    loss: np.ndarray,
    accuracy: np.ndarray,
    scores: dict[str, np.ndarray] | None = None,
    *,
    marker_step: int | None = None,
    style: FigureStyle = NORMAL,
    title: str = "Training: loss, held-out accuracy and head scores",
) -> go.Figure:
    """Loss ``(E,)``, accuracy ``(E,)`` and each head score ``name -> (E, L, H)`` over ``steps``.

    One panel each, sharing the step axis, so a drop in the loss lines up with
    the head that formed at the same time; ``marker_step`` draws a vertical line.
    """
    rows = 3 if scores else 2
    figure = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=["training loss", "held-out token accuracy", "head scores"][:rows],
    )
    steps = np.asarray(steps)
    figure.add_trace(
        go.Scatter(x=steps, y=loss, name="loss", line={"color": "#000000"}, showlegend=False),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Scatter(
            x=steps, y=accuracy, name="accuracy", line={"color": "#009E73"}, showlegend=False
        ),
        row=2,
        col=1,
    )
    for index, (name, values) in enumerate((scores or {}).items()):
        _score_lines(figure, steps, name, np.asarray(values), SCORE_DASHES[index % 4], style)
    if marker_step is not None:
        figure.add_vline(x=marker_step, line={"color": "#D55E00", "width": 2, "dash": "dot"})
    figure.update_yaxes(range=[0, 1.02], row=2, col=1, tickformat=".0%")
    if scores:
        figure.update_yaxes(range=[0, 1.02], row=3, col=1)
    figure.update_xaxes(title="training step", row=rows, col=1)
    figure.update_layout(
        title={"text": title, "font": {"size": style.title_size}},
        font={"size": style.font_size},
        height=220 + 170 * rows,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.08, "x": 0.0},
        hovermode="x unified",
    )
    return figure


def _score_lines(
    figure: go.Figure, steps: np.ndarray, name: str, values: np.ndarray, dash: str, style
) -> None:
    """One line per head of ``values (E, L, H)``, coloured by head number across layers."""
    _, n_layers, n_heads = values.shape
    for layer in range(n_layers):
        for head in range(n_heads):
            figure.add_trace(
                go.Scatter(
                    x=steps,
                    y=values[:, layer, head],
                    name=f"{name}: layer {layer + 1} head {head + 1}",
                    line={"color": style.head_colour(layer * n_heads + head), "dash": dash},
                ),
                row=3,
                col=1,
            )


def head_titles(scores: dict[str, np.ndarray], n_layers: int, n_heads: int) -> list[str]:
    """``layer l · head h`` with the head's scores, one per line, e.g. ``anti-diagonal 0.97``."""
    titles = []
    for layer in range(n_layers):
        for head in range(n_heads):
            lines = [f"{name} {value[layer, head]:.2f}" for name, value in scores.items()]
            titles.append("<br>".join([f"layer {layer + 1} · head {head + 1}", *lines]))
    return titles


def heads_figure(
    task: Task,
    tokens: np.ndarray,
    weights: np.ndarray,
    mask: np.ndarray | None,
    style: FigureStyle,
    title: str,
) -> go.Figure:
    """Every head's ``weights (L, H, T, T)`` on ``tokens (T,)``, each titled with its scores."""
    labels = task.labels(tokens)
    scores = head_scores(task, tokens, weights)
    n_layers, n_heads = weights.shape[:2]
    figure = heatmap_grid(
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
    figure.update_layout(margin={"t": 110 + 26 * len(scores)})
    figure.update_annotations(yshift=6 * len(scores))
    return figure


def target_figure(
    task: Task, tokens: np.ndarray, mask: np.ndarray | None, style: FigureStyle, where: str
) -> go.Figure:
    """The task's target pattern ``(T, T)`` on ``tokens (T,)``: the attention that solves it,
    titled with the head score that measures it (the walkable matrix says its title)."""
    labels = task.labels(tokens)
    return heatmap(
        target_pattern(task, tokens),
        labels,
        labels,
        title=f"Target ({where}): {task.score_names[0]}",
        mask=mask,
        style=style,
    )


def sweep_figure(drops: np.ndarray, kind_label: str, style: FigureStyle) -> go.Figure:
    """The sweep ``drops (L, H)``: held-out accuracy lost with each head alone off, as a
    layer × head heatmap (diverging at 0: a head whose loss helps shows below 0)."""
    n_layers, n_heads = drops.shape
    return heatmap(
        drops,
        [f"layer {layer + 1}" for layer in range(n_layers)],
        [f"head {head + 1}" for head in range(n_heads)],
        title=f"Held-out accuracy lost with each head alone off ({kind_label.lower()})",
        kind="scores",
        row_title="layer",
        col_title="head",
        style=style,
    )


def sweep_words(drops: np.ndarray, intact: float, kind_label: str) -> str:
    """The sweep in words, from its numbers: every head's loss in points, the largest first."""
    n_layers, n_heads = drops.shape
    cells = sorted(
        ((float(drops[layer, head]), layer, head)
         for layer in range(n_layers) for head in range(n_heads)),
        reverse=True,
    )  # fmt: skip
    parts = [
        f"layer {layer + 1} head {head + 1}: {100 * drop:.1f} points" for drop, layer, head in cells
    ]
    return (
        f"Layer by head grid of the held-out accuracy lost when each head alone is turned off "
        f"({kind_label.lower()}), from {intact:.1%} with every head on. Largest first: "
        + "; ".join(parts)
        + "."
    )
