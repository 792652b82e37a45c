"""The time-series page's shared window runs and figures: built once per server, never changed.

A class's followers rerun the teacher's view one after another; every session on the same
view must get the very same (read-only) objects, and only sessions with the same data.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from streamlit.dataframe_util import convert_pandas_df_to_arrow_bytes
from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.plotly_specs import figures, held, walkable_matrices
from ui.figures.style import NORMAL, PRESENTATION
from ui.shared.export import csv_bytes, matrix_frame
from ui.time_series import cache, sections
from ui.time_series.state import load_sample, load_upload

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "time_series.py")
SEASONAL = "sample:seasonal"
CONFIG = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal")
#: The page's view of the seasonal sample with seed 501 (its defaults otherwise).
VIEW = {"ts_seed": "501"}


def inputs_for(
    config: ac.AttentionConfig = CONFIG, end: int | None = None, fingerprint: str = SEASONAL
) -> cache.WindowInputs:
    frame = load_sample("seasonal")
    end = len(frame) - 1 if end is None else end
    return cache.window_inputs(fingerprint, (["sales"], "sales"), 28, "zscore", end, config, "relu")


def test_a_digest_changes_with_every_input_of_a_view_and_only_with_them() -> None:
    base = inputs_for()
    assert base.digest == inputs_for().digest
    others = [
        inputs_for(ac.AttentionConfig(d_model=16, n_heads=2, mask="causal", seed=1)),
        inputs_for(end=100),
        inputs_for(fingerprint="upload:0123456789abcdef"),
        cache.window_inputs(SEASONAL, (["sales"], "sales"), 27, "zscore", 729, CONFIG, "relu"),
        cache.window_inputs(SEASONAL, (["sales"], "sales"), 28, "minmax", 729, CONFIG, "relu"),
        cache.window_inputs(SEASONAL, (["sales"], "sales"), 28, "zscore", 729, CONFIG, "tanh"),
    ]
    assert len({key.digest for key in others} | {base.digest}) == len(others) + 1


def test_a_series_is_read_once_and_shared_not_copied_for_each_rerun() -> None:
    assert load_sample("seasonal") is load_sample("seasonal")
    assert load_upload("one", b"a,b\n1,2\n3,4\n") is load_upload("one", b"")  # by its hash
    assert load_upload("two", b"a,b\n5,6\n7,8\n") is not load_upload("one", b"")


def test_a_view_run_is_shared_read_only_and_holds_the_cores_numbers() -> None:
    frame = load_sample("seasonal")
    inputs = inputs_for()
    run = cache.window_run(inputs, frame)
    assert cache.window_run(inputs, frame) is run
    assert run.weights is not None and not run.weights.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        run.weights[0, 0, 0] = 1.0
    sales = frame[["sales"]].to_numpy()
    scaled = ac.fit_scaler(sales[ac.scaling_rows(len(sales), 28)], "zscore").transform(sales)
    expected = ac.series_attention(scaled[-28:], CONFIG, "relu").run.trace.weights
    np.testing.assert_array_equal(run.weights, expected)
    assert run.labels == tuple(ac.row_labels(frame.index[-28:]))


@pytest.mark.parametrize(
    "build",
    [
        lambda inputs, run, style: cache.weights_chart(inputs, 0, style, run),
        lambda inputs, run, style: cache.lag_chart(inputs, 0, 7, style, run),
        lambda inputs, run, style: cache.context_chart(inputs, style, run),
        lambda inputs, run, style: cache.heads_chart(inputs, style, run),
        lambda inputs, run, style: cache.weights_table(inputs, 0, style.decimals, run),
    ],
    ids=["weights", "lags", "context", "heads", "table"],
)
def test_a_window_figure_is_one_object_per_view_and_another_for_another_view(
    build: Callable[[cache.WindowInputs, cache.WindowRun, object], object],
) -> None:
    frame = load_sample("seasonal")
    inputs, other = inputs_for(), inputs_for(ac.AttentionConfig(n_heads=2, mask="causal", seed=9))
    run, other_run = cache.window_run(inputs, frame), cache.window_run(other, frame)
    first = build(inputs, run, NORMAL)
    assert build(inputs, run, NORMAL) is first
    assert build(other, other_run, NORMAL) is not first
    assert build(inputs, run, PRESENTATION) is not first  # presenting: larger type


def test_the_series_chart_is_shared_per_data_and_window_not_per_model() -> None:
    frame = load_sample("seasonal")
    inputs = inputs_for()
    figure = cache.series_chart(inputs.series, inputs.end, NORMAL, frame)
    seeded = inputs_for(ac.AttentionConfig(d_model=16, n_heads=2, mask="causal", seed=3))
    assert cache.series_chart(seeded.series, seeded.end, NORMAL, frame) is figure
    assert cache.series_chart(inputs.series, 100, NORMAL, frame) is not figure
    upload = inputs_for(fingerprint="upload:0123456789abcdef")
    assert cache.series_chart(upload.series, upload.end, NORMAL, frame) is not figure


def open_page(**query_params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    for name, value in query_params.items():
        at.query_params[name] = value
    return at.run()


def open_numbers(at: AppTest) -> AppTest:
    """Open "All heads and the numbers" (built only while open), as a reader's click does."""
    assert not at.dataframe and not at.get("download_button")  # closed: nothing built
    at.session_state["ts_all_heads"] = True
    return at.run()


def specs(at: AppTest) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    return [chart.proto.spec for chart in at.get("plotly_chart")]


def test_two_sessions_on_one_view_draw_the_same_shared_figures_unchanged() -> None:
    cache.window_run.clear()
    cache.weights_chart.clear()
    first = open_numbers(open_page(**VIEW))
    drawn = specs(first)
    # the series, the lags and (opened) every head's grid as plotly charts; head 1's
    # weights and the context vectors as walkable matrices
    assert len(drawn) == 3 and len(figures(first)) == 5
    seed = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal", seed=501)
    inputs, frame = inputs_for(seed), load_sample("seasonal")
    shared = cache.weights_chart(inputs, 0, NORMAL, cache.window_run(inputs, frame))
    before = (held(shared.figure), json.dumps(shared.walk))
    assert json.loads(before[0])["layout"]["title"]["text"].startswith(
        "Attention weights of head 1"
    )
    assert walkable_matrices(first)[0]["walkable"] == shared.walk[0]  # sent as shared
    second = open_numbers(open_page(**VIEW))
    assert specs(second) == drawn  # the same figures, spec for spec
    assert figures(second) == figures(first)
    assert (held(shared.figure), json.dumps(shared.walk)) == before  # nothing shared changed
    assert cache.weights_chart(inputs, 0, NORMAL, cache.window_run(inputs, frame)) is shared
    assert specs(open_page(ts_seed="502")) != drawn


def test_the_weights_table_sends_the_bytes_of_the_rounded_dataframe() -> None:
    at = open_numbers(open_page(**VIEW))
    (table,) = at.dataframe
    seed = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal", seed=501)
    inputs = inputs_for(seed)
    run = cache.window_run(inputs, load_sample("seasonal"))
    assert run.weights is not None
    frame = matrix_frame(run.weights[0], run.labels, run.labels)
    expected = convert_pandas_df_to_arrow_bytes(frame.round(NORMAL.decimals))
    assert table.proto.arrow_data.data == expected  # as st.dataframe converts the DataFrame


def test_the_weights_csv_is_built_on_click_with_the_full_precision_numbers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: dict[str, Callable[[], bytes]] = {}
    shown = sections.download_button

    def keep(label: str, make_bytes: Callable[[], bytes], file_name: str, key: str) -> None:
        made[file_name] = make_bytes
        shown(label, make_bytes, file_name, key)

    monkeypatch.setattr(sections, "download_button", keep)
    at = open_numbers(open_page(**VIEW))
    (button,) = at.get("download_button")
    assert button.proto.deferred_file_id  # nothing built until a click
    sales = load_sample("seasonal")[["sales"]].to_numpy()
    scaled = ac.fit_scaler(sales[ac.scaling_rows(len(sales), 28)], "zscore").transform(sales)
    seed = ac.AttentionConfig(d_model=16, n_heads=2, positional="learned", mask="causal", seed=501)
    weights = ac.series_attention(scaled[-28:], seed, "relu").run.trace.weights[0]
    labels = ac.row_labels(load_sample("seasonal").index[-28:])
    expected = csv_bytes(matrix_frame(weights, labels, labels))
    assert made["attention_weights.csv"]() == expected
