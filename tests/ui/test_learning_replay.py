"""The learning page's replay over training snapshots when a run kept only one."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.plotly_specs import walkable_matrices


def replay_of_a_one_snapshot_run() -> None:
    from dataclasses import replace

    from attention_core.learning.config import DEFAULTS, TASK_TRAINING
    from attention_core.learning.training import train_model
    from ui.figures.style import FigureStyle
    from ui.learning.sections import Trained, replay_section
    from ui.learning.state import LearningState

    model, _ = DEFAULTS["reverse"]
    train = replace(TASK_TRAINING, steps=100, target_accuracy=1e-6)  # reached at step 0: stops
    result = train_model(model, train)
    assert result.snapshot_steps.tolist() == [0]
    replay_section(Trained(LearningState("reverse", model, train, FigureStyle()), result))


def test_a_run_with_one_snapshot_names_its_only_step_instead_of_a_slider() -> None:
    at = AppTest.from_function(replay_of_a_one_snapshot_run, default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.select_slider) == 0
    assert any("**0** — the only snapshot of this run" in m.value for m in at.markdown)
    # reverse has one head: its attention is drawn as a walkable matrix, as is the target
    titles = [spec["layout"]["title"]["text"] for spec in walkable_matrices(at)]
    # the lone head's panel keeps its name and score, its plotly line break a comma
    assert titles[0].startswith("Every head at step 0, layer 1 · head 1, anti-diagonal ")
    assert titles[1:] == ["Target (probe): anti-diagonal"]


def test_head_titles_put_each_score_on_its_own_line() -> None:
    """Two heads per layer put four panels in a row: one long line per title overlapped."""
    import numpy as np

    from ui.learning.figures import head_titles

    scores = {
        "induction": np.array([[0.05, 0.1], [0.6, 0.2]]),
        "previous token": np.full((2, 2), 0.4),
    }
    titles = head_titles(scores, 2, 2)
    assert titles[2] == "layer 2 · head 1<br>induction 0.60<br>previous token 0.40"
    assert len(titles) == 4
