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
from ui.walkthrough.lecture import STEP_TITLES

PREFIX = "wt_"
STEP_KEY = "step"
N_STEPS = len(STEP_TITLES)
#: Every URL key the page binds; a refused link value for them is named in a warning.
URL_KEYS = (
    STEP_KEY,
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
)


@dataclass(frozen=True)
class WalkthroughState:
    """The lecture step shown (1-based) and the figure style."""

    step: int
    style: FigureStyle


# --- Navigation --------------------------------------------------------------


def _valid_step(value: object) -> int | None:
    """``value`` if it is a step number 1..N, else None."""
    is_step = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= N_STEPS
    return value if is_step else None


def _move(delta: int) -> None:
    """Button callback: go ``delta`` steps forward or back, staying in 1..N."""
    current = _valid_step(st.session_state.get(STEP_KEY)) or 1
    st.session_state[STEP_KEY] = min(N_STEPS, max(1, current + delta))


def read_state() -> WalkthroughState:
    """Previous / step picker / next, and "Step k of N"; the current step (1-based)."""
    # The key is shared by the whole session (the text page also uses "step"):
    # anything that is not a step number starts the lecture at step 1.
    if _valid_step(st.session_state.get(STEP_KEY)) is None:
        st.session_state[STEP_KEY] = 1
    left, middle, right = st.columns([1, 4, 1], vertical_alignment="bottom")
    # The picker goes first: a ?step= in the URL only takes effect when it is drawn.
    step = middle.segmented_control(
        "Step",
        tuple(range(1, N_STEPS + 1)),
        required=True,
        key=STEP_KEY,
        bind=BIND,
        help=" · ".join(f"{n}: {t}" for n, t in enumerate(STEP_TITLES, 1)),
    )
    step = _valid_step(step) or 1
    left.button(
        "← Previous",
        key="step_previous",
        on_click=_move,
        args=(-1,),
        disabled=step <= 1,
        width="stretch",
    )
    right.button(
        "Next →",
        key="step_next",
        on_click=_move,
        args=(1,),
        disabled=step >= N_STEPS,
        width="stretch",
        type="primary",
    )
    st.markdown(f"**Step {step} of {N_STEPS}**")
    return WalkthroughState(step, current_style())
