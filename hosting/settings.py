"""Where the server keeps its files, and how it reads a setting: one module for every folder.

``ATTENTION_DATA_DIR`` (an environment variable) names the data folder; unset means
``data/`` beside the app. In it: ``classes.sqlite3`` (one server's class store),
``hub/`` (checkpoints downloaded from the Hub) and ``models/`` (packaged model files).
``ATTENTION_MODELS_DIR`` names a folder of the server's own checkpoints (none when unset).

A setting is an environment variable, or a Streamlit secret of the same name that the
app passes in; the environment wins.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DATA_DIR_SETTING = "ATTENTION_DATA_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1] / "data"
MODELS_DIR_SETTING = "ATTENTION_MODELS_DIR"
CLASS_STORE_FILE = "classes.sqlite3"


def setting(name: str, secrets: Mapping[str, str] | None = None) -> str:
    """The setting ``name``: the environment wins over the secret; "" when neither is set."""
    return (os.environ.get(name) or (secrets or {}).get(name) or "").strip()


def data_dir() -> Path:
    """The data folder: ``ATTENTION_DATA_DIR``, else ``data/`` beside the app."""
    return Path(os.environ.get(DATA_DIR_SETTING) or DEFAULT_DATA_DIR)


def class_store_file() -> Path:
    """One server's SQLite class store: ``ATTENTION_DATA_DIR``/classes.sqlite3."""
    return data_dir() / CLASS_STORE_FILE


def hub_dir() -> Path:
    """Where downloaded checkpoints are kept: ``ATTENTION_DATA_DIR``/hub (``data/hub``)."""
    return data_dir() / "hub"


def packaged_dir() -> Path:
    """Where packaged model files are kept: ``ATTENTION_DATA_DIR``/models."""
    return data_dir() / "models"


def models_dir(secrets: Mapping[str, str] | None = None) -> Path | None:
    """The server's own checkpoints folder (``ATTENTION_MODELS_DIR``); None when unset."""
    folder = setting(MODELS_DIR_SETTING, secrets)
    return Path(folder).expanduser() if folder else None
