"""The real SmolLM2 tokenizer's labels carry the text exactly (Hypothesis): marks and byte
groups turned back give the text typed, and no label shows a byte-level mark."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core.pretrained import Checkpoint, load_checkpoint
from attention_core.pretrained.loading import clean_text
from attention_core.pretrained.token_text import MARKS
from tests.real.model_file import real_decoder_file

UNMARK = {mark: ch for ch, mark in MARKS.items()}
SUBSCRIPTS = re.compile("[₀-₉]+$")  # unique_labels' "₂" on a repeated label


@pytest.fixture(scope="module")
def model() -> Checkpoint:
    return load_checkpoint(real_decoder_file())


def _bytes_of(label: str) -> bytes:
    """A label turned back into the bytes it stands for."""
    parts = re.split(r"⟨([0-9A-F ]+)⟩", label)
    out = b""
    for index, part in enumerate(parts):
        if index % 2:
            out += bytes.fromhex(part)
        else:
            out += "".join(UNMARK.get(ch, ch) for ch in part).encode("utf-8")
    return out


def _labels_as_text(labels: tuple[str, ...], raw: tuple[str, ...]) -> str:
    unique = [SUBSCRIPTS.sub("", label) if label != token else label for label, token in
              zip(labels, raw, strict=True)]  # fmt: skip
    return b"".join(_bytes_of(label) for label in unique).decode("utf-8")


TEXT = st.text(
    st.characters(
        blacklist_categories=("Cs", "Cc", "Cf", "Co", "Cn"), blacklist_characters="₀₁₂₃₄₅₆₇₈₉"
    )
    | st.sampled_from(["\n", "\t", " ", "—", "é", "東", "🙂", "Ġ", "Ċ"]),
    min_size=1,
    max_size=60,
)


@given(text=TEXT)
def test_labels_give_back_the_text_typed(model: Checkpoint, text: str) -> None:
    cleaned = clean_text(text)
    if not cleaned:
        return
    tokens = model.tokenize(text)
    if tokens.cut:
        return
    assert _labels_as_text(tokens.labels, tokens.tokens) == cleaned


@given(text=TEXT.filter(lambda t: "Ġ" not in t and "Ċ" not in t and "ĉ" not in t))
def test_no_label_shows_a_byte_level_mark(model: Checkpoint, text: str) -> None:
    if not clean_text(text):
        return
    labels = model.tokenize(text).labels
    assert not any(mark in label for label in labels for mark in "ĠĊĉ")


def test_a_sentences_labels_read_as_words(model: Checkpoint) -> None:
    tokens = model.tokenize("The animal didn't cross the street.\nIt was too tired.")
    assert tokens.labels == (
        "The", "␣animal", "␣didn", "'t", "␣cross", "␣the", "␣street", ".", "↵",
        "It", "␣was", "␣too", "␣tired", ".₂",
    )  # fmt: skip
    assert model.token_names(tokens.ids[:2]) == ["The", "␣animal"]
