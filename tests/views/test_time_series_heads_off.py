"""The time-series page's heads-off experiment (ui/time_series/heads_off.py) with AppTest: after
training, the error with each head off (chart and table), and a link with heads off that
reproduces the forecast without them; bad link values are said in words, never a traceback.

The first test trains (a few seconds); the others find the run in the page's shared cache,
as another student's session would."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.plotly_specs import decode, figure_titled
from ui.shared.safe import unescape_markdown

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "time_series.py")
TRAINED = {"ts_length": "14", "ts_train": "true", "ts_steps": "50"}  # two heads, one layer


def open_page(**params: str | list[str]) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    for key, value in {**TRAINED, **params}.items():
        at.query_params[key] = value
    at.run()
    if any(button.key == "ts_train_go" for button in at.button):
        at.button(key="ts_train_go").click().run()  # the first session trains
    return at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def sweep_table(at: AppTest):
    (table,) = [frame.value for frame in at.dataframe if "head off" in frame.value.columns]
    return table.set_index("head off")


def test_after_training_each_heads_error_is_shown_beside_the_intact_error() -> None:
    at = open_page()
    assert_clean(at)
    table = sweep_table(at)
    assert list(table.index) == ["L1 H1", "L1 H2"]
    assert set(table.columns) == {
        "MAE, zero", "RMSE, zero", "MAE, mean", "RMSE, mean", "MAE, every head on"
    }  # fmt: skip
    intact = float(metrics(at)["Model MAE"])
    assert table["MAE, every head on"].tolist() == pytest.approx([intact] * 2, rel=1e-3)
    bars = figure_titled(at, "Forecast error with each head off")
    by_kind = {trace["name"]: decode(trace["y"]) for trace in bars["data"]}
    assert by_kind["zero"].tolist() == pytest.approx(table["MAE, zero"].tolist(), abs=1e-4)
    assert by_kind["mean"].tolist() == pytest.approx(table["MAE, mean"].tolist(), abs=1e-4)
    words = next(unescape_markdown(m.value) for m in at.markdown if "hurts most" in m.value)
    worst = table["MAE, zero"].idxmax()
    assert words.startswith(f"Zeroing {worst} hurts most")
    assert any("Choose heads to turn off" in info.value for info in at.info)


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_a_link_with_a_head_off_reproduces_its_error_in_the_sweep(kind: str) -> None:
    at = open_page(ts_off=["L1 H2"], ts_off_kind=kind)
    assert_clean(at)
    assert not at.warning
    assert at.multiselect(key="ts_off").value == ["L1 H2"]
    off = float(metrics(at)["MAE, heads off"])
    assert off == pytest.approx(sweep_table(at).loc["L1 H2", f"MAE, {kind}"], rel=1e-3)
    assert float(metrics(at)["MAE, every head on"]) == float(metrics(at)["Model MAE"])
    forecasts = figure_titled(at, "Forecasts with heads off and with every head on")
    names = [trace["name"] for trace in forecasts["data"]]
    assert names == ["actual", "model, every head on", "model, L1 H2 off"]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"ts_off": ["L1 H3"]}, "ts_off=L1 H3"),
        ({"ts_off": ["L1 H3", "L1 H1"]}, "ts_off=L1 H3"),
        ({"ts_off": ["L2 H1"]}, "ts_off=L2 H1"),
        ({"ts_off": ["L1 H1"], "ts_off_kind": "half"}, "ts_off_kind=half"),
        ({"ts_off": ["L1 H1", "L1 H2"]}, "keep at least one head on"),
        ({"ts_off": [f"L{n} H1" for n in range(900)]}, "ts_off=L0 H1, L2 H1, L3 H1"),
    ],
    ids=["no such head", "first of two", "no such layer", "no such kind", "all off", "huge"],
)
def test_bad_heads_in_the_link_are_said_in_words_after_training(params: dict, words: str) -> None:
    at = open_page(**params)
    assert_clean(at)
    shown = [unescape_markdown(warning.value) for warning in at.warning]
    assert any(words in warning for warning in shown), shown
    assert "Model MAE" in metrics(at)  # the trained run is still shown


def test_a_single_head_model_has_no_sweep_and_says_why() -> None:
    at = open_page(ts_heads="1")
    assert_clean(at)
    assert any("single head" in info.value for info in at.info)
    assert not [frame for frame in at.dataframe if "head off" in frame.value.columns]


def test_a_sweep_too_big_to_run_at_once_waits_for_its_button(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from attention_core.boundary import limits

    monkeypatch.setattr(limits, "MAX_SWEEP_MACS", 0)  # as if the model were huge
    at = open_page()
    assert_clean(at)
    assert not [frame for frame in at.dataframe if "head off" in frame.value.columns]
    assert any("4 passes over the" in caption.value for caption in at.caption)
    at.button(key="ts_off_sweep_go").click().run()
    assert_clean(at)
    assert list(sweep_table(at).index) == ["L1 H1", "L1 H2"]
    at.multiselect(key="ts_off").select("L1 H1").run()  # the sweep stays once asked
    assert list(sweep_table(at).index) == ["L1 H1", "L1 H2"]
    assert "MAE, heads off" in metrics(at)
