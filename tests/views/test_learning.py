"""The learning page with AppTest: training from a link, the replay, the curves and "Try it"."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from attention_core.learning.config import DEFAULTS
from attention_core.learning.forward import forward
from attention_core.learning.patterns import target_pattern
from attention_core.learning.predict import predict
from attention_core.learning.shipped import shipped_run
from attention_core.learning.tasks import get_task
from tests.plotly_specs import decode, figure_titled, figures, held, walkable_matrices
from tests.views.expanders import CODE, open_expanders
from ui.figures.style import NORMAL
from ui.learning import cache
from ui.learning import training as learning_training
from ui.learning.sections import TRY_IT_CODE, Trained
from ui.learning.state import LearningState
from ui.learning.training import RUNS
from ui.shared import training_progress

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "views" / "learning.py")


def open_page(**query_params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=180)  # the first run imports torch and trains
    for name, value in query_params.items():
        at.query_params[name] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def panels(figure: dict) -> np.ndarray:
    """Every heatmap panel's z of a heatmap grid, ``(panels, T, T)``."""
    return np.stack([decode(trace["z"]) for trace in figure["data"] if trace["type"] == "heatmap"])


def default_result(task: str, seed: int = 0):
    """The run shipped for the task's default settings (what a default link shows)."""
    model, train = DEFAULTS[task]
    result = shipped_run(model, replace(train, seed=seed))
    assert result is not None and result.trained_ahead
    return result


def test_default_link_shows_the_run_trained_ahead_of_time_without_training() -> None:
    model, train = DEFAULTS["reverse"]
    at = open_page()
    assert_clean(at)
    result = default_result("reverse")
    assert at.metric[0].value == f"{result.held_out[-1]:.1%}" and result.held_out[-1] >= 0.99
    assert any("Trained ahead of time" in caption.value for caption in at.caption)
    assert at.toggle(key="learn_reverse_live").value is False
    replay = figure_titled(at, "Every head at step")
    final_weights = forward(result.final, result.model, result.probe).weights  # (1, 1, 8, 8)
    np.testing.assert_allclose(panels(replay)[0], final_weights[0, 0], atol=1e-6)
    target = figure_titled(at, "Target (probe)")
    np.testing.assert_array_equal(decode(target["data"][0]["z"]), np.fliplr(np.eye(8)))
    assert RUNS.cached((model, train)) is None  # nothing was trained


def test_a_student_can_train_the_shipped_settings_live_once_per_server() -> None:
    model, train = DEFAULTS["reverse"]
    train = replace(train, seed=3)
    at = open_page(learn_reverse_seed="3")
    at.toggle(key="learn_reverse_live").set_value(True).run()
    assert_clean(at)
    live = RUNS.cached((model, train))
    assert live is not None and not live.trained_ahead
    assert at.metric[0].value == f"{live.held_out[-1]:.1%}"
    replay = figure_titled(at, "Every head at step")
    np.testing.assert_allclose(
        panels(replay)[0], forward(live.final, model, live.probe).weights[0, 0], atol=1e-6
    )
    again = open_page(learn_reverse_seed="3")  # another session: the shipped run, at once
    again.toggle(key="learn_reverse_live").set_value(True).run()
    assert RUNS.slot((model, train)).runs == 1  # and live, the same shared run


def test_settings_that_were_not_shipped_train_live() -> None:
    model, train = DEFAULTS["reverse"]
    at = open_page(learn_reverse_seed="31")
    assert_clean(at)
    assert not any("Trained ahead of time" in caption.value for caption in at.caption)
    assert len(at.get("toggle")) == 1  # only the MLP setting: nothing to switch to
    result = RUNS.cached((model, replace(train, seed=31)))
    assert result is not None and not result.trained_ahead


def test_the_replay_slider_shows_an_earlier_snapshot_and_marks_it_on_the_curves() -> None:
    at = open_page()
    result = default_result("reverse")
    at.select_slider(key="learn_reverse_replay").set_value(0).run()
    assert_clean(at)
    shown = panels(figure_titled(at, "Every head at step 0"))[0]
    np.testing.assert_allclose(shown, result.snapshot_weights[0, 0, 0], atol=1e-6)
    curves = figure_titled(at, "Training: loss")
    assert any(shape.get("x0") == 0 for shape in curves["layout"].get("shapes", []))


def test_try_it_shows_the_models_answer_and_the_attention_on_the_typed_sequence() -> None:
    at = open_page(learn_reverse_probe="12345678")
    assert_clean(at)
    result = default_result("reverse")
    prediction = predict(result.final, result.model, np.arange(1, 9))
    table = at.dataframe[0].value
    assert list(table.loc["model reads"]) == list("12345678")
    assert list(table.loc["right answer"]) == list("87654321")
    shown = panels(figure_titled(at, "Every head of the trained model on your sequence"))[0]
    np.testing.assert_allclose(shown, prediction.trace.weights[0, 0], atol=1e-6)
    assert at.expander[-1].label == CODE
    assert not at.expander[-1].code  # built once opened
    code = open_expanders(at, CODE).expander[-1]
    sources = [block.value for block in code.code]
    assert sources == [inspect.getsource(function).rstrip() for function in TRY_IT_CODE]


def test_a_bad_probe_gets_a_message_and_the_rest_of_the_page_stays() -> None:
    at = open_page(learn_reverse_probe="12ab")
    assert not at.exception
    assert "not in this task's alphabet" in at.error[0].value
    assert figure_titled(at, "Training: loss")  # the curves are still drawn


def test_each_task_trains_from_its_link_and_draws_its_target() -> None:
    for task, score in (("sort", "sorted symbol"), ("induction", "induction")):
        at = open_page(learn_task=task)
        assert_clean(at)
        target = figure_titled(at, "Target (probe)")  # a walkable matrix, named by its score
        assert target["layout"]["title"]["text"] == f"Target (probe): {score}"
        result = default_result(task)
        pattern = target_pattern(get_task(task), result.probe)
        allowed = result.model.attention_mask()  # masked cells are drawn grey (NaN)
        drawn = decode(target["data"][0]["z"])
        np.testing.assert_allclose(drawn[allowed], pattern[allowed], atol=1e-6)
        assert result.held_out[-1] >= 0.99
        expected = forward(result.final, result.model, result.probe).weights
        shown = panels(figure_titled(at, "Every head at step"))
        expected = expected.reshape(shown.shape)
        np.testing.assert_allclose(shown[:, allowed], expected[:, allowed], atol=1e-6)
        assert np.isnan(shown[:, ~allowed]).all()
        probe = get_task(task).default_probe
        assert at.text_input(key=f"learn_{task}_probe").value == probe


def test_refused_link_values_are_named() -> None:
    at = open_page(learn_reverse_d_model="48", learn_task="reverse")
    assert not at.exception
    assert "learn\\_reverse\\_d\\_model=48" in at.warning[0].value


def test_two_sessions_on_one_view_draw_the_same_shared_figures_and_leave_them_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    st.cache_resource.clear()
    model, train = DEFAULTS["sort"]
    trained = Trained(LearningState("sort", model, train, NORMAL), default_result("sort"))
    last = int(trained.result.snapshot_steps[-1])
    probe = tuple(get_task("sort").parse(get_task("sort").default_probe).tolist())
    shared = [
        cache.curves_figure(trained, last),
        cache.replay_figure(trained, len(trained.result.snapshot_steps) - 1),
        cache.probe_target_figure(trained),
        cache.answer(trained, probe).heads,
        cache.answer(trained, probe).target,
    ]
    before = [(held(drawn.figure), json.dumps(drawn.walk)) for drawn in shared]
    built: list[str] = []  # every figure built from here on

    def counted(builder):
        def build(*args, **kwargs) -> go.Figure:
            built.append(builder.__name__)
            return builder(*args, **kwargs)

        return build

    for name in ("training_curves", "heads_figure", "target_figure"):
        monkeypatch.setattr(cache, name, counted(getattr(cache, name)))
    first, second = open_page(learn_task="sort"), open_page(learn_task="sort")
    assert_clean(first)
    assert_clean(second)
    assert built == []  # both sessions drew the figures built above
    # The curves and both grids of heads are plotly charts; both targets walkable matrices,
    # each sent as its shared figure's walkable data.
    specs = [chart.proto.spec for chart in first.get("plotly_chart")]
    assert len(specs) == 3 and specs == [chart.proto.spec for chart in second.get("plotly_chart")]
    assert len(figures(first)) == 5 and figures(first) == figures(second)
    walked = [spec["walkable"] for spec in walkable_matrices(first)]
    assert walked == [shared[2].walk[0], shared[4].walk[0]]
    drawn_now = [(held(drawn.figure), json.dumps(drawn.walk)) for drawn in shared]
    assert drawn_now == before  # drawing changed nothing


def test_a_live_training_still_draws_its_growing_curves(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[tuple[str | None, int, str]] = []
    draw_chart = training_progress.chart

    def record(figure: go.Figure, key: str | None = None, **kwargs) -> None:
        drawn.append((key, len(figure.data[0].x), figure.layout.title.text))
        draw_chart(figure, key=key, **kwargs)

    monkeypatch.setattr(training_progress, "chart", record)
    monkeypatch.setattr(learning_training, "REDRAW_SECONDS", 0.0)  # draw at every evaluation
    at = open_page(learn_reverse_seed="57")  # not shipped: trained live here
    assert_clean(at)
    assert len(drawn) >= 2
    assert [points for _, points, _ in drawn] == list(range(1, len(drawn) + 1))
    assert {title for _, _, title in drawn} == {"Training…"}
    assert drawn[-1][0] == f"learn_live_{len(drawn)}"
    assert len(figures(at)) == 5  # then the finished run's figures
