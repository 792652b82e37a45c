"""The positional-encoding page's shared numbers and charts: one object per view for every
session, never changed by drawing, the same numbers and downloads as computed afresh."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import plotly.io as pio
import plotly.tools
import pytest
import streamlit as st
from plotly.basedatatypes import BaseFigure
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching import word_order
from tests.plotly_specs import figures, walkable_matrices
from tests.views.expanders import TABLE, expander_keys, open_expanders
from ui.figures import build
from ui.figures.style import NORMAL, PRESENTATION
from ui.figures.tables import trace_array
from ui.positional_encoding import cache
from ui.positional_encoding import figures as pe_figures
from ui.positional_encoding.state import SWAP_D_MODEL, PositionalState
from ui.shared.export import csv_bytes, matrix_frame

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/positional_encoding.py"
SINUSOIDAL = PositionalState(24, 16, "sinusoidal", 10_000.0, NORMAL)
ROTARY = PositionalState(24, 16, "rotary", 500.0, NORMAL)
SENTENCE = ac.tokenize("the dog bit the man")


def drawn_json(figure) -> str:
    """The spec ``st.plotly_chart`` sends for ``figure`` (its own two steps)."""
    as_dict = plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
    return pio.to_json(as_dict, validate=False)


# --- One object per key -------------------------------------------------------


def test_a_view_is_built_once_for_every_caller_and_again_for_other_settings() -> None:
    view = cache.encoding_view(SINUSOIDAL)
    assert cache.encoding_view(PositionalState(24, 16, "sinusoidal", 10_000.0, NORMAL)) is view
    for other in (
        PositionalState(25, 16, "sinusoidal", 10_000.0, NORMAL),
        PositionalState(24, 16, "learned", 10_000.0, NORMAL),
        PositionalState(24, 16, "sinusoidal", 100.0, NORMAL),
        PositionalState(24, 16, "sinusoidal", 10_000.0, PRESENTATION),
    ):
        assert cache.encoding_view(other) is not view
    assert cache.encoding_view(SINUSOIDAL).matrix_chart.figure is view.matrix_chart.figure


def test_a_shared_view_holds_the_core_numbers_read_only() -> None:
    view = cache.encoding_view(ROTARY)
    expected = word_order.position_matrix("rotary", 24, 16, 500.0)
    np.testing.assert_array_equal(view.matrix, expected)
    np.testing.assert_array_equal(view.similarity, expected @ expected.T)
    assert view.offsets is not None and view.rotary_chart is not None
    fresh = word_order.rotary_offset_scores(16, max_offset=23, base=500.0)
    np.testing.assert_array_equal(view.offsets.scores, fresh.scores)
    for array in (view.matrix, view.similarity, view.offsets.scores):
        with pytest.raises(ValueError, match="read-only"):
            array[0, 0] = 1.0
    assert cache.encoding_view(SINUSOIDAL).offsets is None  # rotary only


def test_curves_are_keyed_by_the_chosen_dimensions_in_their_order() -> None:
    chart = cache.curves_chart(SINUSOIDAL, (3, 10))
    assert cache.curves_chart(SINUSOIDAL, (3, 10)) is chart
    assert cache.curves_chart(SINUSOIDAL, (10, 3)) is not chart
    assert cache.curves_chart(SINUSOIDAL, (3,)) is not chart
    names = [trace["name"] for trace in build.plain(chart.figure)[0]]
    assert names == ["dim 3", "dim 10"]


def test_a_swap_is_run_once_for_every_caller_and_its_arrays_are_read_only() -> None:
    panels = cache.swap_panels(cache.Swap(SENTENCE, 1, 4, "sinusoidal"), NORMAL)
    assert (
        cache.swap_panels(
            cache.Swap(ac.tokenize("the dog bit the man"), 1, 4, "sinusoidal"), NORMAL
        )
        is panels
    )
    assert cache.swap_panels(cache.Swap(SENTENCE, 1, 4, "rotary"), NORMAL) is not panels
    assert cache.swap_panels(cache.Swap(SENTENCE, 0, 4, "sinusoidal"), NORMAL) is not panels
    assert list(panels.runs) == ["none", "sinusoidal"]
    for positional, run in panels.runs.items():
        config = ac.AttentionConfig(d_model=SWAP_D_MODEL, n_heads=1, positional=positional)
        fresh = word_order.compare_swapped(SENTENCE.tokens, 1, 4, config)
        np.testing.assert_array_equal(run.realigned_weights, fresh.realigned_weights)
        assert run.weight_difference == fresh.weight_difference
        with pytest.raises(ValueError, match="read-only"):
            run.weights[0, 0, 0] = 1.0


# --- Arrays encoded once -------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda m: pe_figures.encoding_heatmap(m, title="P"),
        lambda m: pe_figures.similarity_heatmap(m @ m.T, title="G", style=PRESENTATION),
        lambda m: pe_figures.dimension_curves(m, [0, 1, 8], title="curves"),
    ],
)
def test_encoded_arrays_draw_the_same_json_and_read_back_the_same_numbers(
    make: Callable,
) -> None:
    matrix = word_order.position_matrix("sinusoidal", 30, 16)
    plain, encoded = make(matrix), build.encode_arrays(make(matrix))
    assert drawn_json(encoded) == drawn_json(plain)
    assert drawn_json(encoded) == drawn_json(encoded)  # drawing leaves it as it was
    # a shared figure is copied once, not on every draw; what it holds is what it sends
    assert isinstance(encoded, build.SentFigure) and encoded.to_dict() is encoded.to_dict()
    assert pio.to_json(BaseFigure.to_dict(encoded), validate=False) == drawn_json(plain)
    for before, after in zip(build.plain(plain)[0], build.plain(encoded)[0], strict=True):
        for name in ("x", "y", "z"):
            if isinstance(before.get(name), np.ndarray):
                assert isinstance(after[name], dict)  # plotly's typed-array form
                np.testing.assert_array_equal(trace_array(after[name]), before[name])


# --- Two sessions, one figure -------------------------------------------------


def open_page(**query_params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in query_params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(PAGE).run()


def test_two_sessions_on_one_view_draw_the_same_specs_and_leave_the_shared_figures_alone() -> None:
    params = {"pe_kind": "rotary", "pe_length": "21", "pe_d_model": "12", "pe_base": "700"}
    first = open_page(**params)
    assert not first.exception
    view = cache.encoding_view(PositionalState(21, 12, "rotary", 700.0, NORMAL))
    swap = cache.swap_panels(cache.Swap(SENTENCE, 1, 4, "rotary"), NORMAL)
    held = [view.matrix_chart, view.similarity_chart, view.rotary_chart, *swap.charts.values()]
    assert view.rotary_chart is not None
    before = [(drawn_json(chart.figure), json.dumps(chart.walk)) for chart in held]
    second = open_page(**params)
    assert not second.exception
    assert figures(second) == figures(first)
    assert len(figures(first)) == 6  # P, curves, P Pᵀ, rotary, two swap grids
    assert [(drawn_json(chart.figure), json.dumps(chart.walk)) for chart in held] == before
    # P and P Pᵀ are drawn as walkable matrices (their plotly figure waits in an expander),
    # the rotary curves and the swap's grids as plotly charts: each as the shared one.
    walkable, plotly = [view.matrix_chart, view.similarity_chart], held[2:]
    sent = {json.dumps(spec, sort_keys=True) for spec in figures(second)}
    assert {json.dumps(json.loads(drawn_json(c.figure)), sort_keys=True) for c in plotly} <= sent
    walked = [spec["walkable"] for spec in walkable_matrices(second)]
    assert walked == [chart.walk[0] for chart in walkable]
    # The shared objects are still the ones the cache hands out.
    assert cache.encoding_view(PositionalState(21, 12, "rotary", 700.0, NORMAL)) is view


# --- Downloads, built on click ------------------------------------------------


def test_every_download_gives_the_bytes_of_the_numbers_computed_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: dict[str, Callable[[], bytes]] = {}
    original = st.download_button

    def recording(label, data, *args, key=None, **kwargs):
        made[key] = data
        return original(label, data, *args, key=key, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    at = open_page(pe_kind="rotary", pe_length="13", pe_d_model="6", pe_base="300")
    assert not at.exception
    matrix = word_order.position_matrix("rotary", 13, 6, 300.0)
    positions = pe_figures.position_labels(13)
    expected_matrix = matrix_frame(matrix, positions, pe_figures.dimension_labels(6))
    assert made["pe_download_matrix"]() == csv_bytes(expected_matrix)
    similarity = matrix_frame(matrix @ matrix.T, positions, positions)
    assert made["pe_download_similarity"]() == csv_bytes(similarity)
    offsets = word_order.rotary_offset_scores(6, max_offset=12, base=300.0)
    rotary = matrix_frame(
        offsets.scores.T, [f"o={o}" for o in offsets.offsets], [f"p={p}" for p in offsets.starts]
    )
    assert made["pe_download_rotary"]() == csv_bytes(rotary)
    with np.load(io.BytesIO(made["pe_download_swap"]())) as archive:
        for positional in ("none", "rotary"):
            config = ac.AttentionConfig(d_model=SWAP_D_MODEL, n_heads=1, positional=positional)
            fresh = word_order.compare_swapped(SENTENCE.tokens, 1, 4, config)
            for part in ("weights", "swapped_weights", "realigned_weights"):
                np.testing.assert_array_equal(
                    archive[f"{positional}_{part}"], getattr(fresh, part)[0]
                )


def test_read_as_a_table_reads_the_numbers_of_the_shared_encoded_figures() -> None:
    at = open_page(pe_length="6", pe_d_model="4")
    at = open_expanders(at, TABLE)
    assert not at.exception
    assert len(expander_keys(at, TABLE)) == 4  # P, P Pᵀ, two swap grids
    matrix = word_order.position_matrix("sinusoidal", 6, 4)
    shown = at.table[0].value
    assert list(shown.index) == pe_figures.position_labels(6)
    np.testing.assert_allclose(
        shown.to_numpy(dtype=float), np.round(matrix.astype(np.float32), 2), atol=1e-6
    )
    again = cache.encoding_view(PositionalState(6, 4, "sinusoidal", 10_000.0, NORMAL))
    assert isinstance(build.plain(again.matrix_chart.figure)[0][0]["z"], dict)  # still encoded
