"""A token as the text it stands for, with its spaces and line breaks made visible.

Byte-level BPE tokenizers (GPT-2, SmolLM, Llama 3, Qwen2) write every byte of the
text as a printable character: a space is "Ġ", a new line "Ċ", "é" is "Ã©".
SentencePiece tokenizers (Llama 2, Mistral) write a space as "▁" and an unknown
byte as "<0x0A>". A student reads neither, so every label the page shows is the
text itself, with the few characters one cannot see replaced by marks
(:data:`MARKS`: "␣animal" is "animal" with a space before it). A token holding only
part of a character (one of the three bytes of "—") shows those bytes, "⟨E2 80⟩".

WordPiece tokens (BERT: "[CLS]", "##ing") and every other vocabulary are shown as
they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tokenizers import Tokenizer

Style = Literal["bytes", "sentencepiece", "plain"]
#: Characters one cannot see -> the mark shown instead.
MARKS = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}
#: The one line that explains the marks, for the page.
KEY = "␣ marks a space (before a word), ↵ a new line, ⇥ a tab; ⟨E2 80⟩ is part of a character."
SPACE_PIECE = "▁"  #: SentencePiece's space
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@cache
def byte_decoder() -> dict[str, int]:
    """GPT-2's printable character for each byte, reversed: character -> byte.

    Printable Latin-1 bytes stand for themselves; the other 68 (control characters,
    the space, …) are shifted to U+0100 onwards, in byte order.
    """
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    shifted = [b for b in range(256) if b not in kept]
    table = {chr(b): b for b in kept}
    table.update({chr(256 + i): b for i, b in enumerate(shifted)})
    return table


def _text_of_bytes(data: bytes) -> str:
    """UTF-8 text, marks for what one cannot see; bytes that do not make a whole character
    shown as ⟨hex⟩."""
    text = data.decode("utf-8", errors="surrogateescape")
    return re.sub(
        r"[\udc80-\udcff]+",
        lambda run: "⟨" + " ".join(f"{ord(c) - 0xDC00:02X}" for c in run.group()) + "⟩",
        visible(text),
    )


def _from_bytes(token: str) -> str:
    table = byte_decoder()
    if not all(ch in table for ch in token):  # an added token written as plain text
        return visible(token)
    return _text_of_bytes(bytes(table[ch] for ch in token))


def _from_pieces(token: str) -> str:
    if _BYTE_PIECE.fullmatch(token):
        return _text_of_bytes(bytes([int(token[3:5], 16)]))
    return visible(token.replace(SPACE_PIECE, " "))


def visible(text: str) -> str:
    """``text`` with spaces, new lines and tabs replaced by their :data:`MARKS`."""
    return "".join(MARKS.get(ch, ch) for ch in text)


def token_text(token: str, style: Style) -> str:
    """What ``token`` stands for, marks for what one cannot see: "Ġanimal" -> "␣animal"."""
    if style == "bytes":
        return _from_bytes(token) or token
    if style == "sentencepiece":
        return _from_pieces(token) or token
    return token


def token_texts(tokens: Sequence[str], style: Style) -> tuple[str, ...]:
    return tuple(token_text(token, style) for token in tokens)


def style_of(tokenizer: Tokenizer) -> Style:
    """How ``tokenizer`` writes text in its tokens, from its decoder."""
    decoder = tokenizer.decoder
    if decoder is None:
        return "plain"
    described = decoder.__getstate__().decode("utf-8")  # the decoder as JSON
    if '"ByteLevel"' in described:
        return "bytes"
    if '"Metaspace"' in described or SPACE_PIECE in described:
        return "sentencepiece"
    return "plain"
