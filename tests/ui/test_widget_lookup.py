"""A widget's lookup of its own key (ui.widget_lookup) answers as Streamlit's full
``filtered_state`` does, on random sessions, and widgets behave as before."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

from ui import widget_lookup

KEYS = ("a", "b", "c", "d")
#: What a run does with each key: nothing, set it to None or to a value, then draw its
#: widget or not (a widget not drawn in a run leaves its value behind in the session).
ACTIONS = hs.tuples(hs.sampled_from(("leave", "none", "value")), hs.booleans())
RUNS = hs.lists(hs.fixed_dictionaries({key: ACTIONS for key in KEYS}), min_size=1, max_size=4)


def compare(plan: list, keys: tuple) -> None:
    """The app: each run acts on the keys as planned, draws each key's widget (a select
    box, a number input, a slider, a text input), then compares the two lookups for every
    key, an unused one, an element id and an internal key."""
    import streamlit as st
    from streamlit.runtime.state import get_session_state

    from ui.widget_lookup import KeyLookup, install

    install()
    run = st.session_state.get("run", 0)
    st.session_state["run"] = run + 1
    for key, (action, drawn) in plan[min(run, len(plan) - 1)].items():
        if action != "leave":  # a slider takes no None (Streamlit refuses it): 3 instead
            empty = action == "none" and key != "c"
            st.session_state[key] = None if empty else {"a": "y", "b": 2.0, "c": 3, "d": "t"}[key]
        if drawn:
            widget = {"a": lambda k: st.selectbox(k, ["x", "y"], key=k),
                      "b": lambda k: st.number_input(k, key=k),
                      "c": lambda k: st.slider(k, 0, 9, key=k),
                      "d": lambda k: st.text_input(k, key=k)}[key]  # fmt: skip
            st.write(repr(widget(key)))
    safe = get_session_state()
    full, lookup = safe.filtered_state, KeyLookup(safe)
    element_ids = [k for k in safe._state._keys() if k.startswith("$$ID")]
    for key in (*keys, "unused", "$$STREAMLIT_INTERNAL_KEY_x", *element_ids):
        assert (key in lookup) == (key in full), key
        if key in full:
            assert lookup[key] == full[key], key
    assert dict(lookup) == full and len(lookup) == len(full)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # fmt: skip
@given(plan=RUNS)
def test_a_widget_finds_its_key_as_the_full_session_state_says(plan: list) -> None:
    at = AppTest.from_function(compare, args=(plan, KEYS))
    for _ in range(len(plan) + 1):
        at.run()
        assert not at.exception, [e.value for e in at.exception]


def none_empties_every_widget() -> None:
    import streamlit as st

    from ui.widget_lookup import install

    install()
    if st.session_state.get("empty"):
        for key in ("box", "radio", "number", "text", "area"):
            st.session_state[key] = None
    values = (
        st.selectbox("box", ["x", "y"], key="box"),
        st.radio("radio", ["x", "y"], key="radio"),
        st.number_input("number", value=1.0, key="number"),
        st.text_input("text", value="t", key="text"),
        st.text_area("area", value="t", key="area"),
    )
    st.write(repr(values))


def test_none_in_session_state_still_empties_each_widget() -> None:
    """The behaviour those lookups exist for: a key set to None shows an empty widget."""
    at = AppTest.from_function(none_empties_every_widget).run()
    assert at.markdown[0].value == "('x', 'x', 1.0, 't', 't')"
    at.session_state["empty"] = True
    at.run()
    assert at.markdown[0].value == "(None, None, None, None, None)"
    assert not at.exception


def test_every_widget_module_reads_the_lookup() -> None:
    import importlib

    widget_lookup.install()
    for name in widget_lookup.WIDGET_MODULES:
        module = importlib.import_module(name)
        assert module.get_session_state is widget_lookup._widget_session_state
        source = Path(module.__file__ or "").read_text()
        assert "get_session_state().filtered_state" in source, name
