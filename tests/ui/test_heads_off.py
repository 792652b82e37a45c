"""The shared heads-off picker: names, the link, and a choice the core refuses (AppTest)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from attention_core.maths.ablation import Ablation
from ui.shared.heads_off import head_label, head_of


def picker_app() -> None:
    import streamlit as st

    from ui.shared.heads_off import heads_off_picker

    st.session_state["ablation"] = heads_off_picker("off", 2, 3)


def test_labels_count_from_one_and_read_back() -> None:
    assert head_label(0, 0) == "L1 H1" and head_label(29, 8) == "L30 H9"
    assert all(head_of(head_label(layer, head)) == (layer, head)
               for layer in range(30) for head in range(9))  # fmt: skip


def test_the_picker_gives_the_cores_ablation_from_the_link() -> None:
    at = AppTest.from_function(picker_app)
    at.query_params["off"] = ["L2 H3", "L1 H1"]
    at.query_params["off_kind"] = "mean"
    at.run()
    assert not at.exception
    assert at.session_state["ablation"] == Ablation.of([(1, 2), (0, 0)], "mean")


def test_every_head_off_is_refused_in_words_and_nothing_is_off() -> None:
    at = AppTest.from_function(picker_app).run()
    at.multiselect(key="off").set_value([head_label(i, j) for i in range(2) for j in range(3)])
    at.run()
    assert at.session_state["ablation"] is None
    assert any("keep at least one head on" in warning.value for warning in at.warning)
