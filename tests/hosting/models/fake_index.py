"""A loopback Simple API (PEP 691 JSON), as PyPI serves one project page and its files.

``Index(entry, files)`` lists ``files`` (name -> bytes) under ``entry.package`` with the
SHA-256 it is told to list (the entry's wheel checksum unless changed), serves them, and
records every path asked for. Used by the packaged models' tests, in hosting and on the page.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from harness.local_server import LOOPBACK
from hosting.models.packaged import PackagedModel


class Index:
    """A loopback Simple API serving one project page and its files; records every path."""

    def __init__(self, entry: PackagedModel, files: dict[str, bytes]) -> None:
        self.files = dict(files)
        self.listed_sha256 = entry.wheel_sha256
        self.requests: list[str] = []
        index = self

        class IndexHandler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                if self.path == f"/simple/{entry.package}/":
                    body = json.dumps({"files": index.listing(self.server_port)}).encode()
                    self._send(200, body, "application/vnd.pypi.simple.v1+json")
                elif self.path.startswith("/files/") and self.path[7:] in index.files:
                    self._send(200, index.files[self.path[7:]], "application/octet-stream")
                else:
                    self._send(404, b"not found", "text/plain")

            @property
            def server_port(self) -> int:
                return self.server.server_address[1]  # type: ignore[return-value]

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((LOOPBACK, 0), IndexHandler)
        self.url = f"http://{LOOPBACK}:{self.server.server_address[1]}/simple"

    def listing(self, port: int) -> list[dict[str, object]]:
        return [
            {
                "filename": name,
                "url": f"http://{LOOPBACK}:{port}/files/{name}",
                "hashes": {"sha256": self.listed_sha256},
            }
            for name in self.files
        ]


@contextmanager
def serving(entry: PackagedModel, files: dict[str, bytes]) -> Iterator[Index]:
    """An :class:`Index` running on loopback until the block ends."""
    served = Index(entry, files)
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
