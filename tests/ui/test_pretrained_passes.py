"""The pretrained page's decoder passes run one at a time per server (their memory adds up)."""

from __future__ import annotations

import threading
import time

from ui.pretrained import passes


def test_decoder_passes_started_together_run_one_after_another() -> None:
    running, most, lock = [0], [0], threading.Lock()

    def a_pass() -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return "done"

    results: list[str] = []
    threads = [
        threading.Thread(target=lambda: results.append(passes.one_at_a_time(a_pass)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["done"] * 4 and most[0] == 1
