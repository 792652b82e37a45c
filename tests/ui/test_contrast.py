"""Numbers drawn on heatmap cells reach WCAG AA contrast (4.5:1) against their own cell."""

from __future__ import annotations

import numpy as np
import pytest
from plotly.colors import get_colorscale, hex_to_rgb, unlabel_rgb

from ui.figures.contrast import (
    DARK_TEXT,
    LIGHT_TEXT,
    cell_colours,
    contrast_ratio,
    relative_luminance,
    text_colour_on,
)
from ui.figures.heatmap import heatmap
from ui.figures.style import NORMAL, PRESENTATION

BLACK, WHITE = (0, 0, 0), (255, 255, 255)


def test_contrast_ratio_matches_the_wcag_reference_values() -> None:
    assert contrast_ratio(BLACK, WHITE) == pytest.approx(21.0)
    assert contrast_ratio(WHITE, WHITE) == pytest.approx(1.0)
    # WCAG's own examples: #777777 on white just fails AA, #767676 just passes.
    assert contrast_ratio((0x77,) * 3, WHITE) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio((0x76,) * 3, WHITE) == pytest.approx(4.54, abs=0.01)
    assert relative_luminance((255, 0, 0)) == pytest.approx(0.2126)


def test_the_better_of_black_and_white_always_reaches_aa() -> None:
    greys = [(v, v, v) for v in range(256)]
    worst = min(
        contrast_ratio((0, 0, 0) if text_colour_on(g) == DARK_TEXT else (255, 255, 255), g)
        for g in greys
    )
    assert worst >= 4.5
    assert text_colour_on((68, 1, 84)) == LIGHT_TEXT  # viridis at 0: dark purple
    assert text_colour_on((253, 231, 37)) == DARK_TEXT  # viridis at 1: yellow


def test_cell_colours_sample_the_scale_at_its_ends_and_middle() -> None:
    z = np.array([[0.0, 1.0, np.nan], [-5.0, 0.5, 9.0]])
    fills = cell_colours(z, "Viridis", 0.0, 1.0)
    scale = get_colorscale("Viridis")
    assert fills[0] == tuple(float(c) for c in hex_to_rgb(scale[0][1]))
    assert fills[1] == tuple(float(c) for c in hex_to_rgb(scale[-1][1]))
    assert fills[2] is None
    assert fills[3] == fills[0] and fills[5] == fills[1]  # clipped as plotly draws them


def _fill(value: float, scale: str, zmin: float, zmax: float) -> tuple[float, ...]:
    """Reference: the cell's colour by linear interpolation of the scale's stops, per channel."""
    stops = get_colorscale(scale)
    positions = [float(p) for p, _ in stops]
    channels = [unlabel_rgb(c) if c.startswith("rgb") else hex_to_rgb(c) for _, c in stops]
    t = min(max((value - zmin) / (zmax - zmin), 0.0), 1.0)
    return tuple(np.interp(t, positions, [c[k] for c in channels]) for k in range(3))


def _cases():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(10, 10)) * 3
    weights = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    weights[:, 0] = np.linspace(0, 1, 10)  # every part of the scale
    scores = rng.normal(size=(12, 12)) * 4
    values = np.linspace(-1, 1, 8 * 8).reshape(8, 8)
    for style in (NORMAL, PRESENTATION):
        yield style, weights, "weights"
        yield style, scores, "scores"
        yield style, values, "values"


@pytest.mark.parametrize(("style", "matrix", "kind"), list(_cases()))
def test_every_number_on_a_cell_reaches_four_and_a_half_to_one(style, matrix, kind) -> None:
    labels_r = [f"r{i}" for i in range(matrix.shape[0])]
    labels_c = [f"c{j}" for j in range(matrix.shape[1])]
    mask = np.tri(*matrix.shape, dtype=bool)
    figure = heatmap(matrix, labels_r, labels_c, title="M", kind=kind, mask=mask, style=style)
    cells, numbers = figure.data[0], figure.data[1]
    assert numbers.name == "cell numbers"
    row_of, col_of = {r: i for i, r in enumerate(labels_r)}, {c: j for j, c in enumerate(labels_c)}
    checked = 0
    for row, col, colour in zip(numbers.y, numbers.x, numbers.textfont.color, strict=True):
        value = float(cells.z[row_of[row], col_of[col]])
        fill = _fill(value, kind_scale(kind, style), cells.zmin, cells.zmax)
        assert contrast_ratio(hex_to_rgb(colour), fill) >= 4.5, (row, col, value, colour)
        checked += 1
    assert checked == int(mask.sum())  # every allowed cell has its number, no masked one
    masked = next(trace for trace in figure.data if trace.name == "masked")
    grey = hex_to_rgb(style.masked_colour)
    assert contrast_ratio(hex_to_rgb(masked.textfont.color), grey) >= 4.5


def kind_scale(kind: str, style) -> str:
    return style.weights_scale if kind == "weights" else style.scores_scale


def test_head_view_heads_differ_by_line_style_not_only_colour() -> None:
    from ui.figures.head_view import head_view

    weights = np.full((3, 2, 2), 0.5)
    figure = head_view(weights, ["a", "b"], ["a", "b"], heads=[0, 1, 2])
    dash_of = {t.name: t.line.dash for t in figure.data if t.name and t.name.startswith("head")}
    assert dash_of == {"head 1": "solid", "head 2": "dash", "head 3": "dot"}


@pytest.mark.parametrize("style", [NORMAL, PRESENTATION])
def test_every_head_colour_reaches_3_to_1_against_the_page_as_lines_must(style) -> None:
    """WCAG 1.4.11: a head's line or marker is a graphical object a student must see."""
    for colour in style.head_palette:
        assert contrast_ratio(hex_to_rgb(colour), WHITE) >= 3.0, colour
    assert len(set(style.head_palette)) == len(style.head_palette)
