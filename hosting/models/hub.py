"""Download a catalogue model from the Hugging Face Hub, checked, capped and cached.

:func:`download` asks the Hub for the pinned commit's file list (sizes and
checksums), refuses before any download when the files exceed the size cap,
fetches only the entry's files with ``huggingface_hub`` into ``cache_dir``
(the Hub's own cache layout), reports bytes through a callback, and checks
every file against the Hub's checksum: SHA-256 for LFS files, the git blob id
for the others. A second call finds the files in the cache and makes no request.

The endpoint is ``huggingface_hub``'s (``HF_ENDPOINT``, read when it is
imported) unless one is passed; tests pass a loopback server's. No token is ever
sent: catalogue models are public.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from huggingface_hub import HfApi, constants, hf_hub_download, try_to_load_from_cache
from huggingface_hub.errors import (
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.hf_api import RepoSibling
from huggingface_hub.utils import tqdm as hf_tqdm

from hosting.models.catalogue import CatalogueEntry, is_fetchable
from hosting.models.errors import ModelSourceError
from hosting.models.packaged import Progress
from hosting.models.settings import DEFAULT_MAX_MB

BYTES_PER_MB = 1_000_000  # the Hub's sizes are decimal
#: Errors that mean "no route to the Hub" (connection refused, DNS, timeouts, offline mode).
UNREACHABLE = (httpx2.TransportError, OfflineModeIsEnabled, LocalEntryNotFoundError)
MISSING = (RepositoryNotFoundError, RevisionNotFoundError, RemoteEntryNotFoundError)


@dataclass(frozen=True)
class RemoteFile:
    """One file as the Hub lists it: its size and the checksum its bytes must have."""

    name: str
    size: int
    sha256: str | None  #: LFS files
    git_blob_id: str | None  #: the others: sha1 of "blob <size>\0" + bytes


def download(
    entry: CatalogueEntry,
    cache_dir: Path,
    progress: Progress,
    *,
    max_mb: float = DEFAULT_MAX_MB,
    endpoint: str | None = None,
) -> Path:
    """The folder holding ``entry``'s files at its pinned revision, downloaded if needed.

    Raises :class:`ModelSourceError` (plain message) when the Hub cannot be reached,
    the repository, revision or a file is missing, the files exceed ``max_mb``, or a
    file does not match its checksum (the file is then deleted from the cache).
    """
    if entry.source != "hub":
        raise ValueError(f"{entry.repo_id} is {entry.source}, not on the Hub")
    cached = cached_folder(entry, cache_dir)
    if cached is not None:
        return cached
    if offline():
        raise ModelSourceError(_unreachable(entry))
    remote = _remote_files(entry, endpoint)
    total = sum(file.size for file in remote)
    if total > max_mb * BYTES_PER_MB:
        raise ModelSourceError(
            f"{entry.repo_id} is {_size(total)}, over this server's cap of "
            f"{_size(round(max_mb * BYTES_PER_MB))}, so it is not downloaded."
        )
    counter = _ByteCounter(total, progress)
    paths = [_fetch(entry, file, cache_dir, counter, endpoint) for file in remote]
    return paths[0].parent


def cached_folder(entry: CatalogueEntry, cache_dir: Path) -> Path | None:
    """The cached folder of ``entry``'s pinned revision when every file is there, else None."""
    paths = [
        try_to_load_from_cache(entry.repo_id, name, cache_dir=cache_dir, revision=entry.revision)
        for name in entry.files
    ]
    if all(isinstance(path, str) for path in paths):
        return Path(str(paths[0])).parent
    return None


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` is set now or was when ``huggingface_hub`` was imported."""
    flag = os.environ.get("HF_HUB_OFFLINE", "").strip().upper()
    return constants.is_offline_mode() or flag in {"1", "ON", "YES", "TRUE"}


def _remote_files(entry: CatalogueEntry, endpoint: str | None) -> list[RemoteFile]:
    """The entry's files as the Hub lists them at its revision (one API request)."""
    api = HfApi(endpoint=endpoint, token=False)
    with _plain_errors(entry):
        info = api.model_info(entry.repo_id, revision=entry.revision, files_metadata=True)
    listed = {sibling.rfilename: sibling for sibling in info.siblings or []}
    missing = [name for name in entry.files if name not in listed]
    if info.sha != entry.revision or missing:
        raise ModelSourceError(
            f"The Hub's {entry.repo_id} at revision {entry.revision} does not hold "
            f"{', '.join(missing) or 'the pinned commit'}. The bundled model still works."
        )
    return [_remote_file(entry, listed[name]) for name in entry.files if is_fetchable(name)]


def _remote_file(entry: CatalogueEntry, sibling: RepoSibling) -> RemoteFile:
    """The listed file's size and checksum; refused when the Hub lists no size or checksum."""
    lfs = sibling.lfs
    if lfs:
        return RemoteFile(sibling.rfilename, lfs.size, sha256=lfs.sha256, git_blob_id=None)
    if sibling.size is None or not sibling.blob_id:
        raise ModelSourceError(
            f"The Hub lists no size or checksum for {sibling.rfilename} of {entry.repo_id}, "
            "so it is not downloaded. The bundled model still works."
        )
    return RemoteFile(sibling.rfilename, sibling.size, sha256=None, git_blob_id=sibling.blob_id)


def _fetch(
    entry: CatalogueEntry,
    file: RemoteFile,
    cache_dir: Path,
    counter: _ByteCounter,
    endpoint: str | None,
) -> Path:
    """Download one file (or find it cached), count its bytes, check it; its path."""
    if isinstance(try_to_load_from_cache(entry.repo_id, file.name, cache_dir, entry.revision), str):
        counter.add(file.size)
    with _plain_errors(entry):
        path = Path(
            hf_hub_download(
                entry.repo_id,
                file.name,
                revision=entry.revision,
                cache_dir=cache_dir,
                endpoint=endpoint,
                token=False,
                tqdm_class=counter.bar_class(),
            )
        )
    if not _matches(path, file):
        _remove_from_cache(path)
        raise ModelSourceError(
            f"The downloaded {file.name} of {entry.repo_id} does not match the Hub's checksum, "
            "so it was deleted. Try again later; the bundled model still works."
        )
    return path


def _matches(path: Path, file: RemoteFile) -> bool:
    """True when the file's bytes have the checksum the Hub listed for them."""
    with path.open("rb") as stream:
        if file.sha256:
            return hashlib.file_digest(stream, "sha256").hexdigest() == file.sha256
        header = f"blob {path.stat().st_size}\0".encode()
        git = hashlib.sha1(header, usedforsecurity=False)
        return hashlib.file_digest(stream, lambda: git).hexdigest() == file.git_blob_id


def _remove_from_cache(pointer: Path) -> None:
    """Delete a cached file: the blob a snapshot's symlink points to, then the symlink."""
    blob = pointer.resolve()
    blob.unlink(missing_ok=True)
    pointer.unlink(missing_ok=True)


@contextlib.contextmanager
def _plain_errors(entry: CatalogueEntry) -> Iterator[None]:
    """Turn the Hub client's network and not-found errors into :class:`ModelSourceError`."""
    try:
        yield
    except MISSING as error:
        message = (
            f"The Hub has no {entry.repo_id} at revision {entry.revision}. "
            "The bundled model still works."
        )
        raise ModelSourceError(message) from error
    except UNREACHABLE as error:
        raise ModelSourceError(_unreachable(entry)) from error
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else "an error"
        message = (
            f"The Hugging Face Hub answered {status} for {entry.repo_id}. "
            "Try again later; the bundled model still works."
        )
        raise ModelSourceError(message) from error
    except OSError as error:  # a short download, a full disk, an unwritable cache
        message = (
            f"{entry.repo_id} could not be downloaded completely or saved on this server. "
            "Try again later; the bundled model still works."
        )
        raise ModelSourceError(message) from error


def _unreachable(entry: CatalogueEntry) -> str:
    return (
        f"This server cannot reach the Hugging Face Hub, so {entry.repo_id} cannot be "
        "downloaded. The bundled model still works."
    )


def _size(n_bytes: int) -> str:
    """``n_bytes`` in MB with one decimal, or in kB below 0.1 MB (decimal units, as the Hub)."""
    if n_bytes >= BYTES_PER_MB // 10:
        return f"{n_bytes / BYTES_PER_MB:,.1f} MB"
    return f"{n_bytes / 1000:,.1f} kB"


class _ByteCounter:
    """Adds every file's bytes into one running (done, total) report."""

    def __init__(self, total: int, report: Progress) -> None:
        self.done = 0
        self.total = total
        self.report = report
        report(0, total)

    def add(self, n_bytes: int) -> None:
        if n_bytes:
            self.done += n_bytes
            self.report(self.done, self.total)

    def bar_class(self) -> type[hf_tqdm]:
        """A silent ``tqdm`` whose updates (bytes written, per chunk) feed this counter.

        ``huggingface_hub`` makes one per file, over plain HTTP or Xet. Xet also reports
        bytes received (``update_transfer``); they are not counted, so no byte counts twice.
        """
        counter = self

        class _SilentBar(hf_tqdm):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **(kwargs | {"disable": True}))

            def update(self, n: float | None = 1) -> bool | None:
                counter.add(int(n or 0))
                return super().update(n)

            def update_transfer(self, n_bytes: int) -> None:
                pass

            def set_transfer_postfix_str(self, text: str, refresh: bool = True) -> None:
                pass

        return _SilentBar
