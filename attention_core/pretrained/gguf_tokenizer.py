r"""A GGUF file's tokenizer, built with the ``tokenizers`` library from the file's metadata.

A GGUF file carries no ``tokenizer.json``: it stores the vocabulary
(``tokenizer.ggml.tokens``, in id order), the merges, each token's type (3 marks a
control token such as ``<|endoftext|>``) and the name of the pre-tokenizer
(``tokenizer.ggml.pre``). Byte-level BPE (``tokenizer.ggml.model = "gpt2"``: GPT-2,
SmolLM, Llama 3, Qwen2) is rebuilt as Hugging Face builds it:

- split the text with llama.cpp's regular expressions for that pre-tokenizer
  (:data:`SPLITS`, copied from llama.cpp's ``llama-vocab.cpp``: SmolLM first splits
  every digit apart, then GPT-2's rule);
- map each byte to GPT-2's printable alphabet (a space becomes "Ġ", a new line "Ċ");
- apply the merges; control tokens are matched whole, never split.

Anything else (SentencePiece vocabularies, an unknown pre-tokenizer) is refused: a
model fed other tokens than it was trained on gives wrong numbers without any sign.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attention_core.boundary.errors import InputError
from attention_core.pretrained.loading import WordPiece

if TYPE_CHECKING:
    from tokenizers import Tokenizer

GPT2_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
DIGITS_SPLIT = r"\p{N}"
_CONTRACTIONS = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
QWEN2_SPLIT = (
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)
LLAMA3_SPLIT = (
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
#: ``tokenizer.ggml.pre`` -> the regular expressions applied in turn (llama.cpp's names).
SPLITS: dict[str, tuple[str, ...]] = {
    "gpt-2": (GPT2_SPLIT,),
    "smollm": (DIGITS_SPLIT, GPT2_SPLIT),
    "starcoder": (DIGITS_SPLIT, GPT2_SPLIT),
    "qwen2": (QWEN2_SPLIT,),
    "llama-bpe": (LLAMA3_SPLIT,),
    "llama3": (LLAMA3_SPLIT,),
}
CONTROL, USER_DEFINED = 3, 4  #: llama.cpp's token types


def _text_list(metadata: dict[str, Any], key: str) -> list[str]:
    value = metadata.get(key)
    if not isinstance(value, list) or not value:
        raise InputError(f"The file has no {key} in its metadata, so it has no tokenizer.")
    return value


def _token_id(metadata: dict[str, Any], key: str, tokens: list[str]) -> int | None:
    value = metadata.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(tokens):
        raise InputError(f"{key} in the file's metadata is not a token of its vocabulary.")
    return value


def _merges(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    merges = [tuple(merge.split(" ", 1)) for merge in _text_list(metadata, "tokenizer.ggml.merges")]
    if any(len(pair) != 2 for pair in merges):
        raise InputError("tokenizer.ggml.merges holds a merge that is not two tokens.")
    return merges  # type: ignore[return-value]  # pairs, checked above


def _added(tokens: list[str], metadata: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(control tokens, user-defined tokens): both matched whole in the text."""
    kinds = metadata.get("tokenizer.ggml.token_type")
    if kinds is None:
        return [], []
    if len(kinds) != len(tokens):
        raise InputError("tokenizer.ggml.token_type does not have one type per token.")
    control = [token for token, kind in zip(tokens, kinds, strict=True) if kind == CONTROL]
    user = [token for token, kind in zip(tokens, kinds, strict=True) if kind == USER_DEFINED]
    return control, user


def _post_processor(metadata: dict[str, Any], tokens: list[str]) -> Any:
    """Prepend BOS / append EOS when the file says the tokenizer adds them."""
    from tokenizers import processors

    single, special = "$A", []
    for flag, key, where in (
        ("tokenizer.ggml.add_bos_token", "tokenizer.ggml.bos_token_id", "before"),
        ("tokenizer.ggml.add_eos_token", "tokenizer.ggml.eos_token_id", "after"),
    ):
        token_id = _token_id(metadata, key, tokens)
        if metadata.get(flag) is True and token_id is not None:
            token = tokens[token_id]
            single = f"{token} {single}" if where == "before" else f"{single} {token}"
            special.append((token, token_id))
    if not special:
        return None
    return processors.TemplateProcessing(single=single, special_tokens=special)


def byte_level_bpe(metadata: dict[str, Any]) -> Tokenizer:
    """The file's byte-level BPE tokenizer, no padding, no truncation."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

    tokens = _text_list(metadata, "tokenizer.ggml.tokens")
    kind = metadata.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise InputError(
            f"The file's tokenizer is of the kind {str(kind)[:40]!r}; the app builds byte-level "
            "BPE tokenizers (tokenizer.ggml.model 'gpt2': GPT-2, SmolLM, Llama 3, Qwen2) only."
        )
    pre = str(metadata.get("tokenizer.ggml.pre", "gpt-2"))
    if pre not in SPLITS:
        raise InputError(
            f"The file's tokenizer splits text the {pre[:40]!r} way, which the app does not "
            f"know; it knows {', '.join(SPLITS)}."
        )
    vocabulary = {token: index for index, token in reversed(list(enumerate(tokens)))}
    tokenizer = Tokenizer(models.BPE(vocabulary, _merges(metadata), ignore_merges=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(rule), behavior="isolated") for rule in SPLITS[pre]]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    control, user = _added(tokens, metadata)
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in user])
    processor = _post_processor(metadata, tokens)
    if processor is not None:
        tokenizer.post_processor = processor
    return tokenizer


def gguf_tokenizer(metadata: dict[str, Any]) -> WordPiece:
    """The file's tokenizer, uncut (a decoder cuts its one text itself)."""
    return WordPiece(byte_level_bpe(metadata), None)
