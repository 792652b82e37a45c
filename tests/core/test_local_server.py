"""The one local `streamlit run` (harness/local_server.py) that tests and benchmarks start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.local_server import free_port, streamlit_command, url_of, wait_healthy


def test_the_command_runs_the_script_headless_on_loopback_without_usage_statistics() -> None:
    assert streamlit_command(Path("/repo/app.py"), 8765) == [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "/repo/app.py",
        "--server.port",
        "8765",
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]


def test_a_server_that_exits_before_it_is_healthy_fails_at_once() -> None:
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait(timeout=30)
    with pytest.raises(RuntimeError, match="exited early with code 3"):
        wait_healthy(process, url_of(free_port()), timeout=30)
