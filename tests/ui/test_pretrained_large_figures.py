"""The pretrained page's figures whose size grows with layers and heads, at real sizes: 30 layers
× 9 heads (SmolLM2-135M) at 128 tokens, and 48 layers × 32 heads.

The model view shows a group of layers at a time, every head of each, on any number of rows;
a score of every head labels every layer; a head view of many heads keeps its legend off its
title. Built directly (no server): layout, titles, the numbers drawn, and the text alternative
and tables written from them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attention_core.pretrained import pooling
from ui.figures.describe import describe_figure
from ui.figures.head_view import head_view
from ui.figures.style import NORMAL, PRESENTATION
from ui.figures.tables import figure_tables
from ui.pretrained.figures import (
    MODEL_VIEW_BINS,
    ModelViewGrid,
    group_label,
    head_scores_figure,
    model_view_figure,
    model_view_title,
)
from ui.shared.walkable_data import figure_panels, values_of


class Labelled:
    """What the builder reads of an encoding: one label per token."""

    def __init__(self, length: int) -> None:
        self.labels = tuple(f"t{i}" for i in range(length))


def causal_weights(n_layers: int, n_heads: int, length: int, seed: int = 0) -> np.ndarray:
    """Softmax weights ``(L, H, T, T)`` of random scores under a causal mask."""
    scores = np.random.default_rng(seed).normal(size=(n_layers, n_heads, length, length))
    scores = np.where(np.tri(length, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def panel_titles(figure) -> list[str]:
    return [a.text for a in figure.layout.annotations if a.text]


def axis_suffix(row: int, col: int, columns: int) -> str:
    """The suffix of the axes of grid cell (row, col), both from 1 (``""`` for the first)."""
    index = (row - 1) * columns + col
    return "" if index == 1 else str(index)


def test_thirty_layers_of_nine_heads_are_five_groups_of_six_layers_on_one_row_each() -> None:
    grid = ModelViewGrid(30, 9)
    assert (grid.rows_per_layer, grid.columns, grid.layers_per_group) == (1, 9, 6)
    assert [group_label(g) for g in grid.groups] == ["1-6", "7-12", "13-18", "19-24", "25-30"]
    assert grid.group_of(0) == range(0, 6) and grid.group_of(16) == range(12, 18)
    assert grid.group_of(29) == range(24, 30)


def test_the_bundled_models_six_layers_of_twelve_heads_are_one_group() -> None:
    grid = ModelViewGrid(6, 12)
    assert grid.groups == (range(0, 6),)
    assert grid.columns == 12 and grid.places(range(0, 6)) == list(range(72))


def test_a_layer_of_32_heads_wraps_onto_three_rows_and_the_next_layer_starts_a_row() -> None:
    grid = ModelViewGrid(48, 32)
    assert (grid.rows_per_layer, grid.columns, grid.layers_per_group) == (3, 11, 2)
    assert len(grid.groups) == 24 and group_label(grid.groups[-1]) == "47-48"
    places = grid.places(range(46, 48))
    assert places[:11] == list(range(11))  # layer 47's heads 1-11: the first row
    assert places[31] == 2 * 11 + 9  # its head 32: third row, tenth column
    assert places[32] == 3 * 11  # layer 48's head 1 starts the fourth row
    assert len(set(places)) == 64


def test_an_uneven_last_group_holds_the_layers_left() -> None:
    assert ModelViewGrid(32, 9).groups[-1] == range(30, 32)
    assert group_label(ModelViewGrid(5, 100).groups[4]) == "5"  # one layer a group


def test_the_model_view_of_30_layers_and_9_heads_at_128_tokens_draws_one_group() -> None:
    weights = causal_weights(30, 9, 128)
    mask = np.tri(128, dtype=bool)
    figure = model_view_figure(Labelled(128), weights, NORMAL, mask, range(12, 18))
    assert figure.layout.title.text == (
        "Model view · layers 13–18 of 30 (rows) and every head (columns)"
    )
    titles = panel_titles(figure)
    assert titles == [f"L{layer} H{head}" for layer in range(13, 19) for head in range(1, 10)]
    assert len(figure.data) == 54
    pooled = pooling.pool_weights(weights[12:18], MODEL_VIEW_BINS)  # (6, 9, 32, 32)
    for index, (layer, head) in enumerate([(0, 0), (2, 4), (5, 8)]):
        trace = figure.data[[0, 22, 53][index]]
        drawn = np.asarray(trace.z, dtype=float)
        allowed = np.isfinite(drawn)
        np.testing.assert_allclose(drawn[allowed], pooled[layer, head][allowed], atol=1e-6)
    last = figure.data[53]  # L18 H9: sixth row, ninth column
    assert (last.xaxis, last.yaxis) == (f"x{axis_suffix(6, 9, 9)}", f"y{axis_suffix(6, 9, 9)}")
    assert figure.layout.height == 140 + 6 * 110


def test_a_30_layer_groups_walk_data_is_each_pooled_panel_once_and_stays_small() -> None:
    """What "Walk a matrix cell by cell" offers for a group of 54 panels at 128 tokens: each
    panel's pooled 32 × 32 matrix as the grid draws it, well under a megabyte in all."""
    weights = causal_weights(30, 9, 128)
    figure = model_view_figure(
        Labelled(128), weights, NORMAL, np.tri(128, dtype=bool), range(24, 30)
    )
    panels = figure_panels(figure)
    assert [panel["title"].rsplit(", ", 1)[1] for panel in panels] == [
        f"L{layer} H{head}" for layer in range(25, 31) for head in range(1, 10)
    ]
    for panel, trace in zip(panels, figure.data, strict=True):
        np.testing.assert_array_equal(values_of(panel), np.asarray(trace.z, dtype=np.float32))
    assert len(json.dumps(panels)) < 600_000  # ~8.6 kB a panel


def test_every_layer_of_a_deep_model_still_builds_on_any_number_of_rows() -> None:
    """Plotly's make_subplots refused 30 rows at the grid's spacing (the reported crash)."""
    figure = model_view_figure(Labelled(16), causal_weights(30, 9, 16), NORMAL)
    assert len(figure.data) == 270
    assert figure.layout.title.text == "Model view · every layer (rows) and head (columns)"
    domains = [figure.layout[f"yaxis{axis_suffix(row, 1, 9)}"].domain for row in (1, 2)]
    assert domains[1][1] < domains[0][0]  # rows apart, each of some height
    assert all(top > bottom for bottom, top in domains)


def test_48_layers_of_32_heads_show_a_groups_layers_and_all_their_heads() -> None:
    weights = causal_weights(48, 32, 16, seed=1)
    figure = model_view_figure(Labelled(16), weights, NORMAL, np.tri(16, dtype=bool), range(2, 4))
    assert figure.layout.title.text == (
        "Model view · layers 3–4 of 48, each layer's 32 heads on 3 rows of up to 11"
    )
    assert panel_titles(figure) == [
        f"L{layer} H{head}" for layer in (3, 4) for head in range(1, 33)
    ]
    layer_four_first = figure.data[32]
    assert layer_four_first.name == "L4 H1"
    assert layer_four_first.xaxis == f"x{axis_suffix(4, 1, 11)}"
    np.testing.assert_allclose(
        np.nan_to_num(np.asarray(layer_four_first.z, dtype=float)),
        np.where(np.tri(16, dtype=bool), weights[3, 0], 0.0),
        atol=1e-6,
    )
    assert figure.layout.height == 140 + 6 * 110


def test_presenting_makes_the_rows_taller_and_the_panel_titles_larger() -> None:
    weights = causal_weights(30, 9, 16)
    shown = model_view_figure(Labelled(16), weights, PRESENTATION, layers=range(0, 6))
    assert shown.layout.height == 140 + 6 * round(110 * 40 / 28)
    assert {a.font.size for a in shown.layout.annotations} == {PRESENTATION.tick_size}


def test_the_text_alternative_and_the_tables_are_written_from_the_groups_numbers() -> None:
    weights = causal_weights(30, 9, 16)
    weights[20, 3, 15] = np.eye(16)[3]  # L21 H4: the last query reads only token 3
    figure = model_view_figure(Labelled(16), weights, NORMAL, layers=range(18, 24))
    alt = describe_figure(figure)
    assert alt.startswith("Model view · layers 19–24 of 30 (rows) and every head (columns).")
    assert "L21 H4: 16 rows × 16 columns" in alt and "'t15' → 't3' 1.00" in alt
    assert "L18 H" not in alt and "L25 H" not in alt
    tables = figure_tables(figure)
    assert [table.title for table in tables] == [f"L19 H{h}" for h in range(1, 10)] + [
        "L20 H1",
        "L20 H2",
        "L20 H3",
    ]
    assert "42 more panels are not tabled here." in tables[-1].note


def test_the_title_names_a_single_layer_group() -> None:
    assert model_view_title(ModelViewGrid(5, 100), range(2, 3)) == (
        "Model view · layer 3 of 5, each layer's 100 heads on 9 rows of up to 12"
    )


@pytest.mark.parametrize(("n_layers", "n_heads"), [(30, 9), (48, 32)])
def test_a_score_of_every_head_labels_every_layer_and_head(n_layers: int, n_heads: int) -> None:
    scores = np.random.default_rng(2).random((n_layers, n_heads))
    figure = head_scores_figure(scores, "induction", NORMAL)
    (trace,) = figure.data
    np.testing.assert_allclose(np.asarray(trace.z, dtype=float), scores, atol=1e-6)
    assert list(trace.y) == [f"layer {i}" for i in range(1, n_layers + 1)]
    assert list(trace.x) == [f"head {j}" for j in range(1, n_heads + 1)]
    assert figure.layout.title.text == "Induction score of every head"
    plot_px = figure.layout.height - 120
    assert plot_px / n_layers >= NORMAL.tick_size + 7  # a row per label, none skipped
    alt = describe_figure(figure)
    assert f"Induction score of every head: {n_layers} rows × {n_heads} columns" in alt


def test_a_score_of_every_head_of_a_small_model_is_as_tall_as_before() -> None:
    """Up to 24 rows a heatmap grows by its cell height, as every heatmap of the app."""
    assert head_scores_figure(np.zeros((3, 4)), "induction", NORMAL).layout.height == 120 + 3 * 28
    assert head_scores_figure(np.zeros((30, 9)), "induction", NORMAL).layout.height == 120 + 24 * 28


def test_a_head_view_of_twelve_heads_keeps_its_legend_rows_off_the_title() -> None:
    weights = causal_weights(1, 12, 8)[0]
    labels = [f"t{i}" for i in range(8)]
    few = head_view(weights, labels, labels, heads=[0, 1, 2, 3], query=5)
    assert few.layout.margin.t == 60 and few.layout.title.y is None  # as before
    many = head_view(weights, labels, labels, heads=list(range(12)), query=5, style=PRESENTATION)
    legend_row = int(PRESENTATION.font_size * 1.8)
    assert many.layout.margin.t == 60 + 2 * legend_row  # three rows of at most four entries
    assert (many.layout.title.yref, many.layout.title.y, many.layout.title.yanchor) == (
        "container",
        1.0,
        "top",
    )
    assert many.layout.height == 120 + 2 * legend_row + 8 * legend_row  # 8 tokens
    styles = {(trace.line.color, trace.line.dash) for trace in many.data if trace.showlegend}
    assert len(styles) == 12  # every head its own colour and line style
