"""Every tab of the pretrained page walked as a teacher would, for one model and one sentence.

:func:`walk_every_tab` opens each tab of :data:`ui.pretrained.sections.TABS` by its link, opens
its "Read as a table", opens it again presenting with "Show numbers" on, pages the model view
through every group of layers (by the link, and by its control), draws every head at once in
the head view, opens each head summary and each copying score, reads every download the tabs
offer, and answers every "Check yourself" question. Each run must end without an exception,
every chart must carry a text alternative, every presented chart the projector's sizes (a
plotly figure's title, a walkable matrix's text, cells and decimals).

It takes the model's key in the menu and the sentence, so the same walk serves tiny random
checkpoints (tests/views/test_pretrained_deep.py) and a real model in ``ATTENTION_MODELS_DIR``
(the caller sets the folder, and calls ``fresh_model_menu()`` first).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

import pandas as pd
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from tests.plotly_specs import figures, walkable_matrices
from tests.views.expanders import TABLE, open_expanders
from tests.views.pretrained_pages import PAGE, PLOTLY, PRESENTED, drawn_sizes
from ui.pretrained.sections import MAX_HEADS_DRAWN, TABS

MIN_ALT_CHARS = 20  #: a text alternative says what the chart shows, not just "chart"


def run(target: AppTest | Widget) -> AppTest:
    """The page run once more (``target``: it, or a widget just set), with no exception and a
    text alternative on every chart."""
    at = target.run()
    assert not at.exception, [e.value for e in at.exception]
    for chart in at.get("plotly_chart"):
        assert len(chart.proto.alt) > MIN_ALT_CHARS, chart.proto.alt
    for spec in walkable_matrices(at):  # read on entering the grid
        assert len(spec["walkable"]["summary"]) > MIN_ALT_CHARS, spec["walkable"]["summary"]
    return at


def opened(model: str, text: str, *, present: bool = False, **params: str) -> AppTest:
    """The page on ``model`` and ``text`` with the link's other ``params``, run once."""
    at = AppTest.from_file(PAGE, default_timeout=300)
    if present:
        at.session_state["present"] = True
    at.query_params.update({"model": model, "text": text, **params})
    return run(at)


def titles(at: AppTest) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in figures(at)]


@contextmanager
def recorded_downloads() -> Iterator[dict[str, Callable[[], bytes]]]:
    """Every download button drawn meanwhile, by widget key: the function that makes its file."""
    made: dict[str, Callable[[], bytes]] = {}
    original = st.download_button

    def recording(label, data, *args, key=None, **kwargs):
        made[key] = data
        return original(label, data, *args, key=key, **kwargs)

    with mock.patch.object(st, "download_button", recording):
        yield made


def walk_tab(model: str, text: str, label: str, length: int) -> list[str]:
    """One tab: its tables opened; then presenting, with numbers and every download read."""
    at = open_expanders(opened(model, text, view=label), TABLE)
    assert not at.exception, [e.value for e in at.exception]
    shown = titles(at)
    with recorded_downloads() as made:
        presenting = opened(model, text, present=True, view=label, numbers="true")
        presenting = open_expanders(presenting, PLOTLY)  # each walkable's plotly heatmap too
        assert not presenting.exception, [e.value for e in presenting.exception]
    sizes = drawn_sizes(presenting)
    assert sizes <= PRESENTED, (label, sizes)
    for key, make in made.items():
        table = pd.read_csv(io.BytesIO(make()), index_col=0)
        assert len(table) == length and table.size, (key, table.shape)
    return shown


def model_view_grid(at: AppTest) -> dict:
    """The model view's figure of the run."""
    (grid,) = [spec for spec in figures(at) if spec["layout"]["title"]["text"].startswith(
        "Model view")]  # fmt: skip
    return grid


def walk_model_view(model: str, text: str, n_layers: int, n_heads: int) -> list[str]:
    """Every group of layers by the "Layers" control, each with every head of its layers; the
    first, a middle and the last group again by their link."""
    at = opened(model, text, view="Model view")
    pagers = [w for w in at.button_group if w.key == "layers"]
    groups = pagers[0].options if pagers else [f"1-{n_layers}"]
    seen = []
    for group in groups:
        if pagers:
            run(at.button_group(key="layers").set_value(group))
        first, _, last = group.partition("-")
        shown = range(int(first), int(last or first) + 1)
        grid = model_view_grid(at)
        panels = [a["text"] for a in grid["layout"]["annotations"] if a.get("text")]
        assert panels == [f"L{lay} H{head}" for lay in shown for head in range(1, n_heads + 1)]
        seen.append(grid["layout"]["title"]["text"])
    for index in sorted({0, len(groups) // 2, len(groups) - 1}) if pagers else []:
        linked = opened(model, text, view="Model view", layers=groups[index])
        assert model_view_grid(linked)["layout"]["title"]["text"] == seen[index]
    return seen


def walk_controls(model: str, text: str, n_heads: int) -> None:
    """The tabs' own controls at their extremes: every head drawn from every token, each
    head summary, each copying score and its strongest heads' buttons."""
    at = opened(model, text, view="Head view", all_queries="true")
    run(at.multiselect(key="heads").set_value(list(range(1, min(n_heads, MAX_HEADS_DRAWN) + 1))))
    at = opened(model, text, view="Head summary")
    for preset in at.selectbox(key="preset").options:
        run(at.selectbox(key="preset").set_value(preset))
    at = opened(model, text, view="Heads that copy")
    for detector in at.selectbox(key="detector").options:
        run(at.selectbox(key="detector").set_value(detector))
    opener = next(b for b in at.button if b.key and b.key.startswith("copy_open_"))
    run(opener.click())
    assert any(title.startswith("Head view · layer") for title in titles(at))


def answer_every_question(model: str, text: str) -> int:
    """Each "Check yourself" question answered and checked; a verdict for each."""
    at = opened(model, text)
    checks = [b for b in at.button if b.key and b.key.endswith("_check")]
    for button in checks:
        answer = button.key.removesuffix("_check") + "_answer"
        choices = [w for w in at.selectbox if w.key == answer]
        if choices:
            choices[0].set_value(choices[0].options[0])
        else:
            at.number_input(key=answer).set_value(0.5)
        run(at.button(key=button.key).click())
    assert len([*at.success, *at.error]) == len(checks)
    return len(checks)


def walk_every_tab(model: str, text: str) -> dict[str, list[str]]:
    """The whole walk (see the module); returns each tab's figure titles, as first drawn."""
    at = opened(model, text)
    n_layers = len(at.selectbox(key="layer").options)
    n_heads = len(at.selectbox(key="head").options)
    length = len(at.selectbox(key="query").options)
    shown = {tab.label: walk_tab(model, text, tab.label, length) for tab in TABS}
    shown["Model view pages"] = walk_model_view(model, text, n_layers, n_heads)
    walk_controls(model, text, n_heads)
    assert answer_every_question(model, text) >= 4
    return shown
