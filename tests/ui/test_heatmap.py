"""The one heatmap builder (ui.figures.heatmap), tested directly on small matrices."""

from __future__ import annotations

import numpy as np
import pytest

from ui.figures.describe import describe_figure
from ui.figures.heatmap import MAX_CELLS_WITH_TEXT, heatmap, heatmap_grid
from ui.figures.matrix_look import display_matrix
from ui.figures.style import NORMAL, PRESENTATION
from ui.figures.tables import figure_tables

ROWS, COLS = ["the", "cat", "sat"], ["the", "cat", "sat"]
WEIGHTS = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])
CAUSAL = np.tri(3, dtype=bool)


def main_trace(figure) -> dict:
    return figure.data[0]


def shown_numbers(figure) -> dict[tuple[str, str], str]:
    """The text written in each allowed cell, by (row, column), however the figure writes it.

    Reads a ``%{z:.Nf}`` template on the data trace, per-cell ``text`` on any trace but the
    mask overlay, and annotations, so the test holds whichever way the cells get their text.
    """
    shown: dict[tuple[str, str], str] = {}
    for trace in figure.data:
        if trace.name == "masked":
            continue
        template = getattr(trace, "texttemplate", None) or ""
        z = getattr(trace, "z", None)
        if z is not None and template.startswith("%{z:."):
            decimals = int(template.removeprefix("%{z:.").removesuffix("f}"))
            for i, row in enumerate(trace.y):
                for j, col in enumerate(trace.x):
                    if np.isfinite(z[i][j]):
                        shown[(row, col)] = f"{z[i][j]:.{decimals}f}"
        elif getattr(trace, "text", None) is not None and z is not None:
            for i, row in enumerate(trace.y):
                for j, col in enumerate(trace.x):
                    if trace.text[i][j]:
                        shown[(row, col)] = trace.text[i][j]
        elif getattr(trace, "text", None) is not None:  # a text scatter over the cells
            shown.update(
                ((y, x), text) for x, y, text in zip(trace.x, trace.y, trace.text, strict=True)
            )
    for note in figure.layout.annotations or ():
        shown[(note.y, note.x)] = note.text
    return shown


def test_values_are_sent_as_float32_with_their_labels() -> None:
    figure = heatmap(WEIGHTS, ROWS, COLS, title="A")
    trace = main_trace(figure)
    assert trace.z.dtype == np.float32
    np.testing.assert_array_equal(trace.z, WEIGHTS.astype(np.float32))
    assert list(trace.x) == COLS and list(trace.y) == ROWS
    assert figure.layout.title.text == "A"


def test_masked_cells_are_empty_in_the_data_and_labelled_zero_on_weights() -> None:
    figure = heatmap(WEIGHTS, ROWS, COLS, title="A", mask=CAUSAL)
    z = main_trace(figure).z
    assert np.isnan(z[~CAUSAL]).all() and np.isfinite(z[CAUSAL]).all()
    overlay = next(trace for trace in figure.data if trace.name == "masked")
    assert np.array(overlay.text)[~CAUSAL].tolist() == ["0", "0", "0"]
    assert np.array(overlay.text)[CAUSAL].tolist() == [""] * 6


def test_masked_scores_are_labelled_minus_infinity() -> None:
    scores = np.where(CAUSAL, WEIGHTS * 4 - 1, -np.inf)
    figure = heatmap(scores, ROWS, COLS, title="S", kind="scores", mask=CAUSAL)
    overlay = next(trace for trace in figure.data if trace.name == "masked")
    assert set(np.array(overlay.text)[~CAUSAL]) == {"−∞"}


def test_weights_use_a_fixed_zero_to_one_scale_and_scores_a_symmetric_one() -> None:
    weights = main_trace(heatmap(WEIGHTS, ROWS, COLS, title="A"))
    assert (weights.zmin, weights.zmax) == (0.0, 1.0)
    scores = main_trace(heatmap(WEIGHTS * 6 - 2.5, ROWS, COLS, title="S", kind="scores"))
    assert (scores.zmin, scores.zmax, scores.zmid) == (-3.5, 3.5, 0.0)


@pytest.mark.parametrize("style", [NORMAL, PRESENTATION])
def test_small_matrices_show_their_numbers_and_large_ones_do_not(style) -> None:
    small = heatmap(WEIGHTS, ROWS, COLS, title="A", style=style, mask=CAUSAL)
    assert shown_numbers(small) == {
        ("the", "the"): "1.00",
        ("cat", "the"): "0.25",
        ("cat", "cat"): "0.75",
        ("sat", "the"): "0.20",
        ("sat", "cat"): "0.30",
        ("sat", "sat"): "0.50",
    }
    side = int(np.sqrt(MAX_CELLS_WITH_TEXT)) + 1
    labels = [f"t{i}" for i in range(side)]
    large = heatmap(np.eye(side), labels, labels, title="B", style=style)
    assert shown_numbers(large) == {}


def test_labels_that_do_not_fit_the_matrix_are_refused() -> None:
    with pytest.raises(ValueError, match="do not match"):
        heatmap(WEIGHTS, ROWS[:2], COLS, title="A")


def test_display_matrix_turns_infinities_and_masked_cells_into_gaps() -> None:
    z = display_matrix(
        np.array([[1.0, np.inf], [-np.inf, 2.0]]), np.array([[True, True], [True, False]])
    )
    assert z.dtype == np.float32
    assert z[0, 0] == 1.0 and np.isnan(z[0, 1]) and np.isnan(z[1, 0]) and np.isnan(z[1, 1])


def test_labels_that_look_like_markup_are_drawn_and_read_back_as_typed() -> None:
    """Plotly reads tags and entities in labels: a token "<b>x</b>" would turn bold."""
    labels = ["<b>x</b>", "a&amp;b"]
    figure = heatmap(np.eye(2), labels, labels, title="weights")
    trace = figure.to_plotly_json()["data"][0]
    assert list(trace["x"]) == ["&lt;b&gt;x&lt;/b&gt;", "a&amp;amp;b"]
    table = figure_tables(figure)[0].frame
    assert list(table.columns) == labels and list(table.index) == labels
    assert "'<b>x</b>' → '<b>x</b>' 1.00, 'a&amp;b'" in describe_figure(figure)


@pytest.mark.parametrize(("panels", "columns"), [(40, 1), (40, 40)])
def test_a_grid_of_any_number_of_rows_or_columns_is_drawn(panels: int, columns: int) -> None:
    stack = np.full((panels, 2, 2), 0.5)
    titles = [f"p{i}" for i in range(panels)]
    figure = heatmap_grid(stack, ["a", "b"], ["a", "b"], titles=titles, title="t", columns=columns)
    assert len(figure.data) == panels
    assert len([a.text for a in figure.layout.annotations if a.text]) == panels


def test_a_grid_leaves_the_cells_no_panel_takes_empty() -> None:
    stack = np.full((3, 2, 2), 0.5)
    figure = heatmap_grid(
        stack,
        ["a", "b"],
        ["a", "b"],
        titles=["A", "B", "C"],
        title="t",
        columns=2,
        places=[0, 2, 3],
    )
    assert [(t.xaxis, t.yaxis) for t in figure.data] == [("x", "y"), ("x3", "y3"), ("x4", "y4")]
    assert [a.text for a in figure.layout.annotations if a.text] == ["A", "B", "C"]
    assert [table.title for table in figure_tables(figure)] == ["A", "B", "C"]
