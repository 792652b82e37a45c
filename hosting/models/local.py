"""The checkpoints in the local folder ``ATTENTION_MODELS_DIR`` names: one per entry.

An entry is offered when its name is plain (letters, digits, ``.``, ``_``, ``-``; it
becomes the model's name), it and every file in it stay inside the folder once
symlinks are followed, and it is either a subfolder holding ``config.json``,
``tokenizer.json`` and safetensors weights (``model.safetensors`` or
``model.safetensors.index.json``) or exactly one ``.gguf`` file, or a ``.gguf`` file
itself (named without ``.gguf``), as llama.cpp, Ollama and LM Studio keep models.
Anything else is refused with a plain reason the page can show; hidden entries
(``.cache``) and other stray files are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hosting.models.catalogue import (
    CONFIG_FILE,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    WEIGHTS_INDEX_FILE,
)

GGUF_SUFFIX = ".gguf"

#: A folder name that is safe to show, to put in a link and to join to a path.
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class LocalCheckpoint:
    """A checkpoint folder: ``name`` is its folder's name, ``path`` the folder, resolved."""

    name: str
    path: Path  #: a checkpoint folder, or a GGUF file


@dataclass(frozen=True)
class LocalListing:
    """The folder's usable checkpoints (by name) and, for each refused entry, why."""

    checkpoints: tuple[LocalCheckpoint, ...]
    refused: tuple[str, ...]


def list_local(models_dir: Path) -> LocalListing:
    """Every checkpoint subfolder of ``models_dir``, sorted by name; refusals explained."""
    if not models_dir.is_dir():
        return LocalListing((), (f"The models folder {models_dir} does not exist.",))
    root = models_dir.resolve()
    checkpoints: list[LocalCheckpoint] = []
    refused: list[str] = []
    for child in sorted(models_dir.iterdir()):
        gguf = child.suffix.lower() == GGUF_SUFFIX
        if child.name.startswith(".") or not (child.is_dir() or child.is_symlink() or gguf):
            continue
        reason = _refusal(child, root)
        if reason:
            refused.append(reason)
        else:
            name = child.name[: -len(GGUF_SUFFIX)] if gguf else child.name
            checkpoints.append(LocalCheckpoint(name, child.resolve()))
    return LocalListing(tuple(checkpoints), tuple(refused))


def _refusal(child: Path, root: Path) -> str:
    """Why ``child`` cannot be offered, or "" when it can."""
    if not PLAIN_NAME.fullmatch(child.name):
        return f"{child.name[:64]!r} is not a plain folder name (letters, digits, . _ -)."
    if not _inside(child, root):
        return f"{child.name} points outside the models folder."
    if child.suffix.lower() == GGUF_SUFFIX and child.is_file():
        return ""
    if not child.is_dir():
        return f"{child.name} is not a folder."
    escaping = sorted(entry.name for entry in child.iterdir() if not _inside(entry, root))
    if escaping:
        return f"{child.name}: {', '.join(escaping)} point outside the models folder."
    ggufs = [entry for entry in child.iterdir() if entry.suffix.lower() == GGUF_SUFFIX]
    if ggufs and not (child / CONFIG_FILE).is_file():
        return "" if len(ggufs) == 1 else f"{child.name} holds several .gguf files: keep one."
    missing = [name for name in (CONFIG_FILE, TOKENIZER_FILE) if not (child / name).is_file()]
    if not ((child / WEIGHTS_FILE).is_file() or (child / WEIGHTS_INDEX_FILE).is_file()):
        missing.append(WEIGHTS_FILE)
    if missing:
        return f"{child.name} lacks {', '.join(missing)}."
    return ""


def _inside(path: Path, root: Path) -> bool:
    """True when ``path``, symlinks followed, is ``root`` or below it (False for a loop)."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, on Python 3.11
        return False
