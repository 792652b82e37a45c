"""The classroom walkthrough (through app.py, with AppTest); its core: tests/core/teaching."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching import gradcheck, score_scaling, soft_lookup, walkthrough_steps
from tests.plotly_specs import charts, decode, figures, held, walkable_matrices
from ui.figures.style import NORMAL
from ui.walkthrough import cache
from ui.walkthrough.lecture import LECTURE_STEPS

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "views/walkthrough.py"


def open_page(**query_params: str) -> AppTest:
    """Run app.py with ``query_params`` in the URL, then the walkthrough page.

    The timeout is generous because step 6 imports PyTorch.
    """
    at = AppTest.from_file(APP, default_timeout=90)
    for name, value in query_params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(PAGE).run()


def shown_step(at: AppTest) -> int:
    counters = [m.value for m in at.markdown if m.value.startswith("**Step ")]
    assert len(counters) == 1, counters
    return int(counters[0].split()[1])


def code_text(at: AppTest) -> str:
    return "\n".join(block.value for block in at.code)


# --- Navigation --------------------------------------------------------------


@pytest.mark.parametrize("step", range(1, 7))
def test_every_step_renders_with_counter_title_and_formula(step: int) -> None:
    at = open_page(step=str(step))
    assert not at.exception
    assert not at.error
    assert shown_step(at) == step
    assert at.markdown[[m.value for m in at.markdown].index(f"**Step {step} of 6**")]
    assert at.header[0].value == LECTURE_STEPS[step - 1]
    assert at.latex, "every step shows its formula"
    assert charts(at), "every step shows live numbers in a figure"


def test_next_and_previous_move_the_step_and_the_url() -> None:
    at = open_page()
    assert shown_step(at) == 1
    assert at.button(key="step_previous").disabled
    at.button(key="step_next").click().run()
    assert shown_step(at) == 2
    assert at.query_params["step"] == "2"
    at.button(key="step_next").click().run()
    at.button(key="step_previous").click().run()
    assert shown_step(at) == 2
    for _ in range(4):
        at.button(key="step_next").click().run()
    assert shown_step(at) == 6
    assert at.button(key="step_next").disabled
    assert not at.exception


def test_step_in_the_url_opens_that_step_with_both_buttons_usable() -> None:
    at = open_page(step="4")
    assert shown_step(at) == 4
    assert at.header[0].value == LECTURE_STEPS[3]
    assert not at.button(key="step_previous").disabled
    at.button(key="step_previous").click().run()
    assert shown_step(at) == 3


def test_picking_a_step_in_the_step_control_jumps_there() -> None:
    at = open_page()
    at.segmented_control(key="step").set_value(5).run()
    assert shown_step(at) == 5


@pytest.mark.parametrize("value", ["99", "abc", "0", "-1", "2.5", "<b>3</b>", ""])
def test_bad_step_in_the_url_opens_step_one(value: str) -> None:
    at = open_page(step=value)
    assert not at.exception
    assert shown_step(at) == 1


@pytest.mark.parametrize(
    "params",
    [
        {"step": "1", "wt_query_0": "abc", "wt_query_1": "99"},
        {"step": "3", "wt_n_keys": "-4"},
        {"step": "5", "wt_head_width": "5", "wt_combine": "../../etc"},
        {"step": "6", "wt_grad_seed": "-1", "wt_grad_causal": "maybe"},
    ],
)
def test_bad_step_settings_in_the_url_are_ignored(params: dict[str, str]) -> None:
    at = open_page(**params)
    assert not at.exception
    assert not at.error
    assert shown_step(at) == int(params["step"])


@pytest.mark.parametrize("stale", ["1 Tokens", None, 99, True])
def test_a_stale_value_under_the_shared_step_key_starts_at_step_one(stale: object) -> None:
    # A non-number left under "step" (an old link, another page) must not break the page.
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.session_state["step"] = stale
    at.switch_page(PAGE).run()
    assert not at.exception
    assert shown_step(at) == 1
    at.button(key="step_next").click().run()
    assert shown_step(at) == 2


def test_going_to_the_text_page_and_back_keeps_working() -> None:
    at = open_page(step="3")
    at.switch_page("views/text.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    at.button(key="step_next").click().run()
    assert not at.exception
    assert 1 <= shown_step(at) <= 6


def test_presentation_mode_enlarges_the_figure_fonts() -> None:
    """Step 4's matrices are walkable: their numbers' font (and cells) grow for the room."""
    normal = walkable_matrices(open_page(step="4"))
    presenting = walkable_matrices(open_page(step="4", present="1"))
    assert len(normal) == len(presenting) == 3
    for small, large in zip(normal, presenting, strict=True):
        assert large["walkable"]["font_px"] > small["walkable"]["font_px"]
        assert large["walkable"]["cell_px"] > small["walkable"]["cell_px"]


# --- One view, many sessions ----------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"step": "1", "wt_query_0": "2.0"},
        {"step": "2"},
        {"step": "2", "wt_example": "Five days (time-series notes)"},
        {"step": "3", "wt_n_keys": "16"},
        {"step": "4", "present": "1"},
        {"step": "5", "wt_head_width": "6", "wt_combine": "max"},
    ],
)
def test_two_sessions_on_one_view_draw_the_same_charts_and_tables(params: dict[str, str]) -> None:
    first, second = open_page(**params), open_page(**params)
    assert figures(first) == figures(second)
    assert [t.proto.arrow_data.data for t in first.dataframe] == [
        t.proto.arrow_data.data for t in second.dataframe
    ]


def test_drawing_a_shared_figure_leaves_it_as_it_was() -> None:
    open_page(step="4")
    view = cache.masking_view(NORMAL)
    before = [held(panel.figure) for panel in view.panels]
    drawn = figures(open_page(step="4"))  # another session draws the very same figures
    assert cache.masking_view(NORMAL) is view
    assert [held(panel.figure) for panel in view.panels] == before
    assert [f["layout"]["title"]["text"] for f in drawn] == [
        json.loads(text)["layout"]["title"]["text"] for text in before
    ]


# --- Step 1: soft lookup -----------------------------------------------------


def test_lookup_weights_follow_the_query_sliders() -> None:
    at = open_page(step="1")
    at.slider(key="wt_query_0").set_value(2.0)
    at.slider(key="wt_query_1").set_value(0.0).run()
    bars = next(t for t in figures(at)[0]["data"] if t["type"] == "bar")
    expected = soft_lookup.soft_lookup(
        np.array([2.0, 0.0]), ac.examples.LOOKUP_KEY_VECTORS, ac.examples.LOOKUP_VALUE_VECTORS
    )
    np.testing.assert_allclose(decode(bars["y"]), expected.weights, atol=1e-12)
    assert list(bars["x"]) == list(ac.examples.LOOKUP_VALUES)
    assert any("**painter**" in m.value for m in at.markdown)


# --- Step 2: the documents' numbers ---------------------------------------------


def test_all_twelve_printed_four_word_numbers_appear() -> None:
    text = code_text(open_page(step="2"))
    for number in (
        "0.98522025",
        "1.74174051",
        "0.75652026",
        "0.90965265",
        "1.40965265",
        "0.5",
        "0.99851226",
        "1.75849334",
        "0.75998108",
        "0.99560386",
        "1.90407309",
        "0.90846923",
    ):
        assert text.count(number) >= 2, number  # the notes' print and ours, digit for digit


FIVE_DAYS = "Five days (time-series notes)"
COOL = "“attention is cool” (transformer notes)"


@pytest.mark.parametrize(
    ("example", "titles"),
    [
        (None, ["Attention weights (4, 4)"]),
        ("Four words (NLP notes)", ["Attention weights (4, 4)"]),
        (
            COOL,
            ["Weights W (3, 3)", "Values V (3, 4)", "Context vectors C = W V (3, 4)"],
        ),
    ],
)
def test_step_2_builds_only_the_example_its_link_opens(example: str | None, titles: list) -> None:
    """The three examples are tabs: only the open one is built (a follower's run pays for
    one), and the link holds it, so a shared link opens the same example."""
    at = open_page(step="2", **({} if example is None else {"wt_example": example}))
    assert [spec["layout"]["title"]["text"] for spec in walkable_matrices(at)] == titles
    default = example in (None, "Four words (NLP notes)")  # a default is not in a link
    assert at.query_params.get("wt_example") == (None if default else example)
    assert not at.exception


def test_five_day_printed_weights_and_outputs_appear_masked_and_unmasked() -> None:
    at = open_page(step="2", wt_example=FIVE_DAYS)
    text = code_text(at)
    for number in (
        "0.174",
        "0.252",
        "0.651",
        "0.748",
        "0.669",  # weights, both versions
        "0.37394319",
        "-0.99867639",
        "-0.0746334",
        "-1.86951904",
    ):  # outputs
        assert number in text, number
    assert any("rounded to 3 decimals" in info.value for info in at.info)


def test_attention_is_cool_entry_arithmetic_is_spelled_out() -> None:
    at = open_page(step="2", wt_example=COOL)
    assert "C₀₀ = 1.0·0.1 + 0.0·0.4 + 0.0·0.1 = 0.1" in [t.value for t in at.text]
    assert any(r"C_{00} = 1.0 \cdot 0.1" in latex.value for latex in at.latex)
    at.selectbox(key="wt_cool_row").set_value(2)
    at.selectbox(key="wt_cool_column").set_value(1).run()
    assert "C₂₁ = 0.2·0.2 + 0.5·0.24 + 0.3·0.8 = 0.4" in [t.value for t in at.text]


def test_five_day_weights_rounded_like_the_notes_match_exactly() -> None:
    for masked in (False, True):
        result = walkthrough_steps.five_day_reproduction(masked)
        assert result.weights_difference == 0.0
        assert result.rounded_output_difference < 1e-8  # the notes print 8 decimals
        assert result.exact_output_difference > 1e-4  # their rounding is visible


def test_four_words_match_the_printed_output() -> None:
    trace = ac.examples.four_words_attention()
    assert (
        walkthrough_steps.printed_difference(trace.context, ac.examples.FOUR_WORDS_PRINTED_OUTPUT)
        < 1e-8
    )


def test_context_entry_terms_reproduce_the_slides() -> None:
    entry = walkthrough_steps.context_entry(ac.examples.COOL_WEIGHTS, ac.examples.COOL_VALUES, 0, 0)
    assert entry.terms == ((1.0, 0.1), (0.0, 0.4), (0.0, 0.1))
    assert entry.value == ac.examples.COOL_PRINTED_C00
    with pytest.raises(ac.InputError):
        walkthrough_steps.context_entry(ac.examples.COOL_WEIGHTS, ac.examples.COOL_VALUES, 3, 0)


# --- Step 3: scaling -------------------------------------------------------------


def test_scaling_step_shows_the_core_table() -> None:
    at = open_page(step="3", wt_n_keys="16")
    frame = at.dataframe[0].value
    table = score_scaling.softmax_saturation(n_keys=16)
    np.testing.assert_allclose(
        frame["largest weight, unscaled"], table.max_weight_unscaled, atol=1e-3
    )
    assert list(frame["d"]) == [4, 16, 64, 256, 512]


# --- Step 4: masking -----------------------------------------------------------


def test_masking_step_plots_the_three_variants() -> None:
    at = open_page(step="4")
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert titles == ["Right: −∞, then softmax", "Wrong: × 0/1 mask", "Wrong: column softmax"]
    result = walkthrough_steps.five_day_masking()
    plotted = decode(figures(at)[1]["data"][0]["z"])
    np.testing.assert_allclose(plotted, result.multiplied, atol=1e-6)
    assert any("e⁰ = 1" in warning.value for warning in at.warning)


# --- Step 5: heads ---------------------------------------------------------------


def test_heads_step_shows_one_panel_per_head_and_the_chosen_combination() -> None:
    at = open_page(step="5", wt_head_width="6", wt_combine="max")
    assert any("**2 heads**" in m.value for m in at.markdown)
    grid = figures(at)[0]
    assert len(grid["data"]) == 2
    output = figures(at)[1]
    example = walkthrough_steps.multi_head_example(head_width=6)
    np.testing.assert_allclose(decode(output["data"][0]["z"]), example.combined["max"], atol=1e-6)


# --- Step 6: learning --------------------------------------------------------------


def test_backward_pass_step_agrees_with_autograd() -> None:
    at = open_page(step="6")
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["matrix"]) == list(gradcheck.GRADIENT_NAMES)
    differences = [float(value) for value in frame["max |hand − autograd|"]]
    assert max(differences) < 1e-9
    assert any("agree" in message.value for message in at.success)


def test_torch_is_imported_only_when_step_six_is_shown() -> None:
    script = f"""
import sys
from streamlit.testing.v1 import AppTest
for step in range(1, 6):
    at = AppTest.from_file({APP!r}, default_timeout=60)
    at.query_params["step"] = str(step)
    at.run()
    at.switch_page({PAGE!r}).run()
    assert not at.exception, step
print("torch" in sys.modules)
"""
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "False"
