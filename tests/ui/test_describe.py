"""Text alternatives are written from the chart's numbers (ui.figures.describe)."""

from __future__ import annotations

import numpy as np

import attention_core as ac
from ui.figures.describe import (
    describe_figure,
    describe_head_view,
    describe_line,
    describe_matrix,
    strongest_cells,
)
from ui.figures.heatmap import heatmap, heatmap_grid

TOKENS = ["it", "was", "tired"]
WEIGHTS = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0], [0.9, 0.05, 0.05]])


def test_strongest_cells_are_the_largest_finite_values_with_their_labels() -> None:
    assert strongest_cells(WEIGHTS, TOKENS, TOKENS, 2) == [
        ("tired", "it", 0.9),
        ("it", "tired", 0.7),
    ]
    masked = np.where(np.tri(3, dtype=bool), WEIGHTS, np.nan)
    assert strongest_cells(masked, TOKENS, TOKENS, 9)[-1] == ("tired", "tired", 0.05)
    assert len(strongest_cells(masked, TOKENS, TOKENS, 9)) == 6  # only the 6 allowed cells


def test_weights_are_described_by_their_strongest_links() -> None:
    text = describe_matrix(WEIGHTS, TOKENS, TOKENS, title="Weights", weights=True)
    assert text == (
        "Weights: 3 rows × 3 columns. Strongest links: "
        "'tired' → 'it' 0.90, 'it' → 'tired' 0.70, 'was' → 'it' 0.50."
    )


def test_other_matrices_are_described_by_their_range_and_extremes() -> None:
    scores = np.array([[1.5, -2.0], [0.0, 3.25]])
    text = describe_matrix(scores, ["a", "b"], ["x", "y"], title="S", weights=False)
    assert text == (
        "S: 2 rows × 2 columns. Values from -2.00 to 3.25; largest at 'b', 'y'; "
        "smallest at 'a', 'y'."
    )


def test_masked_cells_are_counted_and_a_fully_masked_matrix_says_so() -> None:
    masked = np.where(np.tri(3, dtype=bool), WEIGHTS, -np.inf)
    assert ", 3 cells masked." in describe_matrix(masked, TOKENS, TOKENS, title="W", weights=True)
    empty = np.full((2, 2), np.nan)
    assert describe_matrix(empty, "ab", "xy", title="W", weights=True).endswith(
        "every cell masked."
    )


def test_a_line_is_described_by_its_range_and_peak() -> None:
    assert describe_line("loss", [0, 10, 20], [2.0, 0.5, 0.25]) == (
        "loss: 3 points from 0.25 to 2.00, highest at 0"
    )
    days = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[ns]")
    assert describe_line("sales", list(days), [1.0, 3.0]).endswith("highest at 2024-01-02")


def test_head_view_names_each_heads_strongest_keys_for_the_query() -> None:
    stack = np.stack([WEIGHTS, WEIGHTS[::-1]])
    text = describe_head_view(stack, [0, 1], 0, TOKENS, TOKENS)
    assert text == (
        "Head view: lines from query 'it' to the keys, thicker for larger weights. "
        "Head 1: 'it' → 'tired' 0.70, 'it' → 'was' 0.20, 'it' → 'it' 0.10. "
        "Head 2: 'it' → 'it' 0.90, 'it' → 'was' 0.05, 'it' → 'tired' 0.05."
    )


def test_a_figure_is_described_from_the_numbers_it_draws() -> None:
    figure = heatmap(WEIGHTS, TOKENS, TOKENS, title="A · head 1", mask=None)
    assert describe_figure(figure, "Causal mask.") == (
        "Causal mask. A · head 1: 3 query tokens × 3 key tokens. Strongest links: "
        "'tired' → 'it' 0.90, 'it' → 'tired' 0.70, 'was' → 'it' 0.50. "
        "Each row sums to 1 over the keys it may see."
    )
    grid = heatmap_grid(
        np.stack([WEIGHTS, WEIGHTS.T]), TOKENS, TOKENS, titles=["h1", "h2"], title="All"
    )
    text = describe_figure(grid)
    assert text.startswith("All. h1: 3 rows × 3 columns. Strongest links: 'tired' → 'it' 0.90")
    assert "h2: 3 rows × 3 columns. Strongest links: 'it' → 'tired' 0.90" in text


def test_user_text_in_a_description_is_plain_text() -> None:
    tokens = ["<b>", "&amp;", "x"]
    text = describe_matrix(WEIGHTS, tokens, tokens, title="W", weights=True)
    assert "'x' → '<b>' 0.90" in text  # quoted as typed; Streamlit sets it as an attribute


def test_the_core_strongest_link_is_what_the_weights_chart_says() -> None:
    tokens = ac.tokenize("The animal didn't cross the street because it was too tired.")
    run = ac.run_text_attention(tokens.tokens, ac.AttentionConfig(mask="causal"))
    weights = run.trace.weights[0]
    row, col = np.unravel_index(np.argmax(weights), weights.shape)
    figure = heatmap(weights, tokens.labels, tokens.labels, title="W", mask=run.mask)
    expected = f"'{tokens.labels[row]}' → '{tokens.labels[col]}' {weights[row, col]:.2f}"
    assert f"Strongest links: {expected}" in describe_figure(figure)


def test_a_figure_that_went_through_a_cache_is_described_the_same() -> None:
    import pickle

    figure = heatmap(WEIGHTS, TOKENS, TOKENS, title="A · head 1")
    assert describe_figure(pickle.loads(pickle.dumps(figure))) == describe_figure(figure)
