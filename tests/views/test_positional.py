"""The positional-encoding page (through app.py, with AppTest); its core: tests/core/teaching."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching import word_order
from tests.plotly_specs import decode, figure_titled, figures, walkable_matrices

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/positional_encoding.py"
KINDS = ("sinusoidal", "learned", "rotary", "none")


def open_page(**query_params: str | list[str]) -> AppTest:
    """Run app.py with ``query_params`` in the URL, then the positional-encoding page."""
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in query_params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(PAGE).run()


def metric_values(at: AppTest) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for metric in at.metric:
        values.setdefault(metric.label, []).append(metric.value)
    return values


# --- The page ----------------------------------------------------------------


def test_default_view_shows_matrix_curves_similarity_and_swap_without_errors() -> None:
    at = open_page()
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Positional encodings"
    assert at.radio(key="pe_kind").value == "sinusoidal"
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert "Selected dimensions" in titles
    # P and P Pᵀ are walkable matrices, in page order
    walked = [f["layout"]["title"]["text"] for f in walkable_matrices(at)]
    assert walked == [
        "sinusoidal encoding (64 positions × 64 dimensions)",
        "How alike two positions are: P Pᵀ",
    ]
    assert len(at.latex) >= 4  # a formula beside every view
    keys = {button.key for button in at.download_button}
    assert {"pe_download_matrix", "pe_download_similarity", "pe_download_swap"} <= keys


@pytest.mark.parametrize("kind", KINDS)
def test_every_encoding_kind_renders_without_exception(kind: str) -> None:
    at = open_page(pe_kind=kind)
    assert not at.exception
    assert not at.error
    assert at.radio(key="pe_kind").value == kind
    assert figure_titled(at, f"{kind} encoding")


def test_plotted_matrix_is_the_core_sinusoidal_encoding() -> None:
    at = open_page(pe_length="40", pe_d_model="10", pe_base="100")
    plotted = decode(figure_titled(at, "sinusoidal encoding")["data"][0]["z"])
    expected = ac.sinusoidal_encoding(40, 10, base=100.0).astype(np.float32)
    np.testing.assert_array_equal(plotted, expected)


def test_plotted_similarity_is_p_times_p_transposed() -> None:
    at = open_page(pe_length="20", pe_d_model="8")
    plotted = decode(figure_titled(at, "How alike")["data"][0]["z"])
    encoding = ac.sinusoidal_encoding(20, 8)
    np.testing.assert_allclose(plotted, encoding @ encoding.T, rtol=1e-6, atol=1e-6)


def test_plotted_curves_are_the_chosen_columns_of_the_matrix() -> None:
    at = open_page(pe_length="30", pe_d_model="16", pe_dims=["3", "10"])
    assert at.multiselect(key="pe_dims").value == [3, 10]
    curves = figure_titled(at, "Selected dimensions")["data"]
    assert [curve["name"] for curve in curves] == ["dim 3", "dim 10"]
    encoding = ac.sinusoidal_encoding(30, 16)
    for curve, dim in zip(curves, (3, 10), strict=True):
        np.testing.assert_allclose(decode(curve["y"]), encoding[:, dim], atol=1e-6)


def test_query_params_reproduce_a_rotary_view() -> None:
    at = open_page(pe_kind="rotary", pe_length="40", pe_d_model="10", pe_base="500")
    assert not at.exception
    assert at.radio(key="pe_kind").value == "rotary"
    assert at.slider(key="pe_length").value == 40
    assert at.slider(key="pe_d_model").value == 10
    assert at.number_input(key="pe_base").value == 500.0
    plotted = decode(
        figure_titled(at, "rotary encoding (40 positions × 10 dimensions)")["data"][0]["z"]
    )
    np.testing.assert_allclose(plotted, word_order.rotary_reference(40, 10, 500.0), atol=1e-6)


def test_rotary_curves_coincide_for_every_query_position() -> None:
    at = open_page(pe_kind="rotary", pe_length="50", pe_d_model="32")
    curves = figure_titled(at, "Score of one query and one key")["data"]
    assert len(curves) == len(word_order.ROTARY_START_POSITIONS)
    first = decode(curves[0]["y"])
    assert first.shape == (50,)
    assert np.ptp(first) > 0.1  # the score does change with the offset ...
    for curve in curves[1:]:
        np.testing.assert_allclose(decode(curve["y"]), first, rtol=0, atol=1e-9)  # ... only
    assert metric_values(at)["Largest gap between the curves"] == ["≈ 0"]


def test_swap_changes_nothing_without_encoding_and_changes_weights_with_it() -> None:
    at = open_page()  # "the dog bit the man": swap "dog" (1) and "man" (4)
    values = metric_values(at)
    without_weights, with_weights = values["max |weight difference|"]
    without_output, with_output = values["max |output difference|"]
    assert without_weights == "≈ 0"
    assert without_output == "≈ 0"
    assert float(with_weights) > 0.01
    assert float(with_output) > 0.01
    table = at.dataframe[-1].value
    assert list(table["original"]) == ["the", "dog", "bit", "the", "man"]
    assert list(table["swapped"]) == ["the", "man", "bit", "the", "dog"]


def test_swap_follows_the_sentence_and_positions_in_the_url() -> None:
    at = open_page(pe_sentence="one two three", pe_swap_first="0", pe_swap_second="2")
    assert not at.exception
    assert list(at.dataframe[-1].value["swapped"]) == ["three", "two", "one"]


def test_one_word_sentence_warns_instead_of_failing() -> None:
    at = open_page()
    at.text_input(key="pe_sentence").set_value("hello").run()
    assert not at.exception
    assert any("at least two words" in warning.value for warning in at.warning)


def test_sentence_without_words_shows_an_error_not_an_exception() -> None:
    at = open_page()
    at.text_input(key="pe_sentence").set_value("   ").run()
    assert not at.exception
    assert at.error


def test_swapping_a_word_with_itself_warns() -> None:
    at = open_page(pe_swap_first="2", pe_swap_second="2")
    assert not at.exception
    assert any("two different positions" in warning.value for warning in at.warning)


def test_presentation_mode_enlarges_the_figure_fonts() -> None:
    """P is a walkable matrix: its numbers' font (and cells) grow for the room."""
    normal = figure_titled(open_page(), "sinusoidal encoding")["walkable"]
    presenting = figure_titled(open_page(present="1"), "sinusoidal encoding")["walkable"]
    assert presenting["font_px"] > normal["font_px"]
    assert presenting["cell_px"] > normal["cell_px"]


@pytest.mark.parametrize(
    "params",
    [
        {"pe_length": "-5"},
        {"pe_length": "100000", "pe_d_model": "0"},
        {"pe_kind": "../../etc"},
        {"pe_kind": "<script>alert(1)</script>"},
        {"pe_base": "-1"},
        {"pe_base": "nan"},
        {"pe_d_model": "abc", "pe_dims": ["999", "x"]},
        {"pe_swap_first": "99", "pe_swap_second": "-3"},
        {"pe_sentence": ""},
    ],
)
def test_bad_url_params_leave_a_working_page(params: dict[str, str]) -> None:
    at = open_page(**params)
    assert not at.exception
    assert at.title[0].value == "Positional encodings"
    assert at.radio(key="pe_kind").value in KINDS
    assert 1 <= at.slider(key="pe_length").value <= ac.limits.MAX_POSITIONS


def test_biggest_view_renders() -> None:
    at = open_page(pe_length=str(ac.limits.MAX_POSITIONS), pe_d_model=str(ac.limits.MAX_D_MODEL))
    assert not at.exception
    plotted = decode(figure_titled(at, "sinusoidal encoding")["data"][0]["z"])
    assert plotted.shape == (512, 512)
    assert plotted.dtype == np.float32
