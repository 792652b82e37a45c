"""The app's server reuses the memory its reruns free (hosting.memory)."""

from __future__ import annotations

import sys

import pytest

from hosting.memory import MALLOC_ARENAS, TRIM_THRESHOLD
from tests.snippets import run_python

# Page faults while computing 20 multi-head traces at T = 256 (8 heads; four
# 2 MB arrays each) after 5 warm-up runs: fresh memory faults in every page.
COUNT_FAULTS = """
import resource, sys
import numpy as np
import attention_core as ac
if sys.argv[1] == "keep":
    from hosting.memory import keep_freed_memory
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
    return int(run_python(COUNT_FAULTS, mode))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_kept_memory_is_reused_instead_of_faulting_in_fresh_pages() -> None:
    fresh = page_faults("default")
    assert fresh > 20 * 4 * 512 // 2  # at least half of the 2 MB arrays' pages, every run
    assert page_faults("keep") < fresh // 100
    assert page_faults("app") < fresh // 100  # app.py turns it on for every page


# 16 threads alive at once, each allocating and freeing ~20 MB (as 16 sessions' trainings
# do while they wait their turn): peak resident memory in MB.
THREADS_PEAK = """
import resource, sys, threading
import numpy as np
if sys.argv[1] == "keep":
    from hosting.memory import keep_freed_memory
    assert keep_freed_memory()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
barrier = threading.Barrier(16)
lock = threading.Lock()
def work():
    small = [np.ones(64) for _ in range(100)]  # every thread allocates: an arena of its own
    barrier.wait()
    with lock:  # one at a time, as trainings take turns
        blocks = [np.ones(250_000) for _ in range(10)]  # 2 MB each, from the heap
        del blocks
threads = [threading.Thread(target=work) for _ in range(16)]
[t.start() for t in threads]
[t.join() for t in threads]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024 - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_memory_kept_by_many_threads_is_bounded_by_two_arenas() -> None:
    grown = int(run_python(THREADS_PEAK, "keep"))
    # each arena keeps at most TRIM_THRESHOLD free on top of the 20 MB in use: two arenas
    # bound the growth by ~2 x (32 + 20) MB; with one arena per thread it was ~380 MB here
    assert MALLOC_ARENAS == 2
    assert grown < 2 * (TRIM_THRESHOLD // 2**20 + 20) + 20, grown
