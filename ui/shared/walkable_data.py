"""What the walkable matrix (:mod:`ui.shared.walkable_matrix`) is sent, and the words it says.

The browser gets one small dict per matrix: the labels, the values as one base64 string of
little-endian float32 (masked and infinite cells NaN, as the heatmap draws them: about
5.3 bytes a cell, what a Plotly heatmap sends), the colour scale sampled to a few stops, and
the one-sentence summary it reads on entering. Each cell's announcement is written in the
browser as :func:`announcement` writes it here (tests/browser/test_walkable_matrix_browser.py
compares the two), so 16 384 sentences are never sent.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale, unlabel_rgb

from ui.figures.build import plain, read_text, text_of
from ui.figures.matrix_look import MASKED_TRACE, WALK_META
from ui.figures.style import NORMAL
from ui.figures.tables import trace_array

SCALE_STOPS = 33  #: colour-scale samples sent; the browser interpolates between them
MASKED_WORD = "masked"
#: What one number of each stage is called in an announcement ("weight 0.42").
VALUE_NAMES = {
    "scores": "score",
    "scaled": "scaled score",
    "masked": "masked score",
    "weights": "weight",
    "context": "context",
}


def value_text(value: float, decimals: int) -> str:
    """A cell's number as the grid shows and says it: fixed decimals, a true minus."""
    return f"{value:.{decimals}f}".replace("-", "−")


def row_rank(row: np.ndarray, column: int) -> str:
    """Where cell ``column`` of ``row (C,)`` stands among the row's finite values, in words."""
    finite = row[np.isfinite(row)]
    value = row[column]
    if len(finite) < 2:
        return ""
    if value == finite.max():
        return "the largest in its row"
    if value == finite.min():
        return "the smallest in its row"
    return f"number {int(np.sum(finite > value)) + 1} of {len(finite)} in its row"


def announcement(
    z: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    i: int,
    j: int,
    *,
    row_title: str = "query",
    col_title: str = "key",
    value_name: str = "weight",
    decimals: int = NORMAL.decimals,
) -> str:
    """What cell ``(i, j)`` of the displayed ``z (R, C)`` (float32, NaN = masked) says, e.g.
    ``query 'it', key 'animal': weight 0.4200, the largest in its row``."""
    where = f"{row_title} '{row_labels[i]}', {col_title} '{col_labels[j]}'"
    value = float(z[i, j])
    if not np.isfinite(value):
        return f"{where}: {MASKED_WORD}"
    rank = row_rank(z[i], j)
    return f"{where}: {value_name} {value_text(value, decimals)}" + (f", {rank}" if rank else "")


def summary(
    z: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    row_title: str = "query",
    col_title: str = "key",
    decimals: int = NORMAL.decimals,
) -> str:
    """The one sentence read on entering the matrix: its size, its range and where its
    largest value is, and how many cells are masked."""
    rows, cols = z.shape
    size = f"{title}: {rows} {row_title} rows by {cols} {col_title} columns"
    finite = np.isfinite(z)
    if not finite.any():
        return f"{size}, every cell masked."
    i, j = np.unravel_index(int(np.nanargmax(np.where(finite, z, -np.inf))), z.shape)
    low, high = value_text(float(np.nanmin(z)), decimals), value_text(float(z[i, j]), decimals)
    sentence = (
        f"{size}, values from {low} to {high}; the largest at {row_title} "
        f"'{row_labels[i]}', {col_title} '{col_labels[j]}'"
    )
    masked = int(np.sum(~finite))
    return sentence + (f"; {masked} cells masked." if masked else ".")


# Once per scale: plotly looks a name up among every named scale, and a grid's panels (the
# model view's 54) each asked again, most of the cost of their walk data.
@functools.cache
def scale_stops(name: str) -> list[list[Any]]:
    """``[[position, [r, g, b]], ...]``: the named Plotly colour scale at :data:`SCALE_STOPS`
    (shared by every matrix drawn with it: read, never changed)."""
    positions = np.linspace(0.0, 1.0, SCALE_STOPS).tolist()
    colours = sample_colorscale(get_colorscale(name), positions, colortype="rgb")
    return [
        [round(p, 4), [round(c) for c in unlabel_rgb(colour)]]
        for p, colour in zip(positions, colours, strict=True)
    ]


class Panel(dict):
    """A matrix's data as :func:`panel_data` makes it (shared, never changed), which keeps its
    JSON once written (:func:`sent`)."""

    json_head: bytes | None = None


def panel_data(
    z: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    look: dict[str, Any],
) -> Panel:
    """Everything the browser needs to draw and walk the displayed ``z (R, C)`` (float32,
    NaN = masked) drawn as ``look`` (:func:`walk_look`). Labels stay plain strings: the
    browser writes them with ``textContent``, never as markup."""
    if len(row_labels) != z.shape[0] or len(col_labels) != z.shape[1]:
        raise ValueError(f"labels {len(row_labels)}x{len(col_labels)} do not match {z.shape}")
    words = {key: look[key] for key in ("row_title", "col_title", "decimals")}
    data: dict[str, Any] = {
        "title": title,
        "rows": [str(label) for label in row_labels],
        "cols": [str(label) for label in col_labels],
        "values": base64.b64encode(z.astype("<f4").tobytes()).decode("ascii"),
        "value_name": look["value_name"],
        "scale": scale_stops(look["colorscale"]),
        "zmin": look["zmin"],
        "zmax": look["zmax"],
        "masked_colour": look["masked_colour"],
        "masked_label": look["masked_label"],
        "cell_px": look["cell_px"],
        "font_px": look["font_px"],
        "summary": summary(z, row_labels, col_labels, title=title, **words),
        **words,
    }
    # Names this matrix, so the browser keeps the focused cell across reruns of the same one.
    data["id"] = hashlib.blake2b(repr(data).encode(), digest_size=8).hexdigest()
    data["selected"] = None
    return Panel(data)


def selecting(data: dict[str, Any], selected: tuple[int, int] | None) -> dict[str, Any]:
    """``data`` (shared, never changed) with this run's selected cell, a shallow copy."""
    return {**data, "selected": list(selected) if selected is not None else None}


def sent(data: dict[str, Any], selected: tuple[int, int] | None, alt: str) -> bytes:
    """What a walkable matrix's component is sent: :func:`selecting` with ``alt``, as UTF-8
    JSON bytes.

    Streamlit forwards bytes as they are. A dict it would write as JSON twice on every run
    (once more to name the element) and scan for dataframes; a :class:`Panel`'s own part
    is written here once.
    """
    head = data.json_head if isinstance(data, Panel) else None
    if head is None:
        shared = {key: value for key, value in data.items() if key not in ("selected", "alt")}
        head = json.dumps(shared).encode()[:-1]  # without its closing brace
        if isinstance(data, Panel):
            data.json_head = head
    tail = {"selected": list(selected) if selected is not None else None, "alt": alt}
    return head + b", " + json.dumps(tail).encode()[1:]


def figure_panels(figure: go.Figure) -> tuple[dict[str, Any], ...]:
    """Each matrix a heatmap figure draws, as :func:`panel_data`; none for other figures.

    A figure is walkable when :func:`ui.figures.heatmap.heatmap` or
    :func:`~ui.figures.heatmap.heatmap_grid` built it: they keep the look in
    ``layout.meta[WALK_META]``. Its masked overlay and cell numbers are drawing only.
    Labels are read back to the text they were (plotly's are escaped).
    """
    traces, layout = plain(figure)
    meta = layout.get("meta")
    look = meta.get(WALK_META) if isinstance(meta, dict) else None
    if not look:
        return ()
    panels = [t for t in traces if t.get("type") == "heatmap" and t.get("name") != MASKED_TRACE]
    title = _one_line(text_of(layout.get("title")) or "")
    return tuple(
        panel_data(
            np.asarray(trace_array(trace["z"]), dtype=np.float32),
            [read_text(label) for label in trace["y"]],
            [read_text(label) for label in trace["x"]],
            title=_panel_title(title, _one_line(trace.get("name", "")), "coloraxis" in trace),
            look=look,
        )
        for trace in panels
    )


def _one_line(title: str) -> str:
    """A plotly title as one line of text: its line breaks (``<br>``) become commas."""
    return ", ".join(part.strip() for part in read_text(title).split("<br>") if part.strip())


def _panel_title(title: str, name: str, in_grid: bool) -> str:
    """A lone heatmap is named by its figure's title; a grid's panel (even the only one: one
    head) by both."""
    if not in_grid or not name:
        return title or name
    return f"{title}, {name}" if title else name


def values_of(data: dict[str, Any]) -> np.ndarray:
    """The displayed matrix ``(R, C)`` float32 (NaN = masked) that ``data`` sends."""
    flat = np.frombuffer(base64.b64decode(data["values"]), dtype="<f4")
    return flat.reshape(len(data["rows"]), len(data["cols"]))


def cell_announcement(data: dict[str, Any], cell: tuple[int, int]) -> str:
    """What ``cell`` of the matrix ``data`` sends says in the browser (:func:`announcement`)."""
    return announcement(
        values_of(data),
        data["rows"],
        data["cols"],
        *cell,
        row_title=data["row_title"],
        col_title=data["col_title"],
        value_name=data["value_name"],
        decimals=data["decimals"],
    )


def read_sent(message: bytes) -> dict[str, Any]:
    """The matrix data a walkable matrix's message carries (its bytes: :func:`sent`);
    ``{}`` for another component's."""
    try:
        loaded = json.loads(message or b"null")
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
