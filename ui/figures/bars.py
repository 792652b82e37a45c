"""Horizontal bars with some marked: hatched and named in their label, never by colour alone.

The class's answers (the right ones marked after the reveal) and a decoder's next-token
guesses or score parts (the real next token, the largest part) are drawn by
:func:`marked_bars`. Labels are escaped (:func:`ui.figures.build.shown_text`): a student's
answer or a token is shown as typed, never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ui.figures import build
from ui.figures.style import FigureStyle

BAR_COLOUR = "#0072B2"  #: Okabe-Ito blue (7.5:1 on white)
MARKED_COLOUR = "#009E73"  #: Okabe-Ito bluish green, hatched as well


def marked_bars(
    labels: Sequence[str],
    values: Sequence[float],
    marked: Sequence[bool],
    *,
    title: str,
    axis_title: str,
    texts: Sequence[str],
    hover: str,
    style: FigureStyle,
) -> go.Figure:
    """One bar per label, first on top, ``texts`` beside them, ``marked`` bars hatched.

    ``hover``: Plotly's hover template (``%{y}`` the label, ``%{x}`` the value).
    """
    most = max(values, default=0)
    figure = go.Figure(
        go.Bar(
            x=list(values),
            y=build.as_text(labels),
            orientation="h",
            text=list(texts),
            textposition="outside",  # dark on white, never on the hatching
            cliponaxis=False,
            marker={
                "color": [MARKED_COLOUR if mark else BAR_COLOUR for mark in marked],
                "pattern": {"shape": ["/" if mark else "" for mark in marked]},
            },
            hovertemplate=hover,
        )
    )
    figure.update_layout(
        title={"text": build.shown_text(title), "font": {"size": style.title_size}},
        font={"size": style.font_size},
        xaxis={"title": axis_title, "range": [0, (most or 1) * 1.2]},  # room for the texts
        yaxis={"autorange": "reversed", "type": "category"},
        height=120 + 40 * max(1, len(labels)),
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return figure
