"""Run a snippet of Python in a fresh interpreter from the project's root (a clean process:
its imports, memory and malloc settings are its own) and return what it printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, *args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.stdout.strip()
