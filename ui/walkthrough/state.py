"""The walkthrough's navigation: the lecture step picker, bound to the URL as ``step``.

:func:`read_state` draws it and returns a :class:`WalkthroughState`. Each step's
own controls (keys starting with :data:`PREFIX`) are drawn inside that step.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.figures.style import FigureStyle
from ui.shared.presentation import current_style
from ui.shared.url import BIND
from ui.walkthrough.lecture import LECTURE_STEPS

PREFIX = "wt_"
#: The URL key of the lecture step (``?step=3``).
LECTURE_STEP_KEY = "step"
#: The URL key of step 2's open worked example (its tab's label).
EXAMPLE_KEY = f"{PREFIX}example"
N_LECTURE_STEPS = len(LECTURE_STEPS)
#: Every URL key the page binds; a refused link value for them is named in a warning.
URL_KEYS = (
    LECTURE_STEP_KEY,
    *(
        f"{PREFIX}{name}"
        for name in (
            "query_0",
            "query_1",
            "n_keys",
            "head_width",
            "combine",
            "grad_seed",
            "grad_causal",
        )
    ),
    EXAMPLE_KEY,
)


@dataclass(frozen=True)
class WalkthroughState:
    """The lecture step shown (1-based) and the figure style."""

    lecture_step: int
    style: FigureStyle


# --- Navigation --------------------------------------------------------------


def _valid_lecture_step(value: object) -> int | None:
    """``value`` if it is a step number 1..N, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= N_LECTURE_STEPS:
        return value
    return None


def _move(delta: int) -> None:
    """Button callback: go ``delta`` steps forward or back, staying in 1..N."""
    current = _valid_lecture_step(st.session_state.get(LECTURE_STEP_KEY)) or 1
    st.session_state[LECTURE_STEP_KEY] = min(N_LECTURE_STEPS, max(1, current + delta))


def read_state() -> WalkthroughState:
    """Previous / step picker / next, and "Step k of N"; the current step (1-based)."""
    # The key is shared by the whole session (the text page also uses "step"):
    # anything that is not a step number starts the lecture at step 1.
    if _valid_lecture_step(st.session_state.get(LECTURE_STEP_KEY)) is None:
        st.session_state[LECTURE_STEP_KEY] = 1
    left, middle, right = st.columns([1, 4, 1], vertical_alignment="bottom")
    # The picker goes first: a ?step= in the URL only takes effect when it is drawn.
    picked = middle.segmented_control(
        "Step",
        tuple(range(1, N_LECTURE_STEPS + 1)),
        required=True,
        key=LECTURE_STEP_KEY,
        bind=BIND,
        help=" · ".join(f"{n}: {t}" for n, t in enumerate(LECTURE_STEPS, 1)),
    )
    lecture_step = _valid_lecture_step(picked) or 1
    left.button(
        "← Previous",
        key="step_previous",
        on_click=_move,
        args=(-1,),
        disabled=lecture_step <= 1,
        width="stretch",
    )
    right.button(
        "Next →",
        key="step_next",
        on_click=_move,
        args=(1,),
        disabled=lecture_step >= N_LECTURE_STEPS,
        width="stretch",
        type="primary",
    )
    st.markdown(f"**Step {lecture_step} of {N_LECTURE_STEPS}**")
    return WalkthroughState(lecture_step, current_style())
