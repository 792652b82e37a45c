"""The "Model view" tab: every head of a group of layers as small multiples, and the opened head.

A model whose heads fit one group (the bundled model's 6 layers × 12 heads) is drawn whole,
as it always was. A deeper one is paged through with the "Layers" control (1-6, 7-12, …,
:class:`ui.pretrained.figures.ModelViewGrid`), bound to the link like every control of the
page. It starts at the group holding the chosen layer, and follows the chosen layer when that
changes (the Layer control, a head table's row, a strongest head's button); paging changes
nothing else. A link's group wins when a link is opened: Streamlit lets the link's value
override one set here on that run, so a shared link shows its group.

Any panel of the grid can be walked cell by cell, and a selected cell is explained
(:func:`grid_lines`): its head's softmax, or for a long input pooled into runs of tokens the
mean over the run's queries of their weights on the other run's keys.
"""

from __future__ import annotations

import streamlit as st

from attention_core.pretrained import pooling
from attention_core.teaching.head_questions import head_name
from attention_core.teaching.pooled_cells import pooled_cell
from ui.pretrained.cache import head_weights_drawn, model_view_drawn
from ui.pretrained.cell_view import cell_lines, stage_cell
from ui.pretrained.figures import (
    MODEL_VIEW_BINS,
    ModelViewGrid,
    group_label,
    group_words,
)
from ui.pretrained.state import LAYERS_KEY, PretrainedState
from ui.shared.matrix_view import chart
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines

#: The chosen layer (0-based) when the pager was last drawn: a different one is followed.
FOLLOWED_KEY = "_model_view_layer"


def shown_group(state: PretrainedState) -> range:
    """The layers to draw: the only group, or the one the "Layers" control shows."""
    grid = ModelViewGrid(state.model.info.n_layers, state.model.info.n_heads)
    if len(grid.groups) == 1:
        return grid.groups[0]
    by_label = {group_label(group): group for group in grid.groups}
    own = group_label(grid.group_of(state.layer))
    followed = st.session_state.get(FOLLOWED_KEY)
    follow = followed is not None and followed != state.layer
    if follow:
        st.session_state[LAYERS_KEY] = own
    st.session_state[FOLLOWED_KEY] = state.layer
    picked = st.segmented_control(
        "Layers",
        list(by_label),
        # A value just set above needs no default (Streamlit would log that it has both).
        default=None if follow else own,
        required=True,
        key=LAYERS_KEY,
        bind=BIND,
        help=f"{grid.n_layers} layers × {grid.n_heads} heads: too many to read at once, so "
        f"{grid.layers_per_group} layers at a time. Choosing a layer above shows its group.",
    )
    return by_label.get(str(picked), grid.group_of(state.layer))


def pooling_caption(state: PretrainedState, layers: range) -> str:
    """What a panel holds: the whole matrix, or runs of neighbouring tokens."""
    length = len(state.encoded)
    panels = len(layers) * state.model.info.n_heads
    if length > MODEL_VIEW_BINS:
        return (
            f"{length} tokens are pooled into {MODEL_VIEW_BINS} runs of neighbouring tokens "
            f"(a run's queries averaged, its keys summed) to keep {panels} panels light; the "
            "head below and every other view show all tokens."
        )
    return f"Each panel is one head's {length} × {length} weights (query rows, key columns)."


def shared_keys_sentence(n_heads: int, n_kv_heads: int) -> str:
    """Grouped-query attention in the model view's words: which heads of a layer share K and V."""
    if n_kv_heads == 1:
        return (
            f"Multi-query attention: in every layer, all {n_heads} heads share one set of keys "
            "and values; only their queries differ."
        )
    size = n_heads // n_kv_heads
    runs = [f"{first}–{first + size - 1}" for first in range(1, n_heads + 1, size)]
    listed = ", ".join(runs[:-1]) + f" and {runs[-1]}"
    return (
        f"Grouped-query attention: in every layer, heads {listed} each share one set of keys "
        "and values; only their queries differ."
    )


def grid_lines(state: PretrainedState, layers: range) -> CellLines:
    r"""How a selected cell of the grid's panel ``k`` was computed: panel ``k`` is head
    ``k mod H`` of layer ``layers.start + k // H`` (the grid's order). Its softmax from the
    layer's steps, recomputed only once a cell is selected; for an input longer than
    :data:`MODEL_VIEW_BINS` tokens, its pooled entry
    :math:`P_{ab} = \frac{1}{|I_a|} \sum_{i \in I_a} \sum_{j \in I_b} A_{ij}` from the pass's
    weights ``(T, T)`` and the runs the figure pooled (:func:`pooling.bin_edges`)."""
    info, length = state.model.info, len(state.encoded)

    def lines(panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        layer, head = layers.start + panel // info.n_heads, panel % info.n_heads
        if length <= MODEL_VIEW_BINS:
            return stage_cell(state.steps(layer), info, "weights", head, cell).lines
        edges = pooling.bin_edges(length, MODEL_VIEW_BINS)  # (B + 1,)
        return pooled_cell(state.weights[layer, head], edges, *cell, state.trace.mask).lines

    return lines


def model_view_tab(state: PretrainedState) -> None:
    layers = shown_group(state)
    st.caption(pooling_caption(state, layers))
    chart(
        model_view_drawn(
            digest=state.digest,
            first=layers.start,
            stop=layers.stop,
            style=state.style,
            _state=state,
        ),
        key="model_view",
        cells=grid_lines(state, layers),
    )
    info = state.model.info
    if info.n_kv_heads < info.n_heads:
        st.caption(shared_keys_sentence(info.n_heads, info.n_kv_heads))
    opened = head_name(state.layer, state.head)
    if state.layer in layers:
        st.caption("Pick a layer and head above to open it here.")
    else:
        st.caption(
            f"Opened below: {opened}, which is not among {group_words(layers)} above. Pick a "
            "layer and head above to open another."
        )
    drawn = head_weights_drawn(
        digest=state.digest, layer=state.layer, head=state.head, style=state.style, _state=state
    )
    # The layer is recomputed only once a cell is selected: the grid above needs none of it.
    cells = cell_lines(lambda: state.steps(state.layer), info, "weights", (state.head,))
    chart(drawn, key="opened_head", cells=cells)
