"""The positional-encoding page's controls: positions, dimensions, encoding kind and base.

:func:`read_state` draws them and returns a :class:`PositionalState`; every
widget key starts with :data:`PREFIX`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import attention_core as ac
from ui.figures.style import FigureStyle
from ui.shared.presentation import current_style
from ui.shared.url import BIND

PREFIX = "pe_"

KINDS = ("sinusoidal", "learned", "rotary", "none")
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

KIND_TEXT = {
    "sinusoidal": (
        "Every position gets a fixed pattern of waves, one sine and one cosine per pair of "
        "dimensions, from fast to slow. Like the hands of a clock, together they give each "
        "position its own reading, and neighbouring positions have similar readings.",
        (
            r"PE_{p,\,2i} = \sin\!\left(\frac{p}{b^{2i/d}}\right)",
            r"PE_{p,\,2i+1} = \cos\!\left(\frac{p}{b^{2i/d}}\right)",
        ),
    ),
    "learned": (
        "Every position gets its own row in a table that is learned during training, just "
        "like a word embedding but looked up by position. Shown here as training starts: "
        "random numbers, with no pattern yet.",
        (r"P_{p,:} \sim \mathcal{N}(0, 1) \quad \text{(then trained)}",),
    ),
    "rotary": (
        "Rotary encoding (RoPE) adds nothing to the words: it turns each pair of numbers in "
        "the queries and keys by an angle that grows with the position. The matrix shows "
        "where the point (1, 0) lands after the turn, for every position and pair.",
        (
            r"\theta = \theta_{p,i} = p\, b^{-2i/d}",
            r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
            r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
            r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}",
        ),
    ),
    "none": (
        "Without an encoding every position adds the same vector: zero. Attention then sees "
        "a bag of words and cannot tell where a word stands.",
        (r"P = 0",),
    ),
}


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
