"""The learning page's model and training settings read from the link (a follower's list)
equal the widgets' own reading, as other pages' settings do (tests/ui/test_control_source.py)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.test_control_source import Link, run_with_link, widget_values
from ui.classroom.listed_settings import CHANGE_HINT
from ui.shared.safe import unescape_markdown


def learning_script(mode: str, task: str) -> None:
    """Read ``task``'s settings as ``mode`` says; keep the configs (or the refusal)."""
    import streamlit as st

    import attention_core as ac
    from ui.classroom import class_session
    from ui.classroom.class_mode import CLASS_MODE
    from ui.classroom.listed_settings import FromLink, NotPlainError
    from ui.learning.state import training_settings
    from ui.shared import page_mode
    from ui.shared.control_source import Drawn

    if mode == "follower":
        st.session_state[class_session.ROLE_KEY] = class_session.Role("ABCDEF")
        st.session_state[class_session.FOLLOWING_KEY] = True
        st.session_state[class_session.BAR_DRAWN_KEY] = True  # as the class bar's run sets
        page_mode.use(CLASS_MODE)  # as app.py's run does for a session in a class
    try:
        if mode == "follower":
            configs = page_mode.current().read_settings(
                lambda source: training_settings(task, source)
            )
        else:
            configs = training_settings(task, Drawn() if mode == "drawn" else FromLink())
        st.session_state["configs"] = configs
    except NotPlainError as refused:
        st.session_state["configs"] = f"not plain: {refused}"
    except ac.InputError as error:
        st.session_state["configs"] = f"refused: {error}"


def opened(link: Link, mode: str, task: str) -> AppTest:
    return run_with_link(learning_script, (mode, task), link)


def drawn_values(at: AppTest) -> dict[str, str]:
    """Every widget's value as it writes it into the link (radios and select sliders too)."""
    from ui.classroom.listed_settings import written

    more = {str(w.key): written(w.value) for w in (*at.radio, *at.select_slider)}
    return widget_values(at) | more


PLAIN: list[tuple[str, Link]] = [
    ("sort", {}),
    ("reverse", {}),
    ("induction", {}),
    (
        "sort",
        {
            "learn_sort_layers": "2",
            "learn_sort_heads": "4",
            "learn_sort_d_model": "64",
            "learn_sort_mlp": "true",
            "learn_sort_lr": "0.01",
            "learn_sort_steps": "300",
            "learn_sort_seed": "7",
        },
    ),
    ("induction", {"learn_induction_mlp": "true", "learn_induction_lr": "0.001"}),
    ("reverse", {"learn_reverse_heads": "1", "learn_reverse_d_model": "16"}),
]


@pytest.mark.parametrize(("task", "link"), PLAIN, ids=str)
def test_a_plain_learning_link_reads_the_same_from_the_link_as_with_the_widgets(
    task: str, link: Link
) -> None:
    drawn, read = opened(link, "drawn", task), opened(link, "link", task)
    assert link.items() <= drawn_values(drawn).items()  # the widgets took every value
    assert read.session_state["configs"] == drawn.session_state["configs"]
    assert not isinstance(read.session_state["configs"], str)
    assert not read.radio and not read.select_slider and not read.slider  # nothing drawn
    assert CHANGE_HINT in read.markdown[0].value


@pytest.mark.parametrize(
    "link",
    [
        {"learn_sort_heads": "3"},  # not offered
        {"learn_sort_lr": "0.02"},
        {"learn_sort_d_model": "16.0"},
        {"learn_sort_mlp": "yes"},
        {"learn_sort_steps": "150"},  # off the slider's step
        {"learn_sort_seed": ["1", "2"]},
    ],
    ids=str,
)
def test_a_learning_value_that_is_not_plain_gives_a_follower_the_widgets(link: Link) -> None:
    assert str(opened(link, "link", "sort").session_state["configs"]).startswith("not plain: ")
    follower, drawn = opened(link, "follower", "sort"), opened(link, "drawn", "sort")
    assert follower.session_state["configs"] == drawn.session_state["configs"]
    assert follower.radio  # the widgets, with their own reading of the link


def test_a_follower_gets_the_teachers_learning_settings_as_a_list() -> None:
    link: Link = {"learn_sort_layers": "2", "learn_sort_lr": "0.03", "learn_sort_seed": "4"}
    follower = opened(link, "follower", "sort")
    assert (
        follower.session_state["configs"] == opened(link, "drawn", "sort").session_state["configs"]
    )
    assert not follower.radio and not follower.number_input
    shown = unescape_markdown(follower.markdown[0].value)
    for line in ("Layers: **2**", "Learning rate: **0.03**", "Seed: **4**", "MLP after"):
        assert line in shown
