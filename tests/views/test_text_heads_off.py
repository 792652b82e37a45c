"""The text page's heads-off experiment (ui/text/heads_off.py) with AppTest: a link with heads
off reproduces the output the core computes without them, for every head combination, and
bad link values are said in words, never as a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.plotly_specs import decode, figure_titled, figures
from ui.shared.safe import unescape_markdown

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "text.py")
SENTENCE = "the cat sat on the mat"  # 6 tokens; "the" repeats, labelled "the₂"
CHANGE_TITLE = "Change: output with the heads off"


def run_page(**params: str | list[str]) -> AppTest:
    """Run the page once on the output tab with these URL query parameters."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in {"text": SENTENCE, "view": "6 Output", **params}.items():
        at.query_params[key] = value
    return at.run()


def warnings(at: AppTest) -> list[str]:
    return [unescape_markdown(warning.value) for warning in at.warning]


def titles(at: AppTest) -> set[str]:
    return {figure["layout"]["title"]["text"] for figure in figures(at)}


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("combine", list(ac.COMBINATIONS))
def test_a_link_with_heads_off_shows_the_cores_output_without_them(combine: str) -> None:
    at = run_page(heads="4", combine=combine, off=["L1 H2", "L1 H4"], off_kind="mean")
    assert_clean(at)
    assert not at.warning
    assert at.multiselect(key="off").value == ["L1 H2", "L1 H4"]
    assert at.radio(key="off_kind").value == "mean"
    tokens = ac.tokenize(SENTENCE).tokens
    config = ac.AttentionConfig(n_heads=4, combine=combine)
    intact = ac.run_text_attention(tokens, config)
    off = ac.run_text_attention(tokens, config, ablation=ac.Ablation.of([(0, 1), (0, 3)], "mean"))
    expected = off.trace.output - intact.trace.output  # (T, d_model)
    (heatmap,) = [t for t in figure_titled(at, CHANGE_TITLE)["data"] if t["type"] == "heatmap"]
    np.testing.assert_allclose(decode(heatmap["z"]), expected, rtol=0, atol=1e-5)
    change = ac.output_change(intact.trace.output, off.trace.output)
    table = at.dataframe[-1].value
    labels = ac.tokenize(SENTENCE).labels
    assert list(table["token"]) == [labels[row] for row in change.order]
    np.testing.assert_allclose(table["moved ‖ΔO_t‖"], change.moved[change.order], atol=1e-4)
    words = next(unescape_markdown(m.value) for m in at.markdown if "changed most" in m.value)
    assert words.startswith(f'The rows that changed most: "{labels[change.order[0]]}" moved by')
    labels_shown = {metric.label for metric in at.metric}
    assert labels_shown == {"Largest row change ‖ΔO_t‖", "Mean row change"}


def test_without_heads_off_the_section_asks_for_heads_and_draws_no_change() -> None:
    at = run_page()
    assert_clean(at)
    assert at.multiselect(key="off").value == []
    assert any("Choose one or more heads" in info.value for info in at.info)
    assert not any(m.value.startswith("The rows that changed") for m in at.markdown)


def test_choosing_a_head_draws_the_output_without_it_beside_the_intact_one() -> None:
    at = run_page()
    at.multiselect(key="off").select("L1 H1").run()  # the link: tests/browser
    assert_clean(at)
    assert {"Output with every head on", "Output with the heads off"} <= titles(at)
    figure_titled(at, CHANGE_TITLE)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"off": ["L1 H9"]}, "off=L1 H9"),
        ({"off": ["L1 H7", "L1 H1"]}, "off=L1 H7"),  # not only a link's last value
        ({"off": ["L2 H1"]}, "off=L2 H1"),
        ({"off": ["L1 H1"], "off_kind": "bogus"}, "off_kind=bogus"),
        ({"off": ["L1 H1", "L1 H2"]}, "keep at least one head on"),  # two heads by default
        ({"off": ["L1 H1"] * 900}, None),  # a long list of one head is that head
        ({"off": [f"L1 H{n}" for n in range(900)]}, "off=L1 H0, L1 H3, L1 H4"),
        ({"off": ["<b>x</b>" * 2000]}, "off=<b>x</b>"),
    ],
    ids=[
        "no such head",
        "first of two",
        "no such layer",
        "no such kind",
        "all off",
        "repeated",
        "huge",
        "long",
    ],
)
def test_bad_heads_in_the_link_are_said_in_words_and_the_page_still_runs(
    params: dict, words: str | None
) -> None:
    at = run_page(**params)
    assert_clean(at)
    if words is None:
        assert not at.warning
    else:
        assert any(words in warning for warning in warnings(at)), warnings(at)
    assert "Output" in titles(at)  # the intact output is drawn either way
