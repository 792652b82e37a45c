"""The positional-encoding page's controls: positions, dimensions, encoding kind and base.

:func:`read_state` draws them and returns a :class:`PositionalState`; every
widget key starts with :data:`PREFIX`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import attention_core as ac
from ui.figures.style import FigureStyle
from ui.positional_encoding.kinds import KINDS
from ui.shared.presentation import current_style
from ui.shared.url import BIND

PREFIX = "pe_"

DEFAULT_SENTENCE = "the dog bit the man"
#: The swap demonstration runs a small fixed model, so its numbers are easy to quote.
SWAP_D_MODEL = 16
#: Every URL key the page binds.
URL_KEYS = tuple(
    f"{PREFIX}{name}"
    for name in (
        "length",
        "d_model",
        "kind",
        "base",
        "dims",
        "sentence",
        "swap_first",
        "swap_second",
    )
)
#: The keys with one value each (not the dimension list, not the free-text sentence): a refused
#: link value for them is named in a warning.
CHECKED_KEYS = tuple(key for key in URL_KEYS if key not in (f"{PREFIX}dims", f"{PREFIX}sentence"))


@dataclass(frozen=True)
class PositionalState:
    """What the controls say: positions T, dimensions d, the encoding's kind and base b."""

    length: int
    d_model: int
    kind: str
    base: float
    style: FigureStyle


def read_state() -> PositionalState:
    """Length, width, kind and base, all bound to the URL."""
    columns = st.columns(4)
    length = columns[0].slider(
        "Positions T", 1, ac.limits.MAX_POSITIONS, 64, key=f"{PREFIX}length", bind=BIND
    )
    d_model = columns[1].slider(
        "Dimensions d", 2, ac.limits.MAX_D_MODEL, 64, key=f"{PREFIX}d_model", bind=BIND
    )
    kind = columns[2].radio("Encoding", KINDS, horizontal=True, key=f"{PREFIX}kind", bind=BIND)
    base = columns[3].number_input(
        "Base b",
        min_value=2.0,
        max_value=1e6,
        value=10_000.0,
        step=1000.0,
        key=f"{PREFIX}base",
        bind=BIND,
        help="10 000 in the original Transformer; smaller bases make the slow waves faster.",
    )
    return PositionalState(int(length), int(d_model), kind, float(base), current_style())
