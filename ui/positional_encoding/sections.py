"""The positional-encoding page's sections: the matrix, its waves, P Pᵀ, rotary, the swap."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.teaching import word_order
from ui.figures.style import FigureStyle
from ui.positional_encoding import figures
from ui.positional_encoding.state import DEFAULT_SENTENCE, KIND_TEXT, SWAP_D_MODEL
from ui.shared.export import csv_bytes, matrix_frame, npz_bytes
from ui.shared.matrix_view import chart
from ui.shared.numbers import short_difference
from ui.shared.safe import show_error, show_warning


def download(label: str, make_bytes, file_name: str, key: str, mime: str = "text/csv") -> None:
    """A download button whose file is built only when it is clicked."""
    st.download_button(
        label,
        data=make_bytes,
        file_name=file_name,
        mime=mime,
        key=key,
        on_click="ignore",
        icon=":material/download:",
    )


def matrix_view(matrix, kind: str, base: float, style: FigureStyle) -> None:
    length, width = matrix.shape
    plain, formula = KIND_TEXT[kind]
    left, right = st.columns([3, 2])
    chart(
        figures.encoding_heatmap(
            matrix,
            title=f"{kind} encoding ({length} positions × {width} dimensions)",
            style=style,
        ),
        key="pe_matrix_figure",
        place=left,
    )
    with right:
        st.markdown(plain)
        for line in formula:
            st.latex(line)
        st.caption(f"Shape: P ({length}, {width}), one row per position · b = {base:g}")
        if kind == "none":
            st.info("All zeros: every position looks exactly the same.")
        download(
            "Download the matrix (CSV)",
            lambda: csv_bytes(
                matrix_frame(
                    matrix, figures.position_labels(length), figures.dimension_labels(width)
                )
            ),
            f"positional_{kind}_{length}x{width}.csv",
            "pe_download_matrix",
        )


def curves_view(matrix, kind: str, style: FigureStyle) -> None:
    width = matrix.shape[1]
    left, right = st.columns([3, 2])
    with right:
        dims = st.multiselect(
            "Dimensions to plot",
            list(range(width)),
            default=figures.default_dimensions(width),
            max_selections=8,
            key="pe_dims",
            bind="query-params",
        )
        st.markdown(
            "Each column of the matrix, read down the positions, is a wave. Low dimensions "
            "wiggle fast and high ones slowly, so near and far differences both show up."
            if kind in ("sinusoidal", "rotary")
            else "A learned table starts as noise: no wave, no order, until training shapes it."
            if kind == "learned"
            else "Every curve is flat at zero."
        )
        if kind in ("sinusoidal", "rotary"):
            st.latex(r"\omega_i = b^{-2i/d}, \qquad \text{period} = 2\pi / \omega_i")
        else:
            st.latex(r"P_{:,\,j} \text{ for the chosen dimensions } j")
        st.caption(f"Shape: each curve is one column P[:, j], {matrix.shape[0]} values")
    if dims:
        chart(
            figures.dimension_curves(matrix, dims, title="Selected dimensions", style=style),
            key="pe_curves_figure",
            place=left,
        )
    else:
        left.info("Pick at least one dimension to plot.")


def similarity_view(matrix, kind: str, style: FigureStyle) -> None:
    similarity = word_order.position_similarity(matrix)
    length = similarity.shape[0]
    left, right = st.columns([3, 2])
    chart(
        figures.similarity_heatmap(
            similarity,
            title="How alike two positions are: P Pᵀ",
            style=style,
        ),
        key="pe_similarity_figure",
        place=left,
    )
    with right:
        st.markdown(
            "Each cell compares the vectors of two positions. For sine waves and rotations "
            "the number depends only on how far apart the positions are, so every diagonal "
            "stripe is constant and neighbours are most alike."
            if kind in ("sinusoidal", "rotary")
            else "A random table has no notion of distance: each position is like itself and "
            "unlike all others, near or far."
            if kind == "learned"
            else "All zero: no position is different from any other."
        )
        st.latex(r"G = P P^\top, \qquad G_{pr} = \sum_j P_{pj} P_{rj}")
        if kind in ("sinusoidal", "rotary"):
            st.latex(r"G_{pr} = \sum_i \cos\big((p - r)\,\omega_i\big) \quad (\text{even } d)")
        st.caption(f"Shape: G ({length}, {length})")
        labels = figures.position_labels(length)
        download(
            "Download P Pᵀ (CSV)",
            lambda: csv_bytes(matrix_frame(similarity, labels, labels)),
            f"position_similarity_{kind}_{length}.csv",
            "pe_download_similarity",
        )


def rotary_view(length: int, d_model: int, base: float, style: FigureStyle) -> None:
    st.subheader("Rotary: only the distance between query and key matters")
    offsets = word_order.rotary_offset_scores(d_model, max_offset=length - 1, base=base)
    left, right = st.columns([3, 2])
    chart(
        figures.rotary_offset_figure(
            offsets.starts,
            offsets.offsets,
            offsets.scores,
            title="Score of one query and one key, rotated to positions p and p + o",
            style=style,
        ),
        key="pe_rotary_figure",
        place=left,
    )
    with right:
        st.markdown(
            "Take one query and one key vector and place them at positions p and p + o. "
            "Turning both by their positions leaves only the difference of the angles, so "
            "the score is the same wherever the pair sits: the curves lie on top of each other."
        )
        st.latex(r"\langle R_p\, q,\; R_{p+o}\, k \rangle = \langle q,\; R_o\, k \rangle")
        st.caption(
            f"Shapes: q, k ({d_model},) drawn at random (seed 0) · scores "
            f"({len(offsets.starts)}, {len(offsets.offsets)})"
        )
        st.metric("Largest gap between the curves", short_difference(offsets.spread))
        st.caption(f"Exactly {offsets.spread:.1e}: rounding in the last digits of a float.")
        download(
            "Download the scores (CSV)",
            lambda: csv_bytes(
                matrix_frame(
                    offsets.scores.T,
                    [f"o={o}" for o in offsets.offsets],
                    [f"p={p}" for p in offsets.starts],
                )
            ),
            "rotary_offset_scores.csv",
            "pe_download_rotary",
        )


def swap_inputs() -> tuple[ac.Tokens, int, int] | None:
    """The sentence and the two positions to swap, or None (with a message) if unusable."""
    text = st.text_input(
        "Sentence",
        DEFAULT_SENTENCE,
        key="pe_sentence",
        bind="query-params",
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
        "Swap position", 0, last, min(1, last), key="pe_swap_first", bind="query-params"
    )
    second = columns[1].number_input(
        "with position", 0, last, min(4, last), key="pe_swap_second", bind="query-params"
    )
    return tokens, int(first), int(second)


def swap_result(
    title: str, comparison: word_order.SwapComparison, labels, style: FigureStyle
) -> None:
    st.markdown(f"**{title}**")
    chart(
        figures.swap_grid(
            comparison.weights[0],
            comparison.realigned_weights[0],
            labels,
            title="Attention weights",
            style=style,
        ),
        key=f"pe_swap_{comparison.config.positional}",
        place=st,
    )
    metrics = st.columns(2)
    metrics[0].metric("max |weight difference|", short_difference(comparison.weight_difference))
    metrics[1].metric("max |output difference|", short_difference(comparison.output_difference))
    if short_difference(comparison.weight_difference) == "≈ 0":
        st.caption(
            f"Exactly {comparison.weight_difference:.1e} and "
            f"{comparison.output_difference:.1e}: rounding in the last digits of a float."
        )


def swap_view(kind: str, style: FigureStyle) -> None:
    st.header("Why we need it: swap two words")
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
    runs = {
        positional: word_order.compare_swapped(
            tokens.tokens,
            first,
            second,
            ac.AttentionConfig(d_model=SWAP_D_MODEL, n_heads=1, positional=positional),
        )
        for positional in ("none", with_kind)
    }
    st.dataframe(
        {
            "position": list(range(len(tokens.tokens))),
            "original": list(tokens.tokens),
            "swapped": list(runs["none"].swapped_tokens),
        },
        hide_index=True,
    )
    left, right = st.columns(2)
    with left:
        swap_result("Without positional encoding", runs["none"], tokens.labels, style)
    with right:
        swap_result(f"With {with_kind} encoding", runs[with_kind], tokens.labels, style)
    st.caption(
        f"One head, d = {SWAP_D_MODEL}, random word vectors (seed 0), b = 10 000. "
        "The right panel of each pair shows the swapped sentence's weights with rows "
        "and columns put back in the original word_order."
    )
    download(
        "Download these weights (.npz)",
        lambda: npz_bytes(
            {
                f"{name}_{part}": getattr(run, part)[0]
                for name, run in runs.items()
                for part in ("weights", "swapped_weights", "realigned_weights")
            }
        ),
        "swap_weights.npz",
        "pe_download_swap",
        mime="application/octet-stream",
    )
