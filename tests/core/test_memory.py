"""The app's server reuses the memory its reruns free (attention_core.memory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Page faults while computing 20 multi-head traces at T = 256 (8 heads; four
# 2 MB arrays each) after 5 warm-up runs: fresh memory faults in every page.
COUNT_FAULTS = """
import resource, sys
import numpy as np
import attention_core as ac
if sys.argv[1] == "keep":
    from attention_core.memory import keep_freed_memory
    assert keep_freed_memory()
elif sys.argv[1] == "app":
    from streamlit.testing.v1 import AppTest  # the app's entry script sets it up
    AppTest.from_file("app.py", default_timeout=60).run()
rng = np.random.default_rng(0)
x = rng.standard_normal((256, 256)).astype(np.float32)
w = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
mask = ac.causal_mask(256)
def run():
    ac.multi_head_attention(x, w, w, w, w_o=w, n_heads=8, mask=mask)
for _ in range(5):
    run()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    run()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def page_faults(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", COUNT_FAULTS, mode],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return int(done.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_kept_memory_is_reused_instead_of_faulting_in_fresh_pages() -> None:
    fresh = page_faults("default")
    assert fresh > 20 * 4 * 512 // 2  # at least half of the 2 MB arrays' pages, every run
    assert page_faults("keep") < fresh // 100
    assert page_faults("app") < fresh // 100  # app.py turns it on for every page
