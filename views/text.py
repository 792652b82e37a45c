"""Text attention: type a sentence and follow it from tokens to context vectors, head by head.

The page reads the sidebar model controls and the sentence(s), runs the core
once (cached for every session, with the figures, in ``ui.text.runs``), and
shows one step of the data flow per tab: tokens → positions → Q, K, V → scores
and weights → head view → context and output. Only the open tab is built.
Every widget is bound to the URL, so the address bar is always a link to this
exact view.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.boundary.registry import GRID, PADDING
from ui.figures.describe import describe_head_view
from ui.figures.head_view import MIN_WEIGHT
from ui.shared import url
from ui.shared.code_view import show_code
from ui.shared.controls import attention_controls, control_keys
from ui.shared.matrix_view import chart, explain, npz_download, token_table
from ui.shared.presentation import current_style
from ui.shared.safe import show_error, show_info, show_warning
from ui.shared.stage_arrays import all_matrices, stage_code
from ui.shared.stages import stages_for
from ui.shared.tabs import Tab, show_tabs
from ui.shared.url import BIND
from ui.text.mask_inputs import encode, mask_editor, padding_hint
from ui.text.runs import RunKey, View, compute, head_view_figure

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
DEFAULT_TEXT2 = "Das Tier überquerte die Straße nicht, weil es zu müde war."
TEXT_KEYS = ("text", "text2")
# Always-drawn view settings in the URL, checked after the tabs (the model controls are
# checked before, as a bad one can stop the page early).
VIEW_KEYS = ("view", "head", "numbers")


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


def tokens_tab(view: View) -> None:
    queries, keys = view.run_key.queries, view.run_key.keys
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
    query_labels, key_labels = view.run_key.labels
    n_heads = view.run.config.n_heads
    query_column, heads_column = st.columns(2)
    with query_column:
        query = st.selectbox(
            "Query token",
            [None, *range(len(query_labels))],
            key="query",
            bind=BIND,
            index=1 + default_query(view.run_key.queries),
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
        figure = head_view_figure(view.run_key, query, shown, view.style, view.run)
        chart(figure, key="head_view", alt=alt)


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


TABS: tuple[Tab[View], ...] = (
    Tab("1 Tokens", tokens_tab),
    Tab("2 Positions", positions_tab),
    Tab("3 Q K V", qkv_tab),
    Tab("4 Weights", weights_tab),
    Tab("5 Head view", head_view_tab),
    Tab("6 Output", output_tab),
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
    needs = ac.MASKS[config.mask].needs
    if PADDING in needs:
        padding_hint(key_side.tokens, "text" if keys is None else "text2")
    if GRID in needs:
        with st.expander("Custom mask: which keys may each query see?", expanded=True):
            default = ac.causal_mask(len(queries.tokens), len(key_side.tokens))
            mask_code = encode(mask_editor(queries.labels, key_side.labels, default))
    run_key = RunKey(queries, keys, config, mask_code)
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
    show_tabs(TABS, view)
    with link_notice:
        url.warn_rejected(before, VIEW_KEYS)


main()
