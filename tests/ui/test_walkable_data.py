"""What the walkable matrix is sent and says: labels, values, the summary, each announcement."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from attention_core.boundary.limits import MAX_TOKENS
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, PRESENTATION, FigureStyle
from ui.shared.walkable_data import (
    SCALE_STOPS,
    announcement,
    figure_panels,
    read_sent,
    row_rank,
    selecting,
    sent,
    summary,
)

WEIGHTS = np.array(
    [
        [0.58, 0.42, 0.0],
        [0.25, 0.35, 0.40],
        [0.10, 0.20, 0.70],
    ]
)
CAUSAL = np.tril(np.ones((3, 3), dtype=bool))
TOKENS = ["the", "animal", "it"]


def matrix_data(
    matrix: np.ndarray,
    rows: list[str],
    cols: list[str],
    *,
    title: str,
    kind: str = "weights",
    mask: np.ndarray | None = None,
    style: FigureStyle = NORMAL,
    selected: tuple[int, int] | None = None,
) -> dict:
    """What the browser gets for ``matrix`` drawn as the app draws it: a heatmap, walked."""
    figure = heatmap(matrix, rows, cols, title=title, kind=kind, mask=mask, style=style)
    (panel,) = figure_panels(figure)
    return selecting(panel, selected)


def sent_values(data: dict) -> np.ndarray:
    """The matrix as the browser decodes it: base64 little-endian float32, row by row."""
    flat = np.frombuffer(base64.b64decode(data["values"]), dtype="<f4")
    return flat.reshape(len(data["rows"]), len(data["cols"]))


def test_the_browser_gets_the_labels_as_text_and_the_values_as_float32_with_masked_nan() -> None:
    data = matrix_data(WEIGHTS, TOKENS, TOKENS, title="Weights · head 1", mask=CAUSAL)
    assert data["rows"] == data["cols"] == ["the", "animal", "it"]
    values = sent_values(data)
    assert values[0, 0] == np.float32(0.58) and values[2, 2] == np.float32(0.70)
    assert np.isnan(values[0, 1]) and np.isnan(values[0, 2]) and np.isnan(values[1, 2])
    assert (data["row_title"], data["col_title"], data["value_name"]) == ("query", "key", "weight")
    assert (data["zmin"], data["zmax"]) == (0.0, 1.0)
    assert len(data["scale"]) == SCALE_STOPS and data["scale"][0][0] == 0.0
    assert data["selected"] is None


def test_markup_tokens_are_sent_unchanged_for_the_browser_to_write_as_text() -> None:
    tokens = ["<b>bold</b>", "<img src=x onerror=alert(1)>", "*star*"]
    data = matrix_data(WEIGHTS, tokens, tokens, title="Weights")
    assert data["rows"] == tokens


def test_scores_get_a_scale_centred_on_zero() -> None:
    scores = np.array([[2.0, -3.0], [1.0, 0.5]])
    data = matrix_data(scores, ["a", "b"], ["a", "b"], title="Scores", kind="scores")
    assert (data["zmin"], data["zmax"]) == (-3.0, 3.0)


def test_presentation_mode_sends_its_own_palette_decimals_and_cell_size() -> None:
    normal = matrix_data(WEIGHTS, TOKENS, TOKENS, title="W", style=NORMAL)
    shown = matrix_data(WEIGHTS, TOKENS, TOKENS, title="W", style=PRESENTATION)
    assert (shown["decimals"], shown["cell_px"]) == (2, 40)
    assert shown["scale"] != normal["scale"]  # cividis, not viridis
    assert shown["id"] != normal["id"]


def test_the_matrix_id_does_not_change_with_the_selection() -> None:
    first = matrix_data(WEIGHTS, TOKENS, TOKENS, title="W")
    chosen = matrix_data(WEIGHTS, TOKENS, TOKENS, title="W", selected=(2, 1))
    assert chosen["id"] == first["id"] and chosen["selected"] == [2, 1]


def test_a_cell_announces_its_tokens_value_and_place_in_its_row() -> None:
    z = np.array(WEIGHTS, dtype=np.float32)
    assert announcement(z, TOKENS, TOKENS, 2, 2) == (
        "query 'it', key 'it': weight 0.7000, the largest in its row"
    )
    assert announcement(z, TOKENS, TOKENS, 2, 0) == (
        "query 'it', key 'the': weight 0.1000, the smallest in its row"
    )
    assert announcement(z, TOKENS, TOKENS, 1, 1, decimals=2) == (
        "query 'animal', key 'animal': weight 0.35, number 2 of 3 in its row"
    )


def test_a_masked_cell_reads_masked_and_is_left_out_of_its_row_rank() -> None:
    z = np.array(WEIGHTS, dtype=np.float32)
    z[~CAUSAL] = np.nan
    assert announcement(z, TOKENS, TOKENS, 0, 2) == "query 'the', key 'it': masked"
    assert announcement(z, TOKENS, TOKENS, 1, 0) == (
        "query 'animal', key 'the': weight 0.2500, the smallest in its row"
    )
    assert row_rank(z[0], 0) == ""  # a row with one unmasked cell has no rank


def test_a_negative_score_is_written_with_a_true_minus() -> None:
    z = np.array([[-1.5, 2.0]], dtype=np.float32)
    said = announcement(z, ["a"], ["x", "y"], 0, 0, value_name="score", decimals=2)
    assert said == "query 'a', key 'x': score −1.50, the smallest in its row"


def test_the_summary_gives_size_range_largest_cell_and_masked_count() -> None:
    z = np.array(WEIGHTS, dtype=np.float32)
    z[~CAUSAL] = np.nan
    assert summary(z, TOKENS, TOKENS, title="Weights · head 1", decimals=2) == (
        "Weights · head 1: 3 query rows by 3 key columns, values from 0.10 to 0.70; "
        "the largest at query 'it', key 'it'; 3 cells masked."
    )
    none = np.full((2, 2), np.nan, dtype=np.float32)
    assert summary(none, ["a", "b"], ["a", "b"], title="M") == (
        "M: 2 query rows by 2 key columns, every cell masked."
    )


def test_the_longest_sentence_sends_every_cell() -> None:
    tokens = [f"w{i}" for i in range(MAX_TOKENS)]
    matrix = np.random.default_rng(0).random((MAX_TOKENS, MAX_TOKENS))
    data = matrix_data(matrix, tokens, tokens, title="Weights")
    values = sent_values(data)
    assert values.shape == (MAX_TOKENS, MAX_TOKENS)
    assert values[-1, -1] == pytest.approx(matrix[-1, -1], rel=1e-6)
    assert len(data["values"]) == 4 * math.ceil(MAX_TOKENS * MAX_TOKENS * 4 / 3)  # base64


def test_labels_must_match_the_matrix() -> None:
    with pytest.raises(ValueError, match="labels 2x3"):
        matrix_data(WEIGHTS, ["a", "b"], TOKENS, title="W")


def test_a_grid_sends_each_head_on_the_grids_one_colour_scale() -> None:
    stack = np.stack([WEIGHTS * 0.5, WEIGHTS])  # (2, 3, 3)
    figure = heatmap_grid(stack, TOKENS, TOKENS, titles=["head 1", "head 2"], title="Weights")
    panels = figure_panels(figure)
    assert [panel["title"] for panel in panels] == ["Weights, head 1", "Weights, head 2"]
    np.testing.assert_array_equal(sent_values(panels[1]), WEIGHTS.astype(np.float32))
    assert {(panel["zmin"], panel["zmax"]) for panel in panels} == {(0.0, 1.0)}
    assert panels[0]["id"] != panels[1]["id"]


def test_a_figure_that_is_not_a_heatmap_is_not_walked() -> None:
    assert figure_panels(go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))) == ()


def test_a_grid_of_one_head_still_names_its_head() -> None:
    figure = heatmap_grid(WEIGHTS[None], TOKENS, TOKENS, titles=["head 1"], title="Weights")
    (panel,) = figure_panels(figure)
    assert panel["title"] == "Weights, head 1"


@settings(max_examples=40, deadline=None)
@given(
    labels=hs.lists(hs.text(min_size=1, max_size=8), min_size=1, max_size=4),
    alt=hs.text(max_size=40),
    pick=hs.none() | hs.tuples(hs.integers(0, 3), hs.integers(0, 3)),
)
def test_the_bytes_sent_are_the_selected_data_with_its_text_alternative(
    labels: list[str], alt: str, pick: tuple[int, int] | None
) -> None:
    """Labels and alternatives are user text (quotes, backslashes, any script): the bytes
    sent read back to exactly the data with this run's cell and ``alt``, on the first run
    and on every later one, which reuses the part written once."""
    n = len(labels)
    chosen = None if pick is None else (pick[0] % n, pick[1] % n)
    (panel,) = figure_panels(heatmap(np.eye(n) * 0.5, labels, labels, title="weights"))
    expected = selecting(panel, chosen) | {"alt": alt}
    first = sent(panel, chosen, alt)
    assert json.loads(first.decode("utf-8")) == expected == read_sent(first)
    assert panel.json_head is not None  # written once, kept with the shared panel
    assert json.loads(sent(panel, None, "")) == selecting(panel, None) | {"alt": ""}
    assert sent(dict(panel), chosen, alt) == first  # a plain dict is written each time
