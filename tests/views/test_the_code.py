""" "The code" beside every step: the source shown is the function that computed the matrix.

For each stage of the text page and each walkthrough step, the page shows the
source of some core functions. These tests check (1) that the code blocks on the
page are exactly ``inspect.getsource`` of the functions ``ui.text.stage_arrays.stage_code``
names, and (2) that calling the first of those functions on the run's inputs
gives the very numbers the page drew — so the code shown is the code that ran.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.maths import attention, positional
from tests.plotly_specs import decode, figure_titled
from tests.views.expanders import CODE, open_expanders
from ui.text.stage_arrays import stage_code
from ui.walkthrough.lecture import LECTURE_CODE

ROOT = Path(__file__).resolve().parents[2]
TEXT_PAGE = str(ROOT / "views" / "text.py")
APP = str(ROOT / "app.py")
SENTENCE = "The cat sat on the mat because it was warm."


def text_page(**params: str) -> AppTest:
    at = AppTest.from_file(TEXT_PAGE, default_timeout=60)
    at.query_params["text"] = SENTENCE
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_code(at: AppTest) -> list[str]:
    """The code blocks once every "The code" is open (st.code drops the final newline)."""
    open_expanders(at, CODE)
    assert not at.exception, [e.value for e in at.exception]
    return [block.value.strip() for block in at.code]


def source(function: Callable) -> str:
    return inspect.getsource(function).strip()


def run_for(**settings: object) -> ac.AttentionRun:
    config = ac.AttentionConfig(**settings)
    return ac.run_text_attention(ac.tokenize(SENTENCE).tokens, config)


def drawn(at: AppTest, title: str) -> np.ndarray:
    """The z values of the heatmap titled ``title``; masked cells come back as NaN."""
    return decode(figure_titled(at, title)["data"][0]["z"]).astype(float)


def assert_same_where_drawn(drawn_z: np.ndarray, computed: np.ndarray) -> None:
    """Equal numbers in every drawn cell; empty (masked) cells hold -inf or a weight of 0."""
    cells = np.isfinite(drawn_z)
    assert cells.any()
    np.testing.assert_allclose(drawn_z[cells], computed[cells], rtol=1e-6, atol=1e-6)
    hidden = computed[~cells]
    assert np.all(np.isneginf(hidden) | (hidden == 0))


# (tab, link settings, config, stage, title, recompute(first shown function, run) -> matrix)
Recompute = Callable[[Callable, ac.AttentionRun], np.ndarray]
CASES: list[tuple[str, dict[str, str], dict[str, object], str, str, Recompute]] = [
    (
        "3 Q K V",
        {},
        {},
        "q",
        "Queries Q · head 1",
        lambda f, run: f(run.x + run.p, run.projections.w_q, 2)[0],
    ),
    (
        "4 Weights",
        {},
        {},
        "scores",
        "Raw scores QKᵀ · head 1",
        lambda f, run: f(run.trace.q, run.trace.k)[0],
    ),
    (
        "4 Weights",
        {"scale": "temperature", "temperature": "0.5"},
        {"scaling": "temperature", "temperature": 0.5},
        "scaled",
        "Scaled scores · head 1",
        lambda f, run: f(run.trace.scores, run.trace.scale)[0],
    ),
    (
        "4 Weights",
        {"mask": "causal"},
        {"mask": "causal"},
        "masked",
        "Masked scores · head 1",
        lambda f, run: f(run.trace.scaled, run.mask)[0],
    ),
    (
        "4 Weights",
        {"mask": "causal"},
        {"mask": "causal"},
        "weights",
        "Attention weights · head 1",
        lambda f, run: f(run.trace.masked)[0],
    ),
    (
        "4 Weights",
        {"normaliser": "hardmax"},
        {"normaliser": "hardmax"},
        "weights",
        "Attention weights · head 1",
        lambda f, run: f(run.trace.masked)[0],
    ),
    (
        "6 Output",
        {},
        {},
        "context",
        "Context vectors C · head 1",
        lambda f, run: f(run.trace.weights, run.trace.v)[0],
    ),
    (
        "6 Output",
        {},
        {},
        "concat",
        "Heads side by side",
        lambda f, run: f(run.trace.context),
    ),
    (
        "6 Output",
        {},
        {},
        "output",
        "Output",
        lambda f, run: f(run.trace.context, run.projections),
    ),
    (
        "6 Output",
        {"combine": "mean"},
        {"combine": "mean"},
        "output",
        "Output",
        lambda f, run: f(run.trace.context, run.projections),
    ),
    (
        "2 Positions",
        {},
        {},
        "p",
        "Positional encoding P",
        lambda f, run: f(len(run.x), 16),
    ),
    (
        "2 Positions",
        {"pe": "learned"},
        {"positional": "learned"},
        "p",
        "Positional encoding P",
        lambda f, run: f(len(run.x), 16, 0),
    ),
]


@pytest.mark.parametrize(
    ("tab", "params", "settings", "stage", "title", "recompute"),
    CASES,
    ids=[f"{case[3]}-{'-'.join(case[1].values()) or 'default'}" for case in CASES],
)
def test_the_code_shown_is_the_function_that_computed_the_drawn_matrix(
    tab: str,
    params: dict[str, str],
    settings: dict[str, object],
    stage: str,
    title: str,
    recompute: Recompute,
) -> None:
    at = text_page(view=tab, **params)
    run = run_for(**settings)
    functions = stage_code(stage, run.config)
    sources = shown_code(at)
    for function in functions:
        assert source(function) in sources, function.__name__
    assert_same_where_drawn(drawn(at, title), recompute(functions[0], run))


def test_every_stage_on_every_tab_has_its_code_expander() -> None:
    for tab, stages in {
        "1 Tokens": ("tokens", "x"),
        "2 Positions": ("p", "x_plus_p"),
        "3 Q K V": ("q", "k", "v"),
        "4 Weights": ("scores", "scaled", "masked", "weights"),
        "5 Head view": ("head_view",),
        "6 Output": ("context", "concat", "output"),
    }.items():
        at = text_page(view=tab)
        assert sum(e.label == "The code" for e in at.expander) == len(stages), tab
        config = ac.AttentionConfig()
        expected = {source(f) for s in stages for f in stage_code(s, config)}
        assert expected <= set(shown_code(at)), tab


def test_rotary_queries_show_the_rotation_beside_the_projection() -> None:
    at = text_page(view="3 Q K V", pe="rotary")
    run = run_for(positional="rotary")
    functions = stage_code("q", run.config)
    assert attention.project in functions and positional.rotate in functions
    rotated = functions[2](functions[0](run.x + run.p, run.projections.w_q, 2))[0]
    assert_same_where_drawn(drawn(at, "Queries Q · head 1"), rotated)


def test_the_code_names_the_file_and_function_it_comes_from() -> None:
    at = open_expanders(text_page(view="4 Weights"), CODE)
    captions = [c.value for c in at.caption]
    assert "attention_core/maths/attention.py · softmax" in captions
    assert "attention_core/maths/attention.py · mask_scores" in captions


@pytest.mark.parametrize("step", range(1, 7))
def test_every_walkthrough_step_shows_the_code_of_the_functions_it_uses(step: int) -> None:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["step"] = str(step)
    at.run()
    at.switch_page("views/walkthrough.py").run()
    assert not at.exception, [e.value for e in at.exception]
    sources = shown_code(at)
    for function in LECTURE_CODE[step]:
        assert source(function) in sources, (step, function.__name__)


def test_walkthrough_masking_step_draws_what_its_shown_functions_compute() -> None:
    from attention_core.maths import attention
    from attention_core.teaching import examples, pitfalls, walkthrough_steps

    assert LECTURE_CODE[4][:3] == (
        walkthrough_steps.masking_comparison,
        attention.mask_scores,
        attention.softmax,
    )
    scaled = examples.five_day_attention(masked=False).scaled
    mask = np.tri(5, dtype=bool)
    shown = walkthrough_steps.five_day_masking()
    np.testing.assert_array_equal(
        shown.right, attention.softmax(attention.mask_scores(scaled, mask))
    )
    np.testing.assert_array_equal(
        shown.multiplied, pitfalls.multiplicative_mask_pitfall(scaled, mask)
    )
