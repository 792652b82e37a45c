"""The guided example: which heads link "it" to "animal", measured, and what that does not prove."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from attention_core.pretrained.loading import Encoded
from attention_core.pretrained.slim import SlimTrace
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from attention_core.teaching.head_questions import head_name
from ui.figures.head_view import head_view
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.pretrained.cell_view import cell_lines
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures
from ui.shared.matrix_view import chart

GUIDED_TEXT = "The animal didn't cross the street because it was too tired."
QUERY_WORD, KEY_WORD = "it", "animal"
THRESHOLD = 0.6


def strong_heads(weights: np.ndarray, query: int, key: int, threshold: float) -> list[tuple]:
    """``(layer, head, weight)`` (0-based) of the heads giving ``>= threshold`` from query to key,
    strongest first; ``weights (L, H, T, T)``."""
    shares = weights[:, :, query, key]  # (L, H)
    layers, heads = np.nonzero(shares >= threshold)
    found = [
        (int(layer), int(head), float(shares[layer, head]))
        for layer, head in zip(layers, heads, strict=True)
    ]
    return sorted(found, key=lambda item: -item[2])


GUIDED_VIEWS = 2  #: one per style (normal, presentation): one table and a few small head views


@dataclass(frozen=True)
class GuidedView:
    """What the guided example shows, built once per server: the strong heads as a table, a
    head view of each (with its text alternative), and the mean weight over every head."""

    found: tuple[tuple[int, int, float], ...]
    table: pa.Table  #: immutable, so shared safely; shown as its DataFrame was
    figures: tuple[CachedChart, ...]
    matrices: tuple[CachedChart, ...]  #: each strong head's weights, walkable cell by cell
    mean: float


@cached_figures(GUIDED_VIEWS)
def guided_view(ids: bytes, style: FigureStyle, _encoded: Encoded, _trace: SlimTrace) -> GuidedView:
    """The guided example of the bundled model's input ``ids`` (``_encoded``, whose forward pass
    is ``_trace``): shared read-only by every session."""
    query = _encoded.tokens.index(QUERY_WORD)
    key = _encoded.tokens.index(KEY_WORD)
    weights = _trace.weights  # (L, H, T, T)
    found = strong_heads(weights, query, key, THRESHOLD)
    table = pa.Table.from_pandas(  # what Streamlit would convert the DataFrame to each run
        pd.DataFrame(
            {
                "layer": [layer + 1 for layer, _, _ in found],
                "head": [head + 1 for _, head, _ in found],
                "weight it → animal": [round(value, 3) for _, _, value in found],
            }
        )
    )
    labels = list(_encoded.labels)
    figures, matrices = [], []
    for layer, head, value in found:
        figure = head_view(
            weights[layer],
            labels,
            labels,
            heads=[head],
            query=query,
            style=style,
            title=f"Layer {layer + 1} · head {head + 1}: it → animal {value:.2f}",
        )
        figures.append(cached_chart(figure))
        title = f"Attention weights · {head_name(layer, head)}"
        matrix = heatmap(weights[layer, head], labels, labels, title=title, style=style)
        matrices.append(cached_chart(matrix))
    mean = float(weights[:, :, query, key].mean())
    return GuidedView(tuple(found), table, tuple(figures), tuple(matrices), mean)


def guided_section(
    encoded: Encoded,
    trace: SlimTrace,
    style: FigureStyle,
    info: ModelInfo,
    steps_of: Callable[[int], BlockTrace],
) -> None:
    """Always on the guided sentence (the page's own sentence may differ). ``steps_of(layer)``:
    the guided sentence's every step of a layer, asked for once a cell is selected."""
    view = guided_view(ids=encoded.ids.tobytes(), style=style, _encoded=encoded, _trace=trace)
    found = view.found
    st.markdown(
        f"**“{GUIDED_TEXT}”** — what does *it* refer to? A reader knows: the animal (it was "
        "tired; a street is not). Measured on this sentence with our NumPy forward pass, "
        f"{len(found)} of the 72 heads send at least {THRESHOLD:.0%} of “it”'s attention to "
        "“animal”:"
    )
    st.dataframe(view.table, hide_index=True)
    columns = st.columns(max(1, len(found)))
    for column, (layer, head, _), figure in zip(columns, found, view.figures, strict=True):
        with column:
            chart(figure, key=f"guided_l{layer + 1}h{head + 1}")
    if found:
        guided_matrices(found, view.matrices, info, steps_of)
    mean = view.mean
    st.markdown(
        f"Averaged over all 72 heads, “it” gives “animal” only {mean:.3f} of its attention. "
        "**What this shows:** in this trained model, two heads route information from "
        "“animal” into the position of “it”, which no random model on the other pages does. "
        "**What it does not prove:** that the model *resolves* the pronoun, or that these "
        "heads are *why* it would. Attention weights are not explanations (Jain & Wallace "
        "2019; Wiegreffe & Pinter 2019): the values, the output projection, the other heads "
        "and the feed-forward layers all change what reaches the next layer, and a head can "
        "attend strongly to a token whose value it barely uses. Try “because it was too "
        "wide” (the street) and see whether these heads follow."
    )


def guided_matrices(
    found: Sequence[tuple[int, int, float]],
    matrices: Sequence[CachedChart],
    info: ModelInfo,
    steps_of: Callable[[int], BlockTrace],
) -> None:
    """The found heads' weights as matrices, built only while their expander is open: the
    lines above already draw row "it", and this tab opens first on every change of a class's
    view (a walkable matrix and its two expanders per head, for every follower)."""
    opened = st.expander(
        "The same heads as matrices, to walk cell by cell",
        icon=":material/grid_on:",
        key="guided_matrices",
        on_change="rerun",
    )
    if not opened.open:
        return
    with opened:
        st.caption(
            "Row “it” holds the lines above. Walk them cell by cell with the arrow keys; "
            "select a cell to see its softmax."
        )
        for (layer, head, _), matrix in zip(found, matrices, strict=True):
            cells = cell_lines(partial(steps_of, layer), info, "weights", (head,))
            chart(matrix, key=f"guided_matrix_l{layer + 1}h{head + 1}", cells=cells)
