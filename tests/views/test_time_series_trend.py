"""The time-series page's "forecast the change" switch, and what it says when naive wins."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.views.test_time_series import assert_clean, open_page, upload
from ui.shared.safe import unescape_markdown


def csv_of(values: np.ndarray) -> bytes:
    return b"y\n" + b"".join(f"{value:.3f}\n".encode() for value in values)


def jump() -> np.ndarray:
    """200 values in [10, 11), the last 30 of them 1000 higher: far above all training saw."""
    noise = np.random.default_rng(0).uniform(size=200)
    return 10 + noise + (np.arange(200) >= 170) * 1000


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


# --- The switch, in the link -----------------------------------------------------------


def test_old_links_forecast_the_level_and_a_link_with_the_switch_forecasts_the_change() -> None:
    from ui.time_series.state import URL_KEYS

    at = open_page(ts_train="true")
    assert_clean(at)
    assert at.toggle(key="ts_change").value is False
    assert "ts_change" in URL_KEYS
    again = open_page(ts_train="true", ts_change="true")
    assert_clean(again)
    assert again.toggle(key="ts_change").value is True
    assert not again.warning  # a value the page knows: no "refused" note


def test_the_switch_stays_in_the_link_while_there_is_no_data() -> None:
    at = upload(
        open_page(ts_train="true", ts_change="true", ts_length="12"), "j.csv", csv_of(jump())
    )
    at.file_uploader(key="ts_upload").set_value(None)
    at.run()
    assert not at.exception
    assert at.query_params.get("ts_change") == "true"
    assert at.session_state["ts_change"] is True


# --- A loss explained, and its remedy applied ----------------------------------------------


def test_a_loss_says_why_from_the_data_and_its_button_trains_on_changes() -> None:
    # The last 30 values are 1000 higher: a model of levels misses by hundreds on every
    # seed; "tomorrow equals today" misses once, at the jump.
    at = open_page(ts_length="12", ts_train="true", ts_steps="50")
    at = upload(at, "jump.csv", csv_of(jump()))
    at.button(key="ts_train_go").click().run()
    assert_clean(at)
    assert '"Tomorrow equals today" is better here' in at.warning[0].value
    said = unescape_markdown(" ".join(block.value for block in at.markdown))
    assert "What the data says" in said
    # 30 of the 38 validation values come after the jump.
    assert "79% of the validation values lie above every value the training windows saw" in said
    level = metrics(at)
    remedy = at.button(key="ts_remedy")
    assert remedy.label == "Forecast the change instead, and train"
    remedy.click().run()
    assert_clean(at)
    assert at.toggle(key="ts_change").value is True
    assert any("The model forecast the change from the step before" in c.value for c in at.caption)
    changes = metrics(at)  # trained at once, without the train button
    naive = "Naive MAE (tomorrow = today)"
    assert changes[naive] == level[naive]  # the same validation windows, the same naive forecast
    assert changes["Model MAE"] != level["Model MAE"]


# --- The verdict's words, for results made up in the open ------------------------------------


def verdict_script(values: list[float], differenced: bool, model_mae: float) -> None:
    """Draw the verdict of a made-up run whose MAE is ``model_mae`` against a naive 1.0."""
    from types import SimpleNamespace

    import pandas as pd

    import attention_core as ac
    from ui.time_series.results import verdict

    dataset = ac.prepare_dataset(
        pd.DataFrame({"y": values}), ["y"], "y", 12, differenced=differenced
    )
    result = SimpleNamespace(
        model_errors=ac.ForecastErrors(model_mae, model_mae),
        naive_errors=ac.ForecastErrors(1.0, 1.0),
    )
    verdict(result, dataset)  # type: ignore[arg-type]


def seasonal() -> list[float]:
    """A season of 12 steps around a fixed level: nothing in the data explains a loss."""
    t = np.arange(400)
    noise = 0.1 * np.random.default_rng(1).normal(size=400)
    return list(10 + np.sin(2 * np.pi * t / 12) + noise)


def verdict_of(values: list[float], differenced: bool, model_mae: float) -> AppTest:
    at = AppTest.from_function(verdict_script, args=(values, differenced, model_mae))
    return at.run()


def test_a_win_is_said_with_its_margin_and_asks_nothing() -> None:
    at = verdict_of(seasonal(), False, 0.75)
    assert_clean(at)
    assert at.success[0].value.startswith("The model's forecasts are off by 0.75 on average, 25%")
    assert not at.warning and not at.button


def test_a_loss_with_nothing_in_the_data_to_explain_it_says_what_else_to_try() -> None:
    at = verdict_of(seasonal(), False, 1.25)
    assert_clean(at)
    assert "its forecasts are off by 1 on average, the model's by 1.25" in at.warning[0].value
    assert at.markdown[0].value.startswith("Nothing in the data stands out")
    assert not at.button


def test_a_loss_on_changes_of_a_level_without_trend_offers_the_level_again() -> None:
    at = verdict_of(seasonal(), True, 1.25)
    assert_clean(at)
    assert "no trend and no shift" in unescape_markdown(at.markdown[0].value)
    assert at.button(key="ts_remedy").label == "Forecast the level instead, and train"
    at.button(key="ts_remedy").click().run()
    assert at.session_state["ts_change"] is False
    assert at.session_state["ts_train_now"] is True
