"""The heatmap builders' figures, frozen: the JSON Streamlit sends must not change.

Figures are built the fast way (ui.figures.build: one construction from plain
dicts) since the capacity work; these specs were written by the builders as
they were before it (many ``update_*`` calls on a ``go.Figure``), so a
difference in any number, label, colour or layout setting fails here.

After an intended change to what a figure shows, rewrite them with
``WRITE_FROZEN_FIGURES=1 python -m pytest tests/ui/test_frozen_figures.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from ui.figures import build
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, PRESENTATION
from ui.pretrained.figures import model_view_figure

FROZEN = Path(__file__).parent / "frozen_figures"


def _labels(n: int, prefix: str = "w") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def _causal(rows: int, cols: int) -> np.ndarray:
    return np.tril(np.ones((rows, cols), dtype=bool))


def _values(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


def _weights(*shape: int, seed: int = 0) -> np.ndarray:
    raw = np.exp(_values(*shape, seed=seed))
    return raw / raw.sum(axis=-1, keepdims=True)


CASES: dict[str, Callable[[], go.Figure]] = {
    "heatmap_small_causal_weights": lambda: heatmap(
        _weights(5, 5),
        _labels(5),
        ["the", "cat", "sat", "on", "mat"],
        title="Weights A · head 1",
        kind="weights",
        mask=_causal(5, 5),
    ),
    "heatmap_small_causal_scores_presenting": lambda: heatmap(
        _values(4, 6),
        _labels(4, "q"),
        _labels(6, "k"),
        title="Masked scores",
        kind="scores",
        mask=_causal(4, 6),
        style=PRESENTATION,
    ),
    "heatmap_large_masked_scores": lambda: heatmap(
        _values(13, 13),
        _labels(13),
        _labels(13),
        title="Scores S = QKᵀ",
        kind="scores",
        mask=_causal(13, 13),
        row_title="query",
        col_title="key",
    ),
    "heatmap_values_no_mask_fixed_height": lambda: heatmap(
        _values(3, 20),
        _labels(3, "t"),
        _labels(20, "d"),
        title="Values V",
        kind="values",
        row_title="query",
        col_title="column",
        height=300,
    ),
    "heatmap_all_zero_values": lambda: heatmap(
        np.zeros((2, 2)),
        ["a", "b"],
        ["c", "d"],
        title="zeros",
        kind="values",
    ),
    "heatmap_all_allowed_mask": lambda: heatmap(
        _weights(3, 3),
        _labels(3),
        _labels(3),
        title="all allowed",
        mask=np.ones((3, 3), bool),
    ),
    "grid_two_heads_causal_weights": lambda: heatmap_grid(
        _weights(2, 13, 13),
        _labels(13),
        _labels(13),
        titles=["head 1", "head 2"],
        title="Weights A · all heads",
        kind="weights",
        mask=_causal(13, 13),
    ),
    "grid_six_heads_scores_presenting": lambda: heatmap_grid(
        _values(6, 20, 20),
        _labels(20),
        _labels(20),
        titles=[f"head {h}" for h in range(1, 7)],
        title="Scores · all heads",
        kind="scores",
        style=PRESENTATION,
    ),
    "grid_one_head_values": lambda: heatmap_grid(
        _values(1, 4, 3),
        _labels(4),
        _labels(3, "c"),
        titles=["head 1"],
        title="one",
        kind="values",
        row_title="query",
        col_title="column",
        style=NORMAL,
        columns=4,
    ),
    # The model view's group of layers 2-3 of 4, 13 heads wrapped onto two rows of 7 each.
    "model_view_wrapped_heads_causal": lambda: model_view_figure(
        SimpleNamespace(labels=tuple(_labels(5))),
        _weights(4, 13, 5, 5),
        NORMAL,
        _causal(5, 5),
        range(1, 3),
    ),
    "grid_eight_heads_two_columns": lambda: heatmap_grid(
        _weights(8, 5, 5),
        _labels(5),
        _labels(5),
        titles=[f"h{h}" for h in range(8)],
        title="eight",
        mask=_causal(5, 5),
        columns=2,
    ),
}


@pytest.fixture(autouse=True)
def _no_template(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's setting (ui.figures: no plotly template). Importing Streamlit's
    plotly element later in a process (as other test modules do) sets its own."""
    monkeypatch.setattr(pio.templates, "default", None)


def _spec(figure: go.Figure) -> dict:
    """What st.plotly_chart sends, parsed (key order is not part of the look)."""
    return json.loads(pio.to_json(figure, validate=False))


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_output_is_frozen(name: str) -> None:
    spec = _spec(CASES[name]())
    path = FROZEN / f"{name}.json"
    if os.environ.get("WRITE_FROZEN_FIGURES"):
        path.write_text(json.dumps(spec, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    assert spec == json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_unchecked_builders_write_what_plotlys_checks_would(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Heatmaps are built without plotly's checks (ui.figures.build); built with them, each
    must pass and give the same JSON (a named colour scale or a bare title string would not)."""
    monkeypatch.setattr(build, "ALWAYS_CHECK", True)
    assert _spec(CASES[name]()) == json.loads((FROZEN / f"{name}.json").read_text())


def test_a_checked_build_refuses_a_value_an_unchecked_one_lets_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = {"type": "heatmap", "z": [[1.0]], "colorscale": "NoSuchScale"}
    assert build.figure([trace], {}, checked=False).data[0].colorscale == "NoSuchScale"
    monkeypatch.setattr(build, "ALWAYS_CHECK", True)
    with pytest.raises(ValueError, match="colorscale"):
        build.figure([trace], {}, checked=False)


def test_a_misspelt_property_fails_even_unchecked() -> None:
    misspelt = {"type": "heatmap", "z": [[1.0]], "colour_scale": "Viridis"}
    with pytest.raises(ValueError, match="Invalid property"):
        build.figure([misspelt], {}, checked=False)


def test_a_grid_layout_cached_while_a_template_was_default_carries_no_template() -> None:
    """Streamlit sets its own plotly template when its chart element loads; the grid
    layouts are cached, so one made then must not bring that template to later figures."""
    titles = ["only while a template is set"]
    pio.templates.default = "plotly"
    try:
        heatmap_grid(np.ones((1, 2, 2)), ["a", "b"], ["a", "b"], titles=titles, title="t")
    finally:
        pio.templates.default = None
    again = heatmap_grid(np.ones((1, 2, 2)), ["a", "b"], ["a", "b"], titles=titles, title="t")
    assert "template" not in _spec(again)["layout"]
