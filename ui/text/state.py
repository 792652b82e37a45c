"""The text page's settings: every control it draws, read once into a :class:`TextState`.

:func:`read_state` draws the sidebar's model controls
(:func:`ui.shared.controls.attention_controls`), the sentences, whatever the chosen
mask needs (padding tokens, a grid), computes the run and draws the row of view
settings; the tabs (``ui.text.sections``) only read the state.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import attention_core as ac
from attention_core.boundary.registry import GRID, PADDING
from ui.figures.style import FigureStyle
from ui.shared import page_mode, url
from ui.shared.control_source import Controls
from ui.shared.controls import attention_controls, control_keys
from ui.shared.matrix_view import npz_download
from ui.shared.presentation import current_style
from ui.shared.safe import show_error, show_warning
from ui.shared.stages import Stage, stages_for
from ui.text import mask_inputs
from ui.text.cache import RunInputs, compute
from ui.text.mask_inputs import encode, mask_editor, padding_hint
from ui.text.stage_arrays import all_matrices

PREFIX = ""  #: the text page's widget and URL keys have no prefix (its links came first)
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
DEFAULT_TEXT2 = "Das Tier überquerte die Straße nicht, weil es zu müde war."
TEXT_KEYS = (f"{PREFIX}text", f"{PREFIX}text2")
# The view settings, checked against the link after the tabs, once every widget has run
# (read_state checks the model controls before the run, as a bad one can stop the page).
#: The heads turned off in tab 6 (ui.text.heads_off) and how (the picker adds "_kind"); the
#: heads are checked by ui.shared.heads_off.warn_unknown_heads, every one of the list.
OFF_KEY = f"{PREFIX}off"
CHECKED_AFTER_TABS = (f"{PREFIX}view", f"{PREFIX}head", f"{PREFIX}numbers", f"{OFF_KEY}_kind")
#: Every URL key the page binds.
URL_KEYS = (
    *control_keys(PREFIX),
    *TEXT_KEYS,
    f"{PREFIX}cross",
    mask_inputs.URL_KEY,
    *CHECKED_AFTER_TABS,
    OFF_KEY,
    f"{PREFIX}query",
    f"{PREFIX}show_heads",
)


@dataclass(frozen=True)
class TextState:
    """What every tab needs: the run, what it was computed from, the head and display options."""

    inputs: RunInputs
    run: ac.AttentionRun
    stages: dict[str, Stage]  #: each stage's formula and words for this config
    head: int  #: 0-based, the head tabs 3, 4 and 6 show in detail
    numbers: bool  #: show each matrix as a table too
    style: FigureStyle


def read_texts() -> tuple[str, str | None]:
    """The sentence, and the second sentence when cross-attention is on (else None), read
    as the page's mode says (:mod:`ui.shared.page_mode`); a list of them ends with no note."""
    return page_mode.current().read_settings(_texts, note=False)


def _texts(source: Controls) -> tuple[str, str | None]:
    text = source.text_area(
        "Sentence",
        DEFAULT_TEXT,
        f"{PREFIX}text",
        ac.limits.MAX_TEXT_CHARS,
        "Words, punctuation marks, emoji and CJK characters each become a token. "
        f"At most {ac.limits.MAX_TOKENS} tokens are used.",
    )
    cross = source.toggle(
        "Cross-attention: keys and values from a second sentence",
        f"{PREFIX}cross",
        "As in translation: each word of the first sentence (the queries) looks at the "
        "words of the second sentence (the keys and values).",
    )
    text2 = None
    if cross:
        text2 = source.text_area(
            "Second sentence (keys and values)",
            DEFAULT_TEXT2,
            f"{PREFIX}text2",
            ac.limits.MAX_TEXT_CHARS,
        )
    source.done()
    return text, text2


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


def compute_or_stop(inputs: RunInputs) -> ac.AttentionRun:
    try:
        return compute(inputs)
    except ac.InputError as error:
        show_error(str(error))
        st.stop()


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


def model_or_error() -> tuple[ac.AttentionConfig | None, str]:
    """The sidebar's model controls: the config, or None and why the core refused it."""
    try:
        return attention_controls(PREFIX), ""
    except ac.InputError as error:
        return None, str(error)


def mask_code(config: ac.AttentionConfig, queries: ac.Tokens, keys: ac.Tokens | None) -> str | None:
    """Draw what the chosen mask needs (its entry says which inputs); the custom grid's code."""
    key_side = queries if keys is None else keys
    needs = ac.MASKS[config.mask].needs
    if PADDING in needs:
        padding_hint(key_side.tokens, TEXT_KEYS[0] if keys is None else TEXT_KEYS[1])
    if GRID not in needs:
        return None
    with st.expander("Custom mask: which keys may each query see?", expanded=True):
        default = ac.causal_mask(len(queries.tokens), len(key_side.tokens))
        return encode(mask_editor(queries.labels, key_side.labels, default))


def view_settings(config: ac.AttentionConfig, run: ac.AttentionRun) -> tuple[int, bool]:
    """The head to inspect (counted from 1) and the numbers toggle, beside the run's download,
    read as the page's mode says (:mod:`ui.shared.page_mode`)."""
    return page_mode.current().read_settings(lambda source: _view_choices(source, config, run))


def _view_choices(
    source: Controls, config: ac.AttentionConfig, run: ac.AttentionRun
) -> tuple[int, bool]:
    head_column, numbers_column, download_column = source.columns(3)
    with head_column:
        head = source.selectbox(
            "Head to inspect",
            list(range(1, config.n_heads + 1)),
            0,
            f"{PREFIX}head",
            "Tabs 3, 4 and 6 show this head in detail.",
        )
    with numbers_column:
        numbers = source.toggle(
            "Show numbers",
            f"{PREFIX}numbers",
            "Each matrix as a rounded table, with a CSV download.",
        )
    source.done()
    with download_column:
        npz_download(all_matrices(run), file_name="attention.npz", key=f"{PREFIX}npz")
    return head, numbers


def read_state() -> TextState:
    """Draw every control, run the core once (cached), return what the tabs need.

    Call before any other widget of the page: the link is read as it arrived.
    Stops the page with a clear message when the settings or the text cannot run.
    """
    before = url.snapshot()
    config, config_error = model_or_error()
    text, text2 = read_texts()
    url.warn_rejected(before, [*control_keys(PREFIX), f"{PREFIX}cross"])
    warn_long_link_text(before)
    if config is None:
        show_error(config_error)
        st.stop()
    queries = tokenize_or_stop(text, "The sentence")
    keys = None if text2 is None else tokenize_or_stop(text2, "The second sentence")
    inputs = RunInputs(queries, keys, config, mask_code(config, queries, keys))
    run = compute_or_stop(inputs)
    st.caption(sizes_caption(config, queries, keys))
    head, numbers = view_settings(config, run)
    stages = stages_for(config, keys is not None)
    return TextState(inputs, run, stages, head - 1, numbers, current_style())
