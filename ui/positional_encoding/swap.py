"""The positional-encoding page's swap: without positions, swapping two words changes nothing."""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.teaching import word_order
from ui.positional_encoding import cache
from ui.positional_encoding.state import DEFAULT_SENTENCE, PREFIX, SWAP_D_MODEL, PositionalState
from ui.shared.cell_lines import weight_lines
from ui.shared.export import download_button, npz_bytes
from ui.shared.figure_cache import CachedChart
from ui.shared.matrix_view import chart
from ui.shared.numbers import short_difference
from ui.shared.safe import show_error, show_warning
from ui.shared.url import BIND


def swap_inputs() -> tuple[ac.Tokens, int, int] | None:
    """The sentence and the two positions to swap, or None (with a message) if unusable."""
    text = st.text_input(
        "Sentence",
        DEFAULT_SENTENCE,
        key=f"{PREFIX}sentence",
        bind=BIND,
        max_chars=ac.limits.MAX_TEXT_CHARS,
    )
    try:
        tokens = ac.tokenize(text)
    except ac.InputError as error:
        show_error(str(error))
        return None
    if tokens.n_dropped:
        show_warning(f"Only the first {ac.limits.MAX_TOKENS} tokens are used.")
    last = len(tokens.tokens) - 1
    if last < 1:
        show_warning("Type at least two words, so that two of them can swap places.")
        return None
    columns = st.columns(2)
    first = columns[0].number_input(
        "Swap position", 0, last, min(1, last), key=f"{PREFIX}swap_first", bind=BIND
    )
    second = columns[1].number_input(
        "with position", 0, last, min(4, last), key=f"{PREFIX}swap_second", bind=BIND
    )
    return tokens, int(first), int(second)


def swap_result(title: str, comparison: word_order.SwapComparison, drawn: CachedChart) -> None:
    """One panel: its title, the shared weights chart and the two largest differences."""
    st.markdown(f"**{title}**")
    key = f"{PREFIX}swap_{comparison.config.positional}"
    # panel 0 the original run's weights, panel 1 the swapped run's put back (one head)
    masked = np.stack([comparison.masked[0], comparison.realigned_masked[0]])
    chart(drawn, key=key, place=st, cells=weight_lines(masked))
    metrics = st.columns(2)
    metrics[0].metric("max |weight difference|", short_difference(comparison.weight_difference))
    metrics[1].metric("max |output difference|", short_difference(comparison.output_difference))
    if short_difference(comparison.weight_difference) == "≈ 0":
        st.caption(
            f"Exactly {comparison.weight_difference:.1e} and "
            f"{comparison.output_difference:.1e}: rounding in the last digits of a float."
        )


def swap_view(state: PositionalState) -> None:
    kind, style = state.kind, state.style
    st.markdown(
        "Swap two words and run attention again. Without positional information the "
        "weights are the very same numbers, only moved along with the words, and each "
        "word's output is unchanged: the model cannot tell the two sentences apart."
    )
    st.latex(
        r"W(\Pi X) = \Pi\, W(X)\, \Pi^\top \quad \text{for any reordering } \Pi"
        r"\text{, when there is no positional encoding}"
    )
    picked = swap_inputs()
    if picked is None:
        return
    tokens, first, second = picked
    if first == second:
        show_warning("Pick two different positions to swap.")
        return
    if tokens.tokens[first].casefold() == tokens.tokens[second].casefold():
        show_warning(
            "Both positions hold the same word, so swapping them changes nothing. "
            "Pick two different words."
        )
    with_kind = kind if kind != "none" else "sinusoidal"
    panels = cache.swap_panels(cache.Swap(tokens, first, second, with_kind), style)
    runs = panels.runs
    st.dataframe(panels.table, hide_index=True)
    titles = ("Without positional encoding", f"With {with_kind} encoding")
    for column, title, positional in zip(st.columns(2), titles, runs, strict=True):
        with column:
            swap_result(title, runs[positional], panels.charts[positional])
    st.caption(
        f"One head, d = {SWAP_D_MODEL}, random word vectors (seed 0), b = 10 000. "
        "The right panel of each pair shows the swapped sentence's weights with rows "
        "and columns put back in the original order."
    )
    download_button(
        "Download these weights (.npz)",
        lambda: npz_bytes(
            {
                f"{name}_{part}": getattr(run, part)[0]
                for name, run in runs.items()
                for part in ("weights", "swapped_weights", "realigned_weights")
            }
        ),
        "swap_weights.npz",
        f"{PREFIX}download_swap",
        mime="application/octet-stream",
    )
