"""A checkpoint's ``config.json``, read once and checked at the edge with clear messages.

Family modules ask for the settings they need (:func:`integer`, :func:`number`,
:func:`flag`); a missing or wrong value is an :class:`InputError` naming the key,
so the forward passes can trust what they get. A GGUF file's settings arrive in the
same form, translated from its metadata, with :data:`SOURCE` naming where they came
from for the messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attention_core.boundary.errors import InputError

CONFIG_FILE = "config.json"
#: The key naming where a config's settings came from (config.json when it is absent).
SOURCE = "__source__"

Config = dict[str, Any]
_MISSING = object()


def read_config(directory: Path) -> Config:
    """``directory/config.json`` as a dict; refuses a missing or broken file."""
    path = directory / CONFIG_FILE
    if not path.is_file():
        raise InputError(f"{directory.name} has no {CONFIG_FILE}: it is not a model checkpoint.")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{CONFIG_FILE} in {directory.name} is not valid JSON.") from error
    if not isinstance(config, dict):
        raise InputError(f"{CONFIG_FILE} in {directory.name} is not a table of settings.")
    return config


def source(config: Config) -> str:
    """Where the settings came from, for messages: "config.json" or a GGUF file's metadata."""
    return str(config.get(SOURCE, CONFIG_FILE))


def _value(config: Config, key: str, default: object) -> object:
    value = config.get(key, default)
    if value is _MISSING:
        raise InputError(f"{source(config)} has no {key!r}, which this model family needs.")
    return value


def integer(config: Config, key: str, default: object = _MISSING) -> int:
    """A positive whole-number setting (layers, heads, widths)."""
    value = _value(config, key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(
            f"{source(config)}: {key!r} must be a positive whole number, got {value!r}."
        )
    return value


def number(config: Config, key: str, default: object = _MISSING) -> float:
    """A positive real setting (epsilons, the RoPE base)."""
    value = _value(config, key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InputError(f"{source(config)}: {key!r} must be a positive number, got {value!r}.")
    return float(value)


def flag(config: Config, key: str, default: bool) -> bool:
    """A true/false setting (tied embeddings, biases)."""
    value = _value(config, key, default)
    if not isinstance(value, bool):
        raise InputError(f"{source(config)}: {key!r} must be true or false, got {value!r}.")
    return value


def refuse_unless(condition: bool, what: str) -> None:
    """Refuse a setting the app does not compute, saying which (``what``)."""
    if not condition:
        raise InputError(f"This checkpoint uses {what}, which the app does not compute.")
