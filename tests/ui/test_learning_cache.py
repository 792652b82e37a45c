"""The learning page's shared figures: built once per view for every session, never changed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import streamlit as st

from attention_core.learning.config import DEFAULTS
from attention_core.learning.shipped import shipped_run
from ui.figures.style import NORMAL, PRESENTATION
from ui.figures.tables import trace_array
from ui.learning.cache import Trained, answer, curves_figure, probe_target_figure, replay_figure
from ui.learning.state import LearningState


def shipped(task: str, seed: int = 0, style=NORMAL) -> Trained:
    """A task's run trained ahead of time (no PyTorch), as the page would hold it."""
    model, train = DEFAULTS[task]
    train = replace(train, seed=seed)
    result = shipped_run(model, train)
    assert result is not None
    return Trained(LearningState(task, model, train, style), result)


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    st.cache_resource.clear()


def test_the_same_view_is_built_once_and_another_view_apart() -> None:
    first, again = shipped("sort"), shipped("sort")  # two sessions' reruns: equal, not the same
    assert first is not again and first.digest == again.digest
    steps = first.result.snapshot_steps
    curves = curves_figure(first, int(steps[-1]))
    assert curves_figure(again, int(steps[-1])) is curves
    assert curves_figure(again, int(steps[0])) is not curves  # another marked step
    assert replay_figure(again, 3) is replay_figure(first, 3)
    assert replay_figure(first, 3) is not replay_figure(first, 4)
    assert probe_target_figure(again) is probe_target_figure(first)
    typed = (0, 1, 2, 2, 1, 0)
    assert answer(again, typed) is answer(first, typed)
    assert answer(first, typed) is not answer(first, (2, 2, 2, 1, 1, 1))


def test_the_key_names_the_run_the_seed_and_the_style() -> None:
    digest = shipped("sort").digest
    assert shipped("sort", seed=1).digest != digest
    assert shipped("sort", style=PRESENTATION).digest != digest
    assert shipped("induction").digest != digest
    trained = shipped("sort")
    loss = trained.result.train_loss.copy()
    loss[-1] += 1e-6  # another run of the same settings (a live one, say) that ended elsewhere
    other = Trained(trained.state, replace(trained.result, train_loss=loss))
    assert other.digest != digest


def test_a_shared_answer_is_the_models_answer_on_the_typed_sequence() -> None:
    from attention_core.learning.predict import predict

    trained = shipped("reverse")
    shown = answer(trained, tuple(range(1, 9)))
    prediction = predict(trained.result.final, trained.result.model, np.arange(1, 9))
    assert (shown.correct, shown.asked) == (prediction.correct, prediction.asked)
    table = shown.table.to_pandas()
    assert list(table.loc["model reads"]) == list("12345678")
    heatmaps = [trace for trace in shown.heads.figure.data if trace.type == "heatmap"]
    np.testing.assert_allclose(
        trace_array(heatmaps[0].z), prediction.trace.weights[0, 0], atol=1e-6
    )
