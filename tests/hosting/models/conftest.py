"""The model sources' tests: a loopback fake Hub, and huggingface_hub kept off the internet.

``HF_HOME`` points at a fresh folder and telemetry is off before ``huggingface_hub``
is imported here (it reads them at import); every download passes its own
``cache_dir`` and the fake Hub's endpoint, so nothing leaves this machine.
"""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="hf-home-"))
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from huggingface_hub import constants  # after the settings above

from tests.hosting.models import fake_hub as fakes


@pytest.fixture(autouse=True)
def _online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts online, even where ``HF_HUB_OFFLINE`` was set when the Hub client loaded."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


fake_hub = fakes.fake_hub  # the fixture, shared with tests/views/test_pretrained_hub.py
