"""Text attention: type a sentence and follow it from tokens to context vectors, head by head.

The page reads the sidebar model controls and the sentence(s), runs the core
once (cached), and shows one step of the data flow per tab: tokens → positions
→ Q, K, V → scores and weights → head view → context and output. Only the open
tab is built. Every widget is bound to the URL, so the address bar is always a
link to this exact view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import attention_core as ac
from ui import url
from ui.code_view import show_code
from ui.controls import attention_controls, control_keys
from ui.figures.describe import describe_head_view
from ui.figures.head_view import MIN_WEIGHT, head_view
from ui.figures.style import FigureStyle
from ui.mask_inputs import decode, encode, mask_editor, padding_hint
from ui.matrix_view import (
    chart,
    explain,
    matrix_stage,
    npz_download,
    stage_grid,
    stage_heatmap,
    token_table,
)
from ui.presentation import current_style
from ui.safe import show_error, show_info, show_warning
from ui.stages import (
    Stage,
    all_matrices,
    axis_labels,
    key_side_matrix,
    shape_caption,
    stage_code,
    stage_matrix,
    stage_title,
    stages_for,
)
from ui.url import BIND

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
DEFAULT_TEXT2 = "Das Tier überquerte die Straße nicht, weil es zu müde war."
TABS = ("1 Tokens", "2 Positions", "3 Q K V", "4 Weights", "5 Head view", "6 Output")
TEXT_KEYS = ("text", "text2")
# Always-drawn view settings in the URL, checked after the tabs (the model controls are
# checked before, as a bad one can stop the page early).
VIEW_KEYS = ("view", "head", "numbers")

# Reruns of one session hit these caches; a classroom of different sentences
# evicts. The biggest run (128 tokens, d_model 512, 16 heads) is ~20 MB.
RUN_CACHE_ENTRIES = 8
FIGURE_CACHE_ENTRIES = 48
CACHE_TTL_SECONDS = 30 * 60

# (query tokens, key tokens or None for self-attention, config, custom-mask code or None)
RunKey = tuple[ac.Tokens, ac.Tokens | None, ac.AttentionConfig, str | None]
# Cache keys: these frozen dataclasses of plain fields are hashed by their repr
# (every field, exact) instead of Streamlit's generic object hashing, which cost
# ~0.4 ms per cached call and ~15 % of a weights-view rerun (BENCHMARKS.md, capacity).
KEY_HASHES = {ac.Tokens: repr, ac.AttentionConfig: repr, FigureStyle: repr}


@st.cache_data(
    max_entries=RUN_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def compute(run_key: RunKey) -> ac.AttentionRun:
    """The attention run for a sentence (pair), a config and an optional custom mask."""
    queries, keys, config, mask_code = run_key
    custom = None if mask_code is None else decode(mask_code)
    return ac.run_text_attention(
        queries.tokens, config, None if keys is None else keys.tokens, custom
    )


def labels(run_key: RunKey) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Unique labels of the queries and of the keys."""
    queries, keys, _, _ = run_key
    return queries.labels, (queries if keys is None else keys).labels


def axes(run_key: RunKey, step: Stage, shape: tuple[int, ...], second: bool) -> tuple[list, list]:
    """Row and column labels of a step's matrix; ``second``: the key sentence's own X, P."""
    query_labels, key_labels = labels(run_key)
    if second:
        query_labels = key_labels
    return (
        axis_labels(step.rows, query_labels, key_labels, shape[-2]),
        axis_labels(step.cols, query_labels, key_labels, shape[-1]),
    )


def matrix_of(run: ac.AttentionRun, key: str, head: int | None, second: bool) -> np.ndarray:
    return key_side_matrix(run, key) if second else stage_matrix(run, key, head)


@st.cache_data(
    max_entries=FIGURE_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def heatmap_figure(
    run_key: RunKey, key: str, head: int | None, second: bool, style: FigureStyle
) -> go.Figure:
    """One step's heatmap: one head, or the key sentence's side when ``second``."""
    run = compute(run_key)
    step = stages_for(run.config, run.is_cross)[key]
    matrix = matrix_of(run, key, head, second)
    rows, cols = axes(run_key, step, matrix.shape, second)
    return stage_heatmap(
        step, matrix, rows, cols, title=stage_title(step, head, second), mask=run.mask, style=style
    )


@st.cache_data(
    max_entries=FIGURE_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def grid_figure(run_key: RunKey, key: str, style: FigureStyle) -> go.Figure:
    """Every head's matrix of a per-head step, side by side."""
    run = compute(run_key)
    step = stages_for(run.config, run.is_cross)[key]
    stack = stage_matrix(run, key)
    rows, cols = axes(run_key, step, stack.shape, False)
    return stage_grid(
        step, stack, rows, cols, title=f"{step.title} · all heads", mask=run.mask, style=style
    )


@st.cache_data(
    max_entries=FIGURE_CACHE_ENTRIES,
    ttl=CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def head_view_figure(
    run_key: RunKey, query: int | None, heads: tuple[int, ...], style: FigureStyle
) -> go.Figure:
    """Lines from the query token(s) to every key, one colour per head."""
    query_labels, key_labels = labels(run_key)
    weights = compute(run_key).trace.weights
    return head_view(weights, query_labels, key_labels, heads=heads, query=query, style=style)


# ---------------------------------------------------------------- inputs


def read_texts() -> tuple[str, str | None]:
    """The sentence, and the second sentence when cross-attention is on (else None)."""
    text = st.text_area(
        "Sentence",
        DEFAULT_TEXT,
        key="text",
        bind=BIND,
        max_chars=ac.limits.MAX_TEXT_CHARS,
        help="Words, punctuation marks, emoji and CJK characters each become a token. "
        f"At most {ac.limits.MAX_TOKENS} tokens are used.",
    )
    cross = st.toggle(
        "Cross-attention: keys and values from a second sentence",
        key="cross",
        bind=BIND,
        help="As in translation: each word of the first sentence (the queries) looks at the "
        "words of the second sentence (the keys and values).",
    )
    if not cross:
        return text or "", None
    text2 = st.text_area(
        "Second sentence (keys and values)",
        DEFAULT_TEXT2,
        key="text2",
        bind=BIND,
        max_chars=ac.limits.MAX_TEXT_CHARS,
    )
    return text or "", text2 or ""


def warn_long_link_text(before: dict[str, str]) -> None:
    """The text areas keep the first MAX_TEXT_CHARS characters of a link's text; say so."""
    limit = ac.limits.MAX_TEXT_CHARS
    for key in TEXT_KEYS:
        if len(before.get(key, "")) > limit:
            show_warning(
                f"The text in this link ({key}) is longer than {limit:,} characters; "
                f"only its first {limit:,} characters are used."
            )


def tokenize_or_stop(text: str, what: str) -> ac.Tokens:
    """Tokens of ``text``, with a warning if some were cut; a clear error and stop if none."""
    try:
        tokens = ac.tokenize(text)
    except ac.InputError as error:
        show_error(f"{what}: {error}")
        st.stop()
    used = f"only the first {ac.limits.MAX_TOKENS} tokens are used"
    if tokens.chars_dropped:
        show_warning(
            f"{what} is longer than {ac.limits.MAX_TEXT_CHARS:,} characters: {used}; "
            f"at least {tokens.n_dropped:,} more were cut and the rest was not read."
        )
    elif tokens.n_dropped:
        show_warning(
            f"{what} has {len(tokens.tokens) + tokens.n_dropped:,} tokens: {used}, "
            f"{tokens.n_dropped:,} were cut."
        )
    return tokens


def compute_or_stop(run_key: RunKey) -> ac.AttentionRun:
    try:
        return compute(run_key)
    except ac.InputError as error:
        show_error(str(error))
        st.stop()


# ---------------------------------------------------------------- one function per tab


@dataclass(frozen=True)
class View:
    """What every tab needs: the run, its cache key, the chosen head and display options."""

    run_key: RunKey
    run: ac.AttentionRun
    steps: dict[str, Stage]
    head: int  #: 0-based
    numbers: bool
    style: FigureStyle

    def step(self, key: str, head: int | None = None, second: bool = False) -> None:
        """One matrix beside its formula, shape and words (and numbers, if asked)."""
        step = self.steps[key]
        matrix = matrix_of(self.run, key, head, second)
        rows, cols = axes(self.run_key, step, matrix.shape, second)
        symbol = step.symbol + ("_kv" if second else "")
        name = key + ("_second_sentence" if second else "")
        name += "" if head is None else f"_head{head + 1}"  # also the CSV file's name
        matrix_stage(
            step,
            matrix,
            rows,
            cols,
            key=name,
            shapes=[shape_caption(symbol, matrix.shape, head)],
            title=stage_title(step, head, second),
            mask=self.run.mask,
            show_numbers=self.numbers,
            style=self.style,
            figure=heatmap_figure(self.run_key, key, head, second, self.style),
            code=stage_code(key, self.run.config),
        )

    def grid(self, key: str) -> None:
        """Every head's matrix of a per-head step, side by side on one colour scale."""
        stack = stage_matrix(self.run, key)
        each = shape_caption(self.steps[key].symbol, stack.shape[1:])
        st.caption(f"All {stack.shape[0]} heads ({each} each) on one colour scale.")
        chart(grid_figure(self.run_key, key, self.style), key=f"grid_{key}")


def tokens_tab(view: View) -> None:
    queries, keys, _, _ = view.run_key
    text_column, table_column = st.columns(2, gap="medium")
    with text_column:
        st.subheader(view.steps["tokens"].title)
        sizes = [f"T = {len(queries.tokens)} queries"]
        explain(view.steps["tokens"], sizes + ([f"S = {len(keys.tokens)} keys"] if keys else []))
        show_code(stage_code("tokens", view.run.config))
    with table_column:
        token_table(queries.tokens, queries.labels, "Sentence")
        if keys is not None:
            token_table(keys.tokens, keys.labels, "Second sentence")
    view.step("x")
    if keys is not None:
        view.step("x", second=True)


def positions_tab(view: View) -> None:
    for second in (False, True) if view.run.is_cross else (False,):
        view.step("p", second=second)
        view.step("x_plus_p", second=second)


def qkv_tab(view: View) -> None:
    for key in ("q", "k", "v"):
        view.step(key, view.head)
    st.subheader("Every head")
    for key in ("q", "k", "v"):
        view.grid(key)


def weights_tab(view: View) -> None:
    for key in ("scores", "scaled", "masked", "weights"):
        view.step(key, view.head)
    st.subheader("Every head's weights")
    view.grid("weights")


def default_query(tokens: ac.Tokens) -> int:
    """The example sentence asks what "it" refers to, so start there; else the first token."""
    words = [token.casefold() for token in tokens.tokens]
    return words.index("it") if "it" in words else 0


def head_view_tab(view: View) -> None:
    query_labels, key_labels = labels(view.run_key)
    n_heads = view.run.config.n_heads
    query_column, heads_column = st.columns(2)
    with query_column:
        query = st.selectbox(
            "Query token",
            [None, *range(len(query_labels))],
            key="query",
            bind=BIND,
            index=1 + default_query(view.run_key[0]),
            format_func=lambda i: "all tokens" if i is None else f"{i}: {query_labels[i]}",
        )
    with heads_column:
        every_head = list(range(1, n_heads + 1))
        heads = st.multiselect(
            "Heads to draw", every_head, default=every_head, key="show_heads", bind=BIND
        )
    step = view.steps["head_view"]
    text_column, figure_column = st.columns((1, 2), gap="medium")
    with text_column:
        st.subheader(step.title)
        explain(step, [f"A: {n_heads} heads × {len(query_labels)} × {len(key_labels)}"])
        show_code(stage_code("head_view", view.run.config))
        st.caption(
            f"Lines with weight ≤ {MIN_WEIGHT} are not drawn. Click a head in the "
            "legend to hide it."
        )
    with figure_column:
        if not heads:
            show_info("Choose at least one head to draw.")
            return
        shown = tuple(sorted(h - 1 for h in heads))
        alt = describe_head_view(view.run.trace.weights, shown, query, query_labels, key_labels)
        chart(head_view_figure(view.run_key, query, shown, view.style), key="head_view", alt=alt)


def output_tab(view: View) -> None:
    config = view.run.config
    view.step("context", view.head)
    view.grid("context")
    if config.combine == "concat":
        view.step("concat")
    if config.combine == "learned":
        st.caption(
            "Head weights: "
            + ", ".join(
                f"w{h + 1} = {w:.3f}" for h, w in enumerate(view.run.projections.head_weights)
            )
        )
    view.step("output")


TAB_VIEWS: tuple[Callable[[View], None], ...] = (
    tokens_tab,
    positions_tab,
    qkv_tab,
    weights_tab,
    head_view_tab,
    output_tab,
)


# ---------------------------------------------------------------- the page


def sizes_caption(config: ac.AttentionConfig, queries: ac.Tokens, keys: ac.Tokens | None) -> str:
    sizes = [f"T = {len(queries.tokens)} tokens"]
    if keys is not None:
        sizes.append(f"S = {len(keys.tokens)} keys (second sentence)")
    sizes += [
        f"d_model = {config.d_model}",
        f"H = {config.n_heads} heads",
        f"dₖ = {config.d_k}",
        f"d_v = {config.d_v}",
    ]
    return " · ".join(sizes)


def main() -> None:
    before = url.snapshot()
    st.title("Text attention")
    link_notice = st.container()  # view settings are checked once every widget has run
    st.markdown(
        "Type a sentence and follow it from words to context vectors, one step per "
        "tab. Every setting is in the link, so you can share exactly this view."
    )
    try:
        config, config_error = attention_controls(), None
    except ac.InputError as error:
        config, config_error = None, str(error)
    text, text2 = read_texts()
    url.warn_rejected(before, [*control_keys(), "cross"])
    warn_long_link_text(before)
    if config is None:
        show_error(config_error)
        st.stop()

    queries = tokenize_or_stop(text, "The sentence")
    keys = None if text2 is None else tokenize_or_stop(text2, "The second sentence")
    key_side = queries if keys is None else keys
    mask_code = None
    if config.mask == "padding":
        padding_hint(key_side.tokens, "text" if keys is None else "text2")
    if config.mask == "custom":
        with st.expander("Custom mask: which keys may each query see?", expanded=True):
            default = ac.causal_mask(len(queries.tokens), len(key_side.tokens))
            mask_code = encode(mask_editor(queries.labels, key_side.labels, default))
    run_key: RunKey = (queries, keys, config, mask_code)
    run = compute_or_stop(run_key)
    st.caption(sizes_caption(config, queries, keys))

    head_column, numbers_column, download_column = st.columns(3, vertical_alignment="bottom")
    with head_column:
        head = st.selectbox(
            "Head to inspect",
            list(range(1, config.n_heads + 1)),
            key="head",
            bind=BIND,
            help="Tabs 3, 4 and 6 show this head in detail.",
        )
    with numbers_column:
        numbers = st.toggle(
            "Show numbers",
            key="numbers",
            bind=BIND,
            help="Each matrix as a rounded table, with a CSV download.",
        )
    with download_column:
        npz_download(all_matrices(run), file_name="attention.npz", key="npz")

    view = View(
        run_key, run, stages_for(config, keys is not None), head - 1, numbers, current_style()
    )
    for tab, draw in zip(st.tabs(TABS, key="view", bind=BIND), TAB_VIEWS, strict=True):
        if tab.open:
            with tab:
                draw(view)
    with link_notice:
        url.warn_rejected(before, VIEW_KEYS)


main()
