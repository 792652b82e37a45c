"""The learning page's "Turn heads off" with AppTest: the section, a link with heads off, the
circuit's buttons, and bad links (a head that does not exist, every head off, a huge list)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from attention_core.learning import claims
from attention_core.learning.ablation import held_out_score, single_head_sweep
from attention_core.learning.config import DEFAULTS
from attention_core.learning.shipped import shipped_run
from attention_core.maths.ablation import Ablation
from attention_core.teaching.lesson import Lesson, LessonStep
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link
from hosting.classroom.views import LISTS_PARAM, pack_lists
from tests.plotly_specs import decode, figure_titled, figures
from ui.lessons.views import check_lesson

ROOT = Path(__file__).resolve().parents[2]
PAGE, APP = str(ROOT / "views" / "learning.py"), str(ROOT / "app.py")
OFF = "learn_induction_off"
SWEEP = "Held-out accuracy lost with each head alone off"


def open_page(**query_params: str | list[str]) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300)
    for name, value in query_params.items():
        at.query_params[name] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def induction_seed_0():
    model, train = DEFAULTS["induction"]
    result = shipped_run(model, replace(train, seed=0))
    assert result is not None
    return result


def test_the_section_shows_the_sweep_and_the_claim_this_run_keeps() -> None:
    at = open_page(learn_task="induction")
    assert_clean(at)
    assert not [f for f in figures(at) if f["layout"]["title"]["text"].startswith(SWEEP)]
    assert not at.info  # the claim comes with the sweep, which is asked for
    at.toggle(key="learn_induction_sweep").set_value(True).run()
    assert_clean(at)
    assert figure_titled(at, SWEEP)
    at = open_page(learn_task="induction", learn_induction_sweep="true")  # the link holds it
    assert_clean(at)
    assert "5 · Turn heads off" in [header.value for header in at.header]
    result = induction_seed_0()
    sweep = single_head_sweep(result)
    chart = figure_titled(at, SWEEP)
    heatmap = next(trace for trace in chart["data"] if trace["type"] == "heatmap")
    np.testing.assert_allclose(decode(heatmap["z"]), sweep.drops, atol=1e-6)  # float32
    assert metrics(at)["Held-out accuracy, every head on"] == "100.0%"
    assert claims.needs_both_circuit_heads(result, sweep)
    assert any("needs both heads of the textbook circuit" in box.value for box in at.info)
    assert [b.label for b in at.button] == [
        "Turn off the previous-token head (L1 H2)",
        "Turn off the induction head (L2 H1)",
    ]


def test_a_run_that_does_not_keep_the_claim_says_what_it_shows_instead() -> None:
    at = open_page(learn_task="induction", learn_induction_seed="7", learn_induction_sweep="true")
    assert_clean(at)
    info = " ".join(box.value for box in at.info).replace("\\", "").replace("\u2060", "")
    assert "needs both heads" not in info
    assert "zeroing the induction head (L2 H1) alone costs only 0.8 points" in info, info


def test_a_link_with_heads_off_reproduces_the_scores_and_the_button_sets_the_link() -> None:
    at = open_page(learn_task="induction", **{OFF: "L2 H1", f"{OFF}_kind": "mean"})
    assert_clean(at)
    off = held_out_score(induction_seed_0(), Ablation.of([(1, 0)], "mean"))
    assert metrics(at)["Held-out accuracy, heads off"] == f"{off.accuracy:.1%}"
    assert metrics(at)["Held-out loss, heads off"] == f"{off.loss:.3f}"
    assert any("the model gets" in m.value and "answers right" in m.value for m in at.markdown)
    at.button(key=f"{OFF}_previous_token").click().run()
    assert_clean(at)
    assert at.multiselect(key=OFF).value == ["L1 H2"]
    assert at.query_params[OFF] in ("L1 H2", ["L1 H2"])  # one value: AppTest keeps it bare
    zeroed = held_out_score(induction_seed_0(), Ablation.of([(0, 1)], "mean"))
    assert metrics(at)["Held-out accuracy, heads off"] == f"{zeroed.accuracy:.1%}"


def test_bad_links_are_said_in_words_and_every_head_stays_on() -> None:
    every = ["L1 H1", "L1 H2", "L2 H1", "L2 H2"]
    for value, words in (
        (["L3 H1"], "not valid here"),
        (every, "keep at least one head on"),
        (every * 200, "only heads it has are kept"),
        ([f"L{layer} H1" for layer in range(900)], "only heads it has are kept"),
    ):
        at = open_page(learn_task="induction", **{OFF: value})
        assert_clean(at)
        warnings = " ".join(warning.value for warning in at.warning)
        assert words in warnings.replace("\\", ""), (value[:3], warnings)
        assert "Held-out accuracy, every head on" in metrics(at)


def test_a_model_with_one_head_says_why_it_has_nothing_to_turn_off() -> None:
    at = open_page(learn_task="reverse")
    assert_clean(at)
    assert any("This model has one head" in m.value for m in at.markdown)
    assert not [w for w in at.multiselect if w.key == "learn_reverse_off"]


def test_a_lesson_step_opens_the_model_with_heads_off() -> None:
    """A lesson (and so a class) carries the heads off as a step's setting of several values."""
    off = pack_lists({OFF: ["L1 H2", "L2 H1"]})
    step = LessonStep(
        "learning",
        (("learn_task", "induction"), ("learn_induction_off_kind", "mean"), (LISTS_PARAM, off)),
        "Both heads of the circuit off",
        "",
    )
    lesson = Lesson("Heads off", (step,))
    check_lesson(lesson)
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({LESSON_PARAM: lesson_link(lesson)})
    at.run()
    assert_clean(at)
    assert at.session_state[OFF] == ["L1 H2", "L2 H1"]
    both = held_out_score(induction_seed_0(), Ablation.of([(0, 1), (1, 0)], "mean"))
    assert metrics(at)["Held-out accuracy, heads off"] == f"{both.accuracy:.1%}"
