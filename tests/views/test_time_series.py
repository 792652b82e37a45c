"""The time-series page with AppTest: samples, uploads, controls, training, the notes' example."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching import cell_computation
from tests.plotly_specs import charts, decode, figure_titled, figures
from ui.shared.safe import escape_markdown, unescape_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "views" / "time_series.py")
GOOD_CSV = b"date;price;note;volume\n" + b"".join(
    f"2024-01-{day:02d};{100 + day % 5},5;n{day};{1000 + day}\n".encode() for day in range(1, 31)
)


def open_page(**query_params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    for name, value in query_params.items():
        at.query_params[name] = value
    return at.run()


def plotted_weights(at: AppTest) -> np.ndarray:
    figure = figure_titled(at, "Attention weights of head")
    (trace,) = [
        trace
        for trace in figure["data"]
        if trace["type"] == "heatmap" and trace.get("name") != "masked"
    ]
    return decode(trace["z"])


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.radio(key="ts_source").set_value("upload").run()
    at.file_uploader(key="ts_upload").set_value((name, data, "text/csv"))
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


# --- Samples and the weights on screen -----------------------------------------


def test_default_page_plots_the_cores_weights_for_the_seasonal_sample() -> None:
    at = open_page()
    assert_clean(at)
    sales = ac.seasonal_series()[["sales"]].to_numpy()
    fit_rows = ac.scaling_rows(len(sales), 28)
    scaled = ac.fit_scaler(sales[fit_rows], "zscore").transform(sales)
    config = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal")
    expected = ac.series_attention(scaled[-28:], config, "relu").run.trace.weights[0]
    shown = plotted_weights(at)
    allowed = ac.causal_mask(28)
    np.testing.assert_allclose(shown[allowed], expected[allowed], rtol=0, atol=1e-6)
    assert np.isnan(shown[~allowed]).all()  # masked cells are drawn grey, not as 0
    assert figure_titled(at, "The last day's row")["data"][0]["x"][-1] == 1  # lag 1 = last day


@pytest.mark.parametrize(
    ("sample", "columns"),
    [
        ("ohlcv", 5),
        ("stocks", 6),
    ],
)
def test_every_sample_loads_and_shows_attention(sample: str, columns: int) -> None:
    at = open_page(ts_sample=sample)
    assert_clean(at)
    assert len(at.multiselect(key="ts_features").value) == columns
    assert plotted_weights(at).shape == (28, 28)


def test_changing_columns_window_heads_and_mask_redraws_without_errors() -> None:
    at = open_page(ts_sample="ohlcv")
    at.multiselect(key="ts_features").set_value(["close", "volume"])
    at.selectbox(key="ts_target").set_value("volume")
    at.slider(key="ts_length").set_value(10)
    at.selectbox(key="ts_heads").set_value(4)
    at.selectbox(key="ts_mask").set_value("none").run()
    assert_clean(at)
    shown = plotted_weights(at)
    assert shown.shape == (10, 10) and np.isfinite(shown).all()
    at.radio(key="ts_head").set_value(4)
    at.selectbox(key="ts_mask").set_value("sliding").run()
    assert_clean(at)
    assert "head 4" in figure_titled(at, "Attention weights of head")["layout"]["title"]["text"]
    assert np.isnan(plotted_weights(at)[9, 0])  # outside the sliding window


def test_window_longer_than_the_series_says_what_to_do() -> None:
    at = open_page(ts_sample="stocks", ts_length="120")
    assert not at.exception
    assert "Choose a shorter window" in at.error[0].value


def test_link_values_select_the_view_and_refused_ones_are_named() -> None:
    at = open_page(ts_sample="ohlcv", ts_scaling="min-max", ts_length="999", ts_mask="none")
    assert not at.exception
    assert at.selectbox(key="ts_sample").value == "ohlcv"
    assert at.radio(key="ts_scaling").value == "min-max"
    assert np.isfinite(plotted_weights(at)).all()  # no mask
    assert "ts\\_length=999" in at.warning[0].value


def test_a_link_with_the_old_normaliser_key_still_sets_the_normaliser() -> None:
    """``ts_activation`` was renamed ``ts_normaliser``; ``ts_act`` stays the feature activation."""
    at = open_page(ts_activation="hardmax", ts_act="gelu")
    assert_clean(at)
    assert at.selectbox(key="ts_normaliser").value == "hardmax"
    assert at.selectbox(key="ts_act").value == "gelu"
    assert at.query_params["ts_normaliser"] == "hardmax"
    assert "ts_activation" not in at.query_params
    shown = plotted_weights(at)
    allowed = ac.causal_mask(28)
    assert set(np.unique(shown[allowed])) == {0.0, 1.0}  # hardmax: one key per row
    assert not at.warning


# --- Uploads -----------------------------------------------------------------------


def test_uploaded_semicolon_file_is_read_and_its_text_column_reported() -> None:
    at = upload(open_page(ts_length="10"), "prices.csv", GOOD_CSV)
    assert_clean(at)
    assert at.multiselect(key="ts_features").value == ["price", "volume"]
    reports = " ".join(info.value for info in at.info)
    assert "note" in reports and "left out" in reports
    assert plotted_weights(at).shape == (10, 10)


SETTINGS_FOR_ANY_DATA = {
    "ts_length": "14",
    "ts_scaling": "min-max",
    "ts_act": "tanh",
    "ts_head": "2",
    "ts_train": "true",
    "ts_steps": "100",
    "ts_layers": "2",
    "ts_hidden": "64",
    "ts_lr": "0.01",
}


@pytest.mark.parametrize(
    "replacement", [None, b"name\nx\ny\n"], ids=["file removed", "unusable file"]
)
def test_settings_that_fit_any_data_stay_in_the_link_while_there_is_no_data(
    replacement: bytes | None,
) -> None:
    # Replacing a file passes through a run without one; a bound widget missing
    # from a finished run loses its value in the URL.
    at = upload(open_page(**SETTINGS_FOR_ANY_DATA), "prices.csv", GOOD_CSV)
    assert_clean(at)
    at.file_uploader(key="ts_upload").set_value(
        None if replacement is None else ("bad.csv", replacement, "text/csv")
    )
    at.run()
    assert not at.exception
    assert {key: at.query_params.get(key) for key in SETTINGS_FOR_ANY_DATA} == SETTINGS_FOR_ANY_DATA
    assert {key: at.session_state[key] for key in SETTINGS_FOR_ANY_DATA} == {
        "ts_length": 14,
        "ts_scaling": "min-max",
        "ts_act": "tanh",
        "ts_head": 2,
        "ts_train": True,
        "ts_steps": 100,
        "ts_layers": 2,
        "ts_hidden": 64,
        "ts_lr": 0.01,
    }
    assert not charts(at)
    assert sum("This step needs data" in caption.value for caption in at.caption) == 2


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\n" + bytes(64), "PNG"),
        (b"a,b\n1,2\n1e400,3\n", "too large"),
        (b"name\nx\ny\n", "No column of numbers"),
        (b"a\n" + b"1\n" * 2_700_000, escape_markdown("5.0 MB")),
    ],
)
def test_broken_upload_shows_an_error_and_no_exception(data: bytes, words: str) -> None:
    at = upload(open_page(), "broken.csv", data)
    assert not at.exception
    assert words in at.error[0].value
    assert not charts(at) or not any(
        f["layout"]["title"]["text"].startswith("Attention weights of head") for f in figures(at)
    )


# --- The notes' worked example -------------------------------------------------------


def test_five_day_example_shows_the_notes_printed_numbers_next_to_ours() -> None:
    at = open_page(ts_five_day="true")
    assert_clean(at)
    code = " ".join(block.value for block in at.code)
    for number in ("0.174", "0.29", "0.651", "0.748", "0.669", "0.37394319", "-0.0746334"):
        assert number in code  # printed weights (both versions) and outputs
    weights = [
        decode(figure["data"][0]["z"])
        for figure in figures(at)
        if figure["layout"]["title"]["text"] == "Our weights (exact)"
    ]
    np.testing.assert_allclose(
        np.round(weights[0], 3), ac.examples.FIVE_DAY_PRINTED_WEIGHTS, atol=1e-9
    )
    masked = np.where(np.isnan(weights[1]), 0.0, weights[1])
    np.testing.assert_allclose(
        np.round(masked, 3), ac.examples.FIVE_DAY_PRINTED_MASKED_WEIGHTS, atol=1e-9
    )


# --- Training -----------------------------------------------------------------------------


def test_short_training_shows_errors_beside_the_naive_forecast_and_is_cached() -> None:
    at = open_page(ts_length="14", ts_train="true", ts_steps="50")
    assert_clean(at)
    at.button(key="ts_train_go").click().run()
    assert_clean(at)
    metrics = {metric.label: metric.value for metric in at.metric}
    assert set(metrics) >= {"Model MAE", "Naive MAE (tomorrow = today)", "Model RMSE"}
    before_after = figure_titled(at, "The most recent window, before and after")
    assert len([t for t in before_after["data"] if t["type"] == "heatmap"]) == 4  # 2 heads
    # Head 2 after training (panel 4), walked: its recorded weight, place and row sum.
    at.session_state["walkpanel_ts_before_after"] = True
    at.session_state["walkpick_ts_before_after"] = 3
    at.session_state["walk_ts_before_after_3"] = {"cell": {"row": 5, "col": 2}}
    at.run()
    assert_clean(at)
    after = np.nan_to_num(decode(before_after["data"][3]["z"]))  # masked: weight 0
    recorded = cell_computation.recorded_weight_cell(after, 5, 2, "after training")
    shown = [unescape_markdown(block.value) for block in at.markdown]
    assert all(line in shown for line in recorded.lines[:-1])
    assert f"Weight: {cell_computation.number(float(after[5, 2]))}." in shown
    again = open_page(ts_length="14", ts_train="true", ts_steps="50")  # another session
    assert not at.exception
    assert {metric.label: metric.value for metric in again.metric} == metrics  # no button


def test_training_settings_too_big_for_the_budget_show_an_error() -> None:
    at = open_page(ts_d_model="512", ts_heads="8", ts_length="128", ts_train="true")
    assert not at.exception
    assert "too big to train" in at.error[0].value


def test_page_without_training_does_not_import_torch() -> None:
    code = (
        "import sys; from streamlit.testing.v1 import AppTest; "
        f"at = AppTest.from_file({PAGE!r}, default_timeout=90).run(); "
        "assert not at.exception; assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120, capture_output=True
    )


def test_the_view_before_training_scales_like_training_on_training_rows_only() -> None:
    """Both views fit the scaler on the rows training sees, so they attend over the same numbers."""
    at = open_page()
    assert_clean(at)
    series = ac.seasonal_series()
    dataset = ac.prepare_dataset(series, ["sales"], "sales", 28, "zscore")
    config = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal")
    expected = ac.series_attention(dataset.features[-28:].astype(float), config, "relu")
    allowed = ac.causal_mask(28)
    shown = plotted_weights(at)[allowed]
    np.testing.assert_allclose(shown, expected.run.trace.weights[0][allowed], rtol=0, atol=1e-5)
    whole_series = ac.fit_scaler(series[["sales"]].to_numpy(), "zscore")
    assert not np.allclose(whole_series.offset, dataset.feature_scaler.offset)


def test_url_keys_name_every_widget_the_page_binds() -> None:
    from ui.time_series import training
    from ui.time_series.state import URL_KEYS

    at = open_page(ts_mask="sliding", ts_scale="temperature", ts_five_day="true")
    assert_clean(at)
    kinds = ("selectbox", "multiselect", "toggle", "number_input", "slider", "radio")
    drawn = {widget.key for kind in kinds for widget in at.get(kind) if widget.key}
    assert {"ts_window", "ts_temperature", "ts_features", "ts_act", "ts_end"} <= drawn
    assert drawn <= set(URL_KEYS)
    assert set(training.KEYS) <= set(URL_KEYS)  # drawn once training is on
