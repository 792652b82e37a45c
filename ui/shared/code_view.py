""" "The code": the source of the core function that computed what a step shows.

The lines come from the function object itself (:func:`inspect.getsource`), so
what a student reads is exactly what ran, never a copy that could drift.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]


@cache
def source_of(function: Callable) -> str:
    """The source lines of ``function`` as they are in its file (cached per process)."""
    return inspect.getsource(function)


@cache
def where(function: Callable) -> str:
    """``attention_core/maths/attention.py · softmax``: the file and name of ``function``."""
    path = Path(inspect.getsourcefile(function) or "").resolve()
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return f"{shown.as_posix()} · {function.__name__}"


def show_code(functions: Sequence[Callable], *, expanded: bool = False) -> None:
    """An expander "The code" with each function's source, named by file and function."""
    if not functions:
        return
    with st.expander("The code", expanded=expanded, icon=":material/code:"):
        for function in functions:
            st.caption(where(function))
            st.code(source_of(function), language="python")
