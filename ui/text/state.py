"""The text page's inputs: the sentences, the checks of a link's text, and the run.

The sidebar's model controls are :func:`ui.shared.controls.attention_controls`.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.shared.safe import show_error, show_warning
from ui.shared.url import BIND
from ui.text.runs import RunKey, compute

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
DEFAULT_TEXT2 = "Das Tier überquerte die Straße nicht, weil es zu müde war."
TEXT_KEYS = ("text", "text2")


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
