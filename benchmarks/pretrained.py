"""The pretrained-model page (all-MiniLM-L6-v2 through attention_core).

- cold load: a fresh Python process imports the loader and runs ``load_model``
  (read 90 MB, SHA-256, build the arrays, two tokenizers). Target <= 1.5 s.
- forward: one 128-token forward pass on one BLAS thread. Target <= 150 ms.
- rerun: the page at 128 tokens, one server rerun after a layer, head or query
  change (the forward pass cached). Target <= 100 ms (median over the changes).
- memory: RSS of this process after the text page, then after the pretrained
  page with four different 128-token inputs (the forward cache full) and every
  view drawn. Target <= 150 MB on top of the app.

Timings are wall-clock on a shared machine: run it when the machine is quiet.
"""

from __future__ import annotations

import os

for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"  # before NumPy loads its BLAS: the "one thread" of the target

import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from streamlit.testing.v1 import AppTest  # noqa: E402

from benchmarks.common import Result, emit, median_result  # noqa: E402
from harness.local_server import ROOT  # noqa: E402

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "Five fresh Python processes each import the loader and load all-MiniLM-L6-v2 (read, "
    "SHA-256, arrays, tokenizers): target at most 1.5 s. Twenty 128-token forward passes with "
    "every BLAS on one thread: target at most 150 ms. Then, in one process through AppTest, "
    "the text page once (the baseline RSS), and the pretrained page for four different "
    "128-token inputs × six views, timing each rerun after a layer, head or query change with "
    "the forward pass cached (target median at most 100 ms), and the RSS after all of them "
    "over the baseline (target at most 150 MB)."
)

LOAD_TARGET_S = 1.5
FORWARD_TARGET_MS = 150.0
RERUN_TARGET_MS = 100.0
MEMORY_TARGET_MB = 150.0
LOAD_SAMPLES = 5
FORWARD_SAMPLES = 20
PAGE = str(ROOT / "views" / "pretrained.py")
TEXT_PAGE = str(ROOT / "views" / "text.py")
VIEWS = ("Guided example", "Model view", "Head view", "Every step", "Head summary", "Rollout")
LOAD_CODE = (
    "import time; start = time.perf_counter()\n"
    "from attention_core.pretrained import loading\n"
    "loading.load_model()\n"
    "print(time.perf_counter() - start)\n"
)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def long_text(seed: int) -> str:
    """An input that fills all 128 tokens (different per seed, so each is a cache miss)."""
    return " ".join(f"sentence {seed} says the animal was tired number {i}." for i in range(40))


def cold_load() -> Result:
    times = []
    for _ in range(LOAD_SAMPLES):
        done = subprocess.run(
            [sys.executable, "-c", LOAD_CODE], cwd=ROOT, capture_output=True, text=True, check=True
        )
        times.append(float(done.stdout.strip().splitlines()[-1]))
    return median_result(
        "pretrained: first model load, fresh process",
        times,
        LOAD_TARGET_S,
        "s",
        digits=3,
        details={"samples": LOAD_SAMPLES},
    )


def forward_pass() -> Result:
    from attention_core.pretrained import bert, loading

    model = loading.load_model()
    encoded = loading.encode(model.tokenizer, long_text(0))
    assert len(encoded) == 128
    bert.forward(model.weights, encoded.ids, encoded.type_ids)
    times = []
    for _ in range(FORWARD_SAMPLES):
        start = time.perf_counter()
        bert.forward(model.weights, encoded.ids, encoded.type_ids)
        times.append(1000 * (time.perf_counter() - start))
    return median_result(
        "pretrained: forward pass, 128 tokens, 1 thread",
        times,
        FORWARD_TARGET_MS,
        "ms",
        digits=1,
        details={"samples": FORWARD_SAMPLES},
    )


def reruns_and_memory() -> list[Result]:
    AppTest.from_file(TEXT_PAGE, default_timeout=120).run()
    before = rss_mb()
    times = []
    for seed in range(4):
        for view in VIEWS:
            at = AppTest.from_file(PAGE, default_timeout=120)
            at.query_params.update({"text": long_text(seed), "view": view})
            at.run()
            if at.exception:
                raise RuntimeError(at.exception[0].message)
            for key, value in (("layer", 2), ("head", 7), ("query", 5), ("layer", 6)):
                widget = at.selectbox(key=key)
                start = time.perf_counter()
                widget.set_value(value).run()
                times.append(1000 * (time.perf_counter() - start))
    after = rss_mb()
    return [
        median_result(
            "pretrained: rerun after layer/head/query change, 128 tokens",
            times,
            RERUN_TARGET_MS,
            "ms",
            digits=1,
            details={"reruns": len(times), "views": len(VIEWS)},
        ),
        Result(
            "pretrained: server memory on top of the app",
            round(after - before, 1),
            MEMORY_TARGET_MB,
            "MB",
            details={"RSS after text page MB": round(before), "after MB": round(after)},
        ),
    ]


def main() -> None:
    emit([cold_load(), forward_pass(), *reruns_and_memory()])


if __name__ == "__main__":
    main()
