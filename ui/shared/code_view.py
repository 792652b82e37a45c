""" "The code": the source of the core function that computed what a step shows.

The lines come from the function object itself (:func:`inspect.getsource`), so
what a student reads is exactly what ran, never a copy that could drift.
"""

from __future__ import annotations

import inspect
import zlib
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


def code_key(functions: Sequence[Callable]) -> str:
    """``code_1a2b3c4d``: the expander's key, from the functions it shows."""
    names = ",".join(f"{function.__module__}.{function.__qualname__}" for function in functions)
    return f"code_{zlib.crc32(names.encode('utf-8')):08x}"


def show_code(functions: Sequence[Callable], *, key: str | None = None) -> None:
    """An expander "The code" with each function's source, named by file and function.

    ``key`` (by default :func:`code_key`) must be unique on the page; the sources are
    built only while the expander is open.
    """
    if not functions:
        return
    expander = st.expander(
        "The code", icon=":material/code:", key=key or code_key(functions), on_change="rerun"
    )
    if not expander.open:
        return
    with expander:
        for function in functions:
            st.caption(where(function))
            st.code(source_of(function), language="python")
