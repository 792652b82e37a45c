"""Turning heads off, as every page offers it: which heads (a list of "L2 H3"), and how.

One picker for every page that runs a model with heads turned off (the core's
:class:`~attention_core.maths.ablation.Ablation`): a multiselect of the model's heads,
named as the pages name them (layers and heads counted from 1), and the way to turn them
off (:data:`~attention_core.maths.ablation.ABLATION_KINDS`, each with its words). Both are
bound to the link, so a link holds "this model with these heads off". A choice the core
refuses (every head off) is said in words, and the page runs with every head on.

:func:`turn_off` sets the picker from a button (the strongest copying heads, one click).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import streamlit as st

from attention_core.boundary.errors import InputError
from attention_core.maths.ablation import ABLATION_KINDS, Ablation, checked_ablation
from ui.shared.safe import show_warning
from ui.shared.url import BIND, warn_refused

_LABEL = re.compile(r"L(\d+) H(\d+)")


def head_label(layer: int, head: int) -> str:
    """``(layer, head)`` counted from 0, as pages name it: ``"L2 H3"``."""
    return f"L{layer + 1} H{head + 1}"


def head_of(label: str) -> tuple[int, int]:
    """``"L2 H3"`` -> ``(1, 2)``, counted from 0."""
    match = _LABEL.fullmatch(label)
    if match is None:
        raise ValueError(label)
    return int(match[1]) - 1, int(match[2]) - 1


def turn_off(key: str, heads: Iterable[tuple[int, int]]) -> None:
    """Set picker ``key`` to ``heads`` (counted from 0); call before it is drawn (a callback)."""
    st.session_state[key] = [head_label(layer, head) for layer, head in sorted(heads)]


def warn_unknown_heads(key: str, n_layers: int, n_heads: int) -> None:
    """Name every head in the link's ``key`` that the model does not have (``L1 H9``).

    Call before the picker is drawn: Streamlit drops such values from a multiselect without
    a word, and :func:`ui.shared.url.warn_rejected` sees only a parameter's last value.
    """
    options = {head_label(layer, head) for layer in range(n_layers) for head in range(n_heads)}
    unknown = [name for name in st.query_params.get_all(key) if name not in options]
    if unknown:
        warn_refused({key: ", ".join(unknown)})


def heads_off_picker(
    key: str, n_layers: int, n_heads: int, label: str = "Heads turned off"
) -> Ablation | None:
    """The heads this run turns off and how (widgets ``key`` and ``key_kind``, both in the
    link); None when none is off, or when the core refuses the choice (said in words)."""
    options = [head_label(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    picked = st.multiselect(
        label,
        options,
        key=key,
        bind=BIND,
        placeholder="None: every head on",
        help="Each head is named by its layer and its number in the layer (L2 H3).",
    )
    kind = st.radio(
        "How a head is turned off",
        list(ABLATION_KINDS),
        key=f"{key}_kind",
        bind=BIND,
        horizontal=True,  # the options are the kinds' names, as the link holds them
        help=" ".join(f"{info.label}: {info.help}" for info in ABLATION_KINDS.values()),
    )
    if not picked:
        return None
    try:
        return checked_ablation([head_of(name) for name in picked], kind, n_layers, n_heads)
    except InputError as error:
        show_warning(f"{error} Every head is on below.")
        return None
