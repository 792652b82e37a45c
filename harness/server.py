"""What the browser benchmarks read off a running server: page states, memory and CPU time.

Starting the server (and the Chromium flags) is harness/local_server.py's, shared with
the browser tests.
"""

from __future__ import annotations

import os
from pathlib import Path

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUNNING = "[data-testid='stApp'][data-test-script-state='running']"
#: A matrix on screen: a plotly chart, or a walkable matrix's canvas (ui/shared/walkable_matrix).
DRAWN = ".js-plotly-plot, .wm-canvas"


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
