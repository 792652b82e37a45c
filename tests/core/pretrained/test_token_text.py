"""Token labels a student can read: the text a token stands for, spaces and line breaks
marked, partial characters as their bytes; WordPiece and plain vocabularies unchanged."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer, decoders, models

from attention_core.pretrained.token_text import (
    MARKS,
    byte_decoder,
    style_of,
    token_text,
    token_texts,
    visible,
)


@pytest.mark.parametrize(
    ("token", "shown"),
    [
        ("Ġanimal", "␣animal"),
        ("Ċ", "↵"),
        ("ĊĊ", "↵↵"),
        ("ĉ", "⇥"),
        ("ĠĠĠ", "␣␣␣"),
        ("Ġcaf", "␣caf"),
        ("Ã©", "é"),
        ("ĠâĢĶ", "␣—"),
        ("âĢ", "⟨E2 80⟩"),  # two of the three bytes of "—"
        ("ĠæĿ", "␣⟨E6 9D⟩"),
        ("<|im_start|>", "<|im_start|>"),
        ("'t", "'t"),
    ],
)
def test_byte_level_tokens_read_as_their_text(token: str, shown: str) -> None:
    assert token_text(token, "bytes") == shown


@pytest.mark.parametrize(
    ("token", "shown"),
    [("▁animal", "␣animal"), ("▁", "␣"), ("<0x0A>", "↵"), ("<0xE2>", "⟨E2⟩"), ("ing", "ing")],
)
def test_sentencepiece_tokens_read_as_their_text(token: str, shown: str) -> None:
    assert token_text(token, "sentencepiece") == shown


def test_wordpiece_and_plain_tokens_stay_as_they_are() -> None:
    tokens = ("[CLS]", "the", "##ing", "Ġ", "▁x", "[SEP]")
    assert token_texts(tokens, "plain") == tokens


def test_the_byte_table_is_gpt2s_one_character_per_byte() -> None:
    table = byte_decoder()
    assert sorted(table.values()) == list(range(256))
    assert table["Ġ"] == ord(" ") and table["Ċ"] == ord("\n") and table["A"] == ord("A")


def test_marks_stand_only_for_what_one_cannot_see() -> None:
    assert visible(" a\tb\nc\r") == "␣a⇥b↵c␍"
    assert all(len(mark) == 1 and not mark.isspace() for mark in MARKS.values())


def _tokenizer(decoder: decoders.Decoder | None) -> Tokenizer:
    tokenizer = Tokenizer(models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    if decoder is not None:
        tokenizer.decoder = decoder
    return tokenizer


def test_the_style_comes_from_the_tokenizers_decoder() -> None:
    assert style_of(_tokenizer(decoders.ByteLevel())) == "bytes"
    assert style_of(_tokenizer(decoders.Metaspace())) == "sentencepiece"
    spm = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback()])
    assert style_of(_tokenizer(spm)) == "sentencepiece"
    assert style_of(_tokenizer(decoders.WordPiece())) == "plain"
    assert style_of(_tokenizer(None)) == "plain"
