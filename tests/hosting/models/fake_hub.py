"""A loopback HTTP server that serves repositories the way the Hugging Face Hub does.

Enough of the Hub for ``huggingface_hub``'s real client code to run against it:

- ``GET /api/models/{owner}/{name}/revision/{rev}``: the commit's ``sha`` and its
  ``siblings`` (``rfilename``, ``size``, ``blobId`` and, for LFS files,
  ``lfs: {sha256, size, pointerSize}``), as with ``?blobs=true``;
- ``HEAD``/``GET /{owner}/{name}/resolve/{rev}/{file}``: ``X-Repo-Commit``,
  ``ETag`` (the git blob id, or the SHA-256 for LFS files, also as
  ``X-Linked-Etag`` with ``X-Linked-Size``), ``Content-Length``, and byte ranges;
- unknown repositories, revisions and files: 404 with the Hub's ``X-Error-Code``.

:func:`repo_from_folder` serves a real checkpoint folder (its safetensors in LFS, as on the Hub).

Every request is recorded, so tests can say what was (not) asked for.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from harness.local_server import LOOPBACK, free_port


def git_blob_id(content: bytes) -> str:
    """The id git gives a file: sha1 of ``blob <size>\\0`` followed by its bytes."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()


@dataclass
class FakeRepo:
    """One repository at one commit: its files, which of them are LFS, which to corrupt."""

    repo_id: str
    commit: str
    files: dict[str, bytes]
    lfs: frozenset[str] = frozenset()
    #: Served with one byte changed (same length), while the listing keeps the true checksum.
    corrupt: set[str] = field(default_factory=set)
    #: Listed with a name only, as the Hub's API does without ``blobs=true``.
    bare: set[str] = field(default_factory=set)
    #: LFS files served with only their first half while the headers announce the whole size.
    short: set[str] = field(default_factory=set)
    #: When set, the API answers this HTTP status instead of the listing.
    api_status: int | None = None

    def sibling(self, name: str) -> dict[str, object]:
        content = self.files[name]
        if name in self.bare:
            return {"rfilename": name}
        entry: dict[str, object] = {
            "rfilename": name,
            "size": len(content),
            "blobId": git_blob_id(content),
        }
        if name in self.lfs:
            sha256 = hashlib.sha256(content).hexdigest()
            entry["lfs"] = {"sha256": sha256, "size": len(content), "pointerSize": 134}
        return entry

    def etag(self, name: str) -> str:
        content = self.files[name]
        return hashlib.sha256(content).hexdigest() if name in self.lfs else git_blob_id(content)

    def served_bytes(self, name: str) -> bytes:
        content = self.files[name]
        if name in self.corrupt:
            return content[:-1] + bytes([content[-1] ^ 0xFF])
        if name in self.short:
            return content[: len(content) // 2]
        return content


def repo_from_folder(
    repo_id: str, commit: str, folder: Path, corrupt: frozenset[str] = frozenset()
) -> FakeRepo:
    """A checkpoint folder's top-level files as ``repo_id`` at ``commit``; ``*.safetensors`` in LFS.

    The files named in ``corrupt`` are served with one byte changed (see :class:`FakeRepo`).
    """
    files = {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}
    lfs = frozenset(name for name in files if name.endswith(".safetensors"))
    return FakeRepo(repo_id, commit, files, lfs=lfs, corrupt=set(corrupt))


class FakeHub:
    """The server: start it, add repositories, read :attr:`requests`, stop it."""

    def __init__(self) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[tuple[str, str]] = []  #: (method, path) in arrival order
        self.port = free_port()
        self.server = ThreadingHTTPServer((LOOPBACK, self.port), _handler_for(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def add(self, repo: FakeRepo) -> FakeRepo:
        self.repos[repo.repo_id] = repo
        return repo

    def resolved(self) -> list[str]:
        """The file paths asked for through ``/resolve/`` (HEAD or GET)."""
        return [path for _, path in self.requests if "/resolve/" in path]

    def stop(self) -> None:
        """Stop serving and close the port: later connections are refused."""
        if self.thread.is_alive():
            self.server.shutdown()
            self.server.server_close()
            self.thread.join()


def _handler_for(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class HubHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep pytest's output clean

        def do_GET(self) -> None:
            self._answer(send_body=True)

        def do_HEAD(self) -> None:
            self._answer(send_body=False)

        def _answer(self, send_body: bool) -> None:
            path = unquote(urlsplit(self.path).path)
            hub.requests.append((self.command, path))
            if path.startswith("/api/models/"):
                self._model_info(path.removeprefix("/api/models/"))
            elif "/resolve/" in path:
                self._resolve(path.lstrip("/"), send_body)
            else:
                self._error(404, "")

        def _model_info(self, rest: str) -> None:
            repo_id, _, revision = rest.partition("/revision/")
            repo = self._repo(repo_id, revision)
            if repo is not None and repo.api_status:
                self._error(repo.api_status, "")
            elif repo is not None:
                listing = {
                    "id": repo.repo_id,
                    "sha": repo.commit,
                    "siblings": [repo.sibling(name) for name in repo.files],
                }
                self._send(200, json.dumps(listing).encode(), {"Content-Type": "application/json"})

        def _resolve(self, rest: str, send_body: bool) -> None:
            repo_id, _, tail = rest.partition("/resolve/")
            revision, _, name = tail.partition("/")
            repo = self._repo(repo_id, revision)
            if repo is None:
                return
            if name not in repo.files:
                self._error(404, "EntryNotFound", {"X-Repo-Commit": repo.commit})
                return
            body = repo.served_bytes(name)
            headers = {"X-Repo-Commit": repo.commit, "ETag": f'"{repo.etag(name)}"'}
            if name in repo.lfs:
                headers |= {
                    "X-Linked-Etag": f'"{repo.etag(name)}"',
                    "X-Linked-Size": str(len(repo.files[name])),
                }
            status, body = self._range(body, headers)
            self._send(status, body, headers, send_body)

        def _range(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            """Honour ``Range: bytes=start-`` (how the client resumes); else 200 and every byte."""
            asked = self.headers.get("Range", "")
            if not asked.startswith("bytes=") or not asked.endswith("-"):
                return 200, body
            start = int(asked.removeprefix("bytes=").removesuffix("-"))
            headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
            return 206, body[start:]

        def _repo(self, repo_id: str, revision: str) -> FakeRepo | None:
            """The repository at ``revision`` (its commit or "main"), or None after a 404."""
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(404, "RepoNotFound")
            elif revision not in (repo.commit, "main"):
                self._error(404, "RevisionNotFound")
            else:
                return repo
            return None

        def _error(self, status: int, code: str, headers: dict[str, str] | None = None) -> None:
            extra = {"X-Error-Code": code} if code else {}
            body = json.dumps({"error": code or "Not found"}).encode()
            self._send(status, body, {**extra, **(headers or {})})

        def _send(
            self, status: int, body: bytes, headers: dict[str, str], send_body: bool = True
        ) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

    return HubHandler


@pytest.fixture
def fake_hub() -> Iterator[FakeHub]:
    """A fake Hub on a free loopback port, stopped after the test."""
    hub = FakeHub()
    try:
        yield hub
    finally:
        hub.stop()
