"""From typed text to a matrix of token vectors."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_D_MODEL, MAX_TEXT_CHARS, MAX_TOKENS
from attention_core.boundary.validation import check_positive_int, check_seed

# Padding markers are one token each. CJK ideographs and kana are written
# without spaces: one token per character. Then runs of word characters, then
# any single other visible character (punctuation, symbols, emoji).
_TOKEN_PATTERN = re.compile(
    r"<pad>|\[PAD\]|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|\w+|[^\w\s]"
)
_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


@dataclass(frozen=True)
class Tokens:
    """A tokenized text.

    ``tokens`` are the pieces as typed; ``labels`` are unique display names
    (``the``, ``the₂``) so that plot axes never merge repeated words;
    ``n_dropped`` counts tokens cut off by the cap.
    """

    tokens: tuple[str, ...]
    labels: tuple[str, ...]
    n_dropped: int = 0
    chars_dropped: int = 0


# Zero-width (non-)joiners glue emoji sequences and Persian/Indic words together.
_JOINERS = frozenset("\u200c\u200d")


def _strip_invisible(text: str) -> str:
    """Turn control and format characters (NUL, bidi overrides) into spaces, keeping joiners."""
    return "".join(
        " " if unicodedata.category(ch)[0] == "C" and ch not in _JOINERS else ch for ch in text
    )


def _is_mark(ch: str) -> bool:
    """Combining marks, emoji modifiers (skin tones) and joiners: never a token alone."""
    return ch in _JOINERS or unicodedata.category(ch) in ("Mn", "Mc", "Me", "Sk")


def _split_words(text: str) -> list[str]:
    r"""Regex tokens, with combining marks kept on the letter before them.

    Python's ``\w`` does not match combining marks, so without this pass
    "नमस्ते" or an emoji with a variation selector would fall apart.
    """
    pieces: list[str] = []
    previous_end = -1
    for match in _TOKEN_PATTERN.finditer(text):
        piece = match.group()
        joins = (
            pieces
            and match.start() == previous_end
            and (
                _is_mark(piece[0])
                or pieces[-1][-1] in _JOINERS
                or (_is_mark(pieces[-1][-1]) and piece[0].isalnum())
            )
        )
        if joins:
            pieces[-1] += piece
        else:
            pieces.append(piece)
        previous_end = match.end()
    return pieces


def unique_labels(tokens: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Label repeated tokens ``the``, ``the₂``, ``the₃`` so each label is unique."""
    seen: dict[str, int] = {}
    labels = []
    for token in tokens:
        seen[token] = seen.get(token, 0) + 1
        count = seen[token]
        labels.append(token if count == 1 else token + str(count).translate(_SUBSCRIPT_DIGITS))
    # A typed token could itself look like "the₂"; make the labels unique anyway.
    taken: set[str] = set()
    result = []
    for label in labels:
        while label in taken:
            label += "′"
        taken.add(label)
        result.append(label)
    return tuple(result)


def tokenize(text: str, max_tokens: int = MAX_TOKENS) -> Tokens:
    """Split text into words and punctuation marks, keeping at most ``max_tokens``.

    Words are runs of letters/digits in any script; each CJK character and each
    punctuation mark or symbol is a token of its own. Control characters are
    ignored. Raises :class:`InputError` if nothing is left to attend over.
    """
    if not isinstance(text, str):
        raise InputError("The text must be a string.")
    max_tokens = check_positive_int(max_tokens, "max_tokens")
    chars_dropped = max(0, len(text) - MAX_TEXT_CHARS)
    cleaned = _strip_invisible(text[:MAX_TEXT_CHARS])
    pieces = _split_words(cleaned)
    if not pieces:
        raise InputError("There is no word to attend over: type at least one word.")
    kept = pieces[:max_tokens]
    # Text beyond MAX_TEXT_CHARS is not tokenized; count it as at least one token.
    n_dropped = len(pieces) - len(kept) + (1 if chars_dropped else 0)
    return Tokens(tuple(kept), unique_labels(kept), n_dropped, chars_dropped)


def vocabulary(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """Distinct tokens (case-folded) in order of first appearance."""
    return list(dict.fromkeys(token.casefold() for token in tokens))


def _check_tokens(tokens: Sequence[str]) -> None:
    if isinstance(tokens, str) or not all(isinstance(token, str) for token in tokens):
        raise InputError("Tokens must be a list of strings, e.g. tokenize(text).tokens.")
    if len(tokens) == 0:
        raise InputError("There are no tokens to embed.")


def one_hot_embeddings(tokens: tuple[str, ...] | list[str], d_model: int) -> np.ndarray:
    r"""One-hot vectors ``(T, d_model)``: token t gets :math:`e_{\mathrm{id}(t)}`.

    Ids follow the order of first appearance (case-folded), so a repeated word
    gets the same row. Needs ``d_model`` >= the number of distinct tokens.
    """
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    _check_tokens(tokens)
    vocab = vocabulary(tokens)
    if len(vocab) > d_model:
        raise InputError(
            f"One-hot embeddings need d_model of at least {len(vocab)} "
            f"(one column per distinct word); d_model is {d_model}. "
            "Raise d_model or choose random embeddings."
        )
    index = {word: i for i, word in enumerate(vocab)}
    embeddings = np.zeros((len(tokens), d_model))
    embeddings[np.arange(len(tokens)), [index[t.casefold()] for t in tokens]] = 1.0
    return embeddings


def token_vector(token: str, d_model: int, seed: int = 0) -> np.ndarray:
    r"""A random vector ``(d_model,)`` for one token, :math:`\sim \mathcal N(0, 1)`.

    It is drawn from a generator seeded by a hash of the (case-folded) token and
    the seed, so the same word has the same vector in every sentence, session
    and process (Python's own ``hash`` is salted per process; blake2 is not).
    """
    digest = hashlib.blake2b(token.casefold().encode("utf-8"), digest_size=8).digest()
    rng = np.random.default_rng([int.from_bytes(digest, "little"), int(seed)])
    return rng.standard_normal(d_model)


def random_embeddings(
    tokens: tuple[str, ...] | list[str], d_model: int, seed: int = 0
) -> np.ndarray:
    """Seeded random embeddings ``(T, d_model)``, stable per token (see :func:`token_vector`)."""
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    seed = check_seed(seed)
    _check_tokens(tokens)
    cache: dict[str, np.ndarray] = {}
    rows = []
    for token in tokens:
        key = token.casefold()
        if key not in cache:
            cache[key] = token_vector(key, d_model, seed)
        rows.append(cache[key])
    return np.array(rows)
