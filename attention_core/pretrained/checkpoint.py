"""Load a checkpoint of a supported family: ``load_checkpoint(path) -> Checkpoint``.

Either a folder as the Hugging Face Hub serves it: ``config.json``,
``model.safetensors`` (or ``model.safetensors.index.json`` and its shards) and
``tokenizer.json``; the family comes from config.json's ``model_type``
(:data:`FAMILIES`). Or a GGUF file (``.gguf``, as llama.cpp, Ollama and LM Studio
keep models), or a folder holding exactly one, of the architectures ``llama``,
``qwen2`` or ``gpt2`` (:mod:`attention_core.pretrained.gguf_checkpoint`). Anything
else, a missing or damaged file, pickle-only weights (``pytorch_model.bin``) or
weights that do not match the settings are refused with an :class:`InputError`.
Only safetensors and GGUF are read (never pickle) and no code from a file is run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_TOKENS
from attention_core.boundary.text import unique_labels
from attention_core.maths.ablation import Ablation, check_ablation
from attention_core.pretrained import bert, gpt2, llama, loading
from attention_core.pretrained import config as settings
from attention_core.pretrained.gguf_checkpoint import load_gguf_model
from attention_core.pretrained.gguf_tokenizer import gguf_tokenizer
from attention_core.pretrained.loading import WordPiece
from attention_core.pretrained.token_text import style_of, token_texts
from attention_core.pretrained.trace import Model, ModelInfo, ModelTokens, ModelTrace


def decoder_tokenize(tokenizer: WordPiece, text: str) -> ModelTokens:
    """The tokenizer's own encoding of ``text`` (its special tokens too), cut to MAX_TOKENS
    from the end (a decoder reads one text: its first tokens are kept)."""
    cleaned = loading.clean_text(text)
    if not cleaned:
        raise InputError("The text is empty: type a few words.")
    encoding = tokenizer.whole.encode(cleaned)
    if not encoding.ids:
        raise InputError("The model finds no tokens in this text: type a few words.")
    tokens = tuple(encoding.tokens[:MAX_TOKENS])
    return ModelTokens(
        ids=np.asarray(encoding.ids[:MAX_TOKENS], dtype=np.int64),
        tokens=tokens,
        labels=unique_labels(token_texts(tokens, style_of(tokenizer.whole))),
        cut=len(encoding.ids) - len(tokens),
    )


@dataclass(frozen=True)
class Family:
    """One supported architecture: its name for people, its loader, its tokenization."""

    label: str
    load: Callable[[Path, settings.Config], Model]
    tokenize: Callable[[WordPiece, str], ModelTokens]


#: config.json's ``model_type`` -> the family that runs it.
FAMILIES: dict[str, Family] = {
    "bert": Family("BERT (all-MiniLM-L6-v2)", bert.load, bert.tokenize),
    "gpt2": Family("GPT-2", gpt2.load, decoder_tokenize),
    "llama": Family("Llama", llama.load, decoder_tokenize),
    "qwen2": Family("Qwen2", llama.load, decoder_tokenize),
    "mistral": Family("Mistral (no sliding window)", llama.load, decoder_tokenize),
}


def supported() -> str:
    """The families, for messages: "bert (BERT ...), gpt2 (GPT-2), ..."."""
    return ", ".join(f"{name} ({family.label})" for name, family in FAMILIES.items())


@dataclass(frozen=True)
class Checkpoint:
    """A loaded model and its tokenizer: ``info``, ``tokenize(text)``, ``forward(ids)``."""

    model: Model
    tokenizer: WordPiece
    family: Family

    @property
    def info(self) -> ModelInfo:
        return self.model.info

    def tokenize(self, text: str) -> ModelTokens:
        """``text`` as the model's tokens, cut to MAX_TOKENS (``ModelTokens.cut`` says how many)."""
        return self.family.tokenize(self.tokenizer, text)

    def token_names(self, ids: np.ndarray | list[int]) -> list[str]:
        """Each id as a student reads it: the text it stands for, spaces and line breaks
        marked ("␣animal"), as the labels of :meth:`tokenize` show them."""
        whole = self.tokenizer.whole
        style = style_of(whole)
        raw = [whole.id_to_token(int(i)) or f"[{int(i)}]" for i in ids]
        return list(token_texts(raw, style))

    def forward(self, ids: np.ndarray | list[int], ablation: Ablation | None = None) -> ModelTrace:
        """Every layer, the final hidden states and (decoders) the logits for ``ids (T,)``;
        ``ablation``: the heads turned off (checked against the model), None: all on."""
        checked = check_ablation(ablation, self.info.n_layers, self.info.n_heads)
        return self.model.forward(check_ids(ids, self.info), ablation=checked)


def check_ids(ids: np.ndarray | list[int], info: ModelInfo) -> np.ndarray:
    """``ids`` as ``(T,)`` int64; refused unless 1 <= T <= the limit and every id is known."""
    array = np.asarray(ids)
    longest = min(MAX_TOKENS, info.max_positions)
    if array.ndim != 1 or not 1 <= array.size <= longest:
        raise InputError(f"Give between 1 and {longest} token ids in a flat list.")
    if not np.issubdtype(array.dtype, np.integer):
        raise InputError("Token ids must be whole numbers.")
    if array.min() < 0 or array.max() >= info.vocab_size:
        raise InputError(f"Token ids must be between 0 and {info.vocab_size - 1}.")
    return array.astype(np.int64)


def _tokenizer(directory: Path, vocab_size: int) -> WordPiece:
    if not (directory / loading.TOKENIZER_FILE).is_file():
        raise InputError(f"{directory.name} has no {loading.TOKENIZER_FILE}.")
    try:
        tokenizer = loading.load_tokenizer(directory)
    except Exception as error:  # the tokenizers library raises plain Exception
        raise InputError(f"{loading.TOKENIZER_FILE} in {directory.name} is damaged.") from error
    _check_vocabulary(tokenizer, vocab_size, loading.TOKENIZER_FILE)
    return tokenizer


def _check_vocabulary(tokenizer: WordPiece, vocab_size: int, source: str) -> None:
    if tokenizer.whole.get_vocab_size(with_added_tokens=True) > vocab_size:
        raise InputError(
            f"{source} knows more tokens than the model's {vocab_size}: "
            "they do not belong together."
        )


GGUF_SUFFIX = ".gguf"


def gguf_in(path: Path) -> Path | None:
    """The GGUF file ``path`` names: itself, or the one ``.gguf`` in a folder without
    config.json; None for a folder checkpoint. Refuses a folder with several."""
    if path.is_file():
        return path if path.suffix.lower() == GGUF_SUFFIX else None
    if not path.is_dir() or (path / settings.CONFIG_FILE).is_file():
        return None
    found = sorted(p for p in path.iterdir() if p.suffix.lower() == GGUF_SUFFIX and p.is_file())
    if len(found) > 1:
        raise InputError(
            f"{path.name} holds {len(found)} GGUF files; give one of them: "
            + ", ".join(p.name for p in found[:5])
        )
    return found[0] if found else None


def load_gguf(path: Path) -> Checkpoint:
    """A GGUF file's model and the tokenizer its metadata describes."""
    file, model = load_gguf_model(path)
    tokenizer = gguf_tokenizer(file.metadata)
    _check_vocabulary(tokenizer, model.info.vocab_size, f"The tokenizer in {path.name}")
    return Checkpoint(model, tokenizer, FAMILIES[model.info.model_type])


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read the checkpoint ``path`` of a supported family (:data:`FAMILIES`): a folder, a
    ``.gguf`` file or a folder holding one."""
    directory = Path(path)
    gguf = gguf_in(directory)
    if gguf is not None:
        return load_gguf(gguf)
    if not directory.is_dir():
        raise InputError(
            f"{directory} is neither a folder nor a .gguf file: give the folder holding "
            "config.json, or a GGUF file."
        )
    config = settings.read_config(directory)
    family = FAMILIES.get(str(config.get("model_type")))
    if family is None:
        raise InputError(
            f"The model type {config.get('model_type')!r} is not supported. "
            f"Supported model types: {supported()}."
        )
    model = family.load(directory, config)
    return Checkpoint(model, _tokenizer(directory, model.info.vocab_size), family)
