"""Every matrix a chart draws can be read as a table (ui.figures.tables), headers = tokens."""

from __future__ import annotations

import base64

import numpy as np

from ui.figures.describe import describe_figure
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.tables import MAX_TABLE_COLUMNS, MAX_TABLES, figure_tables, matrix_table

TOKENS = ["the", "cat", "sat"]
WEIGHTS = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])


def test_a_heatmap_reads_as_its_numbers_with_token_headers_and_masked_cells_named() -> None:
    figure = heatmap(WEIGHTS, TOKENS, TOKENS, title="W", mask=np.tri(3, dtype=bool))
    (table,) = figure_tables(figure)
    assert table.title == "W" and table.note == ""
    assert list(table.frame.index) == TOKENS and list(table.frame.columns) == TOKENS
    assert table.frame.values.tolist() == [
        ["1.00", "masked", "masked"],
        ["0.25", "0.75", "masked"],
        ["0.20", "0.30", "0.50"],
    ]


def test_repeated_tokens_get_distinct_headers() -> None:
    labels = ["a", "a", "b"]
    table = matrix_table(WEIGHTS, labels, labels, title="W", decimals=1)
    assert list(table.frame.columns) == ["a", "a (2)", "b"]


def test_wide_matrices_list_each_rows_largest_cells_with_a_note() -> None:
    width = MAX_TABLE_COLUMNS + 4
    z = np.zeros((2, width))
    z[0, 7], z[0, 3], z[1, 19] = 0.9, 0.5, -0.1
    z[1, :] -= 1.0
    z[1, 19] = 2.0
    cols = [f"k{j}" for j in range(width)]
    table = matrix_table(z, ["q0", "q1"], cols, title="W", decimals=2)
    assert table.frame.loc["q0", "largest 1"] == "k7: 0.90"
    assert table.frame.loc["q0", "largest 2"] == "k3: 0.50"
    assert table.frame.loc["q1", "largest 1"] == "k19: 2.00"
    assert table.frame.shape == (2, 5)
    assert "20 columns" in table.note and "5 largest" in table.note


def test_a_grid_gives_one_table_per_panel_up_to_the_cap_and_says_how_many_were_left() -> None:
    stack = np.stack([WEIGHTS] * (MAX_TABLES + 2))
    titles = [f"head {h + 1}" for h in range(len(stack))]
    figure = heatmap_grid(stack, TOKENS, TOKENS, titles=titles, title="grid")
    tables = figure_tables(figure)
    assert [t.title for t in tables] == titles[:MAX_TABLES]
    assert tables[-1].note == "2 more panels are not tabled here."


def test_a_figure_without_heatmaps_has_no_table() -> None:
    import plotly.graph_objects as go

    assert figure_tables(go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))) == []


def test_a_figure_whose_arrays_plotly_stored_as_base64_still_reads_as_its_numbers() -> None:
    figure = heatmap(WEIGHTS, TOKENS, TOKENS, title="W")
    encoded = WEIGHTS.astype("<f4")
    figure.data[0].z = {
        "dtype": "f4",
        "bdata": base64.b64encode(encoded.tobytes()).decode(),
        "shape": "3, 3",
    }
    (table,) = figure_tables(figure)
    assert table.frame.loc["cat", "cat"] == "0.75"
    assert "'the' → 'the' 1.00" in describe_figure(figure)
