"""How figures are constructed: once, from plain dicts, instead of call by call.

Every ``update_layout`` / ``update_xaxes`` / ``add_trace`` call on a
``go.Figure`` walks plotly's property machinery again, and ``make_subplots``
recomputes its grid each time: that would be most of a rerun's server time
(benchmarks/rerun_cost.py). The same properties given to one
``go.Figure(data=..., layout=...)`` are validated once and give the same JSON
(tests/ui/test_frozen_figures.py proves it for the heatmap builders). Builders
describe what a figure contains; this module only decides how it is put together.

Plotly also checks and normalises every property as it builds, most of a heatmap's
build time. The heatmap builders, the hot path of every rerun,
build unchecked (``checked=False``): they write each property in the form plotly
would normalise it to, and tests/ui/test_frozen_figures.py builds each of them
checked too (:data:`ALWAYS_CHECK`) and requires the same JSON, so a value plotly
would refuse or rewrite still fails there (a misspelt name fails even unchecked).
Other builders stay checked.
"""

from __future__ import annotations

import copy
import functools
import html
import re
from collections.abc import Iterable, Sequence

import plotly.graph_objects as go
from _plotly_utils.utils import convert_to_base64
from plotly.basedatatypes import BaseTraceType
from plotly.subplots import make_subplots

_AXIS_KEY = re.compile(r"^([xy])axis(\d*)$")
#: Check every figure, also those built with ``checked=False`` (the tests turn it on).
ALWAYS_CHECK = False


def figure(
    traces: Iterable[BaseTraceType | dict], layout: dict, *, checked: bool = True
) -> go.Figure:
    """One ``go.Figure`` of ``traces`` (trace objects, or dicts with a ``type``) and ``layout``.

    Trace objects are passed on as their own JSON dicts (already validated when
    they were made), so plotly copies them once instead of re-validating twice.
    ``checked=False`` skips plotly's checks: only for builders whose figures the
    frozen-figure tests also build checked.
    """
    data = [t.to_plotly_json() if isinstance(t, BaseTraceType) else t for t in traces]
    return go.Figure(data=data, layout=layout, _validate=checked or ALWAYS_CHECK)


def plain(figure: go.Figure) -> tuple[list[dict], dict]:
    """The traces and layout of ``figure`` as the plain dicts plotly keeps, not copied.

    For reading only (descriptions, tables): a property read through plotly's objects
    costs tens of microseconds, and a description reads dozens; ``to_dict`` copies all.
    ``_data`` and ``_layout`` are where plotly (pinned in requirements.txt) keeps them.
    """
    return figure._data, figure._layout


class SentSpec(dict):
    """A sent figure's dict, which keeps the JSON plotly writes of it: ``plotly.io.to_json``
    writes it once (:mod:`ui.figures` wraps it) instead of on every draw."""

    json: str | None = None


class SentFigure(go.Figure):
    """A finished figure that is never changed again: its dict and its JSON are made once.

    ``st.plotly_chart`` asks a figure for ``to_dict()`` on every draw (a deep copy of
    every trace and a walk of it for arrays to convert) and writes that dict as JSON
    (``plotly.io.to_json``): several milliseconds for one 64 × 64 heatmap, on every run of
    every session that draws a shared figure. This one answers with the dict it made the
    first time, a :class:`SentSpec`, whose JSON is written once too (the same JSON:
    Streamlit only reads both). Made by :func:`encode_arrays`, for shared figures only.
    """

    def to_dict(self) -> dict:
        sent = self.__dict__.get("_sent")
        if sent is None:
            sent = SentSpec(super().to_dict())
            object.__setattr__(self, "_sent", sent)  # plotly's __setattr__ checks names
        return sent


def encode_arrays(figure: go.Figure) -> SentFigure:
    """``figure``, finished, with every NumPy array in it replaced, in place, by the
    typed-array form plotly sends to the browser (``{"dtype", "bdata", "shape"}``, by
    plotly's own ``convert_to_base64``), as a :class:`SentFigure`: drawing it no longer
    converts or copies it again.

    For a finished figure only (a shared one, built once): readers of its arrays go
    through :func:`ui.figures.tables.trace_array`, which reads both forms.
    """
    data, layout = plain(figure)
    convert_to_base64({"data": data, "layout": layout})
    figure.__class__ = SentFigure  # the same object: nothing is copied
    return figure


def shown_text(label: object) -> str:
    """A label Plotly shows as text: it reads a few HTML tags and entities in every label, so a
    token such as ``<b>`` would turn bold; escaped, it shows as typed (:func:`read_text`)."""
    return html.escape(str(label), quote=False)


def as_text(labels: Iterable[object]) -> list[str]:
    """Every label of ``labels`` through :func:`shown_text`."""
    return [shown_text(label) for label in labels]


def read_text(label: object) -> str:
    """A label as it was before :func:`as_text` (what tables and text alternatives show)."""
    return html.unescape(str(label))


def text_of(title: object) -> str | None:
    """A title's text, written either as ``{"text": ...}`` or as a bare string."""
    if isinstance(title, dict):
        title = title.get("text")
    return None if title is None else read_text(title)


@functools.cache
def colour_scale(name: str) -> tuple:
    """Plotly's own stops for a named colour scale, as a checked build writes them."""
    return go.Heatmap(colorscale=name).colorscale


def update_axes(
    layout: dict, axis: str, settings: dict, columns: Iterable[int] | None = None, grid_cols=1
) -> None:
    """Merge ``settings`` into every ``axis`` ('x' or 'y') axis of ``layout``.

    Like ``figure.update_xaxes(**settings)`` (or ``col=c`` for each of
    ``columns``, on a grid ``grid_cols`` wide) on the finished figure; nested
    dicts merge one level deep, as plotly's update does.
    """
    wanted = None if columns is None else set(columns)
    for key in list(layout):
        match = _AXIS_KEY.match(key)
        if not match or match.group(1) != axis:
            continue
        if wanted is not None:
            index = int(match.group(2) or 1)
            if (index - 1) % grid_cols + 1 not in wanted:
                continue
        target = layout[key]
        for name, value in settings.items():
            if isinstance(value, dict) and isinstance(target.get(name), dict):
                target[name] = {**target[name], **value}
            else:
                target[name] = value


#: Gaps between a grid's panels take at most this share of its width or height.
MAX_GAP_SHARE = 0.5


def fitted_spacing(spacing: float, count: int) -> float:
    """``spacing`` (a share of the figure) between ``count`` panels in a line, made smaller when
    the ``count - 1`` gaps would take more than :data:`MAX_GAP_SHARE` of it.

    ``make_subplots`` refuses a spacing over ``1 / (count - 1)`` (30 layers at 0.08 did) and
    leaves no room for the panels just below it.
    """
    return spacing if count < 2 else min(spacing, MAX_GAP_SHARE / (count - 1))


def subplot_layout(
    rows: int, cols: int, titles: Sequence[str], horizontal_spacing: float, vertical_spacing: float
) -> dict:
    """``make_subplots``' layout (axis domains and anchors, title annotations) as a fresh dict,
    for any number of rows and columns (spacings fitted, :func:`fitted_spacing`).

    Cached by which cells have a title, not by the titles: the model view's groups of layers
    share one grid of differently titled panels, and ``make_subplots`` of 66 cells is slow.
    """
    spacings = (fitted_spacing(horizontal_spacing, cols), fitted_spacing(vertical_spacing, rows))
    titled = tuple(bool(title) for title in titles)
    layout = copy.deepcopy(_subplot_layout(rows, cols, titled, *spacings))
    texts = iter([title for title in titles if title])
    for annotation in layout.get("annotations", ()):  # one per title, in the titles' order
        annotation["text"] = next(texts)
    return layout


@functools.lru_cache(maxsize=64)
def _subplot_layout(
    rows: int,
    cols: int,
    titled: tuple[bool, ...],
    horizontal_spacing: float,
    vertical_spacing: float,
) -> dict:
    grid = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=["title" if has_title else "" for has_title in titled],
        horizontal_spacing=horizontal_spacing,
        vertical_spacing=vertical_spacing,
    )
    layout = grid.to_plotly_json()["layout"]
    # make_subplots applies whatever plotly template is the default at that moment;
    # this layout is cached, so keep only the grid (the app sends no template).
    layout.pop("template", None)
    return layout


def cell_axes(row: int, col: int, cols: int) -> dict:
    """The ``xaxis``/``yaxis`` references of a trace in grid cell (row, col), 1-based."""
    index = (row - 1) * cols + col
    suffix = "" if index == 1 else str(index)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
