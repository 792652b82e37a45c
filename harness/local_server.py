"""Run the app on this machine: the one `streamlit run` that tests and benchmarks start.

The browser tests (tests/browser), the deployment tests' replicas and the
benchmarks all start ``python -m streamlit run <script>`` on a free loopback
port and wait for ``/_stcore/health``; this module is the one place that says
how. It lives beside the other server concerns (``hosting/``) so that tests and
benchmarks both import the app's side, never each other. No Streamlit import:
the server is a child process.

Debian's Chromium, which the browser tests and benchmarks point at the server,
needs the same flags in this container everywhere: they are here too.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

#: The repository: scripts run from here, so ``ui`` and ``attention_core`` import.
ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A loopback port nothing listens on now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


def streamlit_command(script: Path, port: int) -> list[str]:
    """``python -m streamlit run script`` headless on loopback ``port``, no usage statistics."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.port",
        str(port),
        "--server.address",
        LOOPBACK,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]


def start_server(
    script: Path, port: int, log: IO[str] | int = subprocess.DEVNULL
) -> subprocess.Popen:
    """Start :func:`streamlit_command` from :data:`ROOT`; its output (and errors) go to ``log``."""
    return subprocess.Popen(
        streamlit_command(script, port), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )


def url_of(port: int) -> str:
    return f"http://{LOOPBACK}:{port}"


def wait_healthy(process: subprocess.Popen, url: str, timeout: float = 60.0) -> None:
    """Return once ``url/_stcore/health`` answers 200; fail if ``process`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("streamlit did not become healthy in time")


def stop(process: subprocess.Popen) -> None:
    """Ask the server to stop; kill it if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@contextlib.contextmanager
def running_server(
    script: Path, log: IO[str] | int = subprocess.DEVNULL
) -> Iterator[tuple[subprocess.Popen, str]]:
    """A healthy `streamlit run script` on a free port: yield its process and base URL; stop it."""
    port = free_port()
    process = start_server(script, port, log)
    try:
        url = url_of(port)
        wait_healthy(process, url)
        yield process, url
    finally:
        stop(process)
