"""The real trained decoder, SmolLM2-135M-Instruct (4-bit GGUF), at its real size.

The file ``make bench`` fetches (:mod:`hosting.models.packaged`), 30 layers × 9 heads,
measured three ways:

- **forward pass vs transformers**, in one process with the same two threads: our
  :func:`~attention_core.pretrained.slim.slim_forward` (the pass the page runs: every
  layer's weights, predictions) against transformers' eager pass reading the same GGUF
  file (``gguf_file=``, float32, attention weights returned), alternated, median of the
  per-pair ratios at 16, 64 and 128 tokens. Target: within 2× at 128 tokens.
- **memory the model adds to the server**, in a fresh process that has imported what
  the app imports first: the peak (VmHWM, which counts mapped file pages as a
  container does) while loading and running 128-token passes with the previous trace
  held, as the page's cache holds it, minus the resident memory before loading.
  Target: ≤ 250 MB.
- **load**: ``load_checkpoint`` of the file in that fresh process (the file in the
  page cache, as after ``make``); and, for the header alone, our reader against the
  ``gguf`` package's ``GGUFReader`` (time and resident memory, each in a fresh process).

Each is measured for three ways of keeping the weights, the trade-off between memory
and time: ``repacked`` (the app's: 4-bit blocks rearranged at load, each layer
dequantised while it runs), ``gguf`` (the file's blocks, dequantised by
``gguf.quants.dequantize``) and ``float32`` (every weight dequantised once at load).

    python -m benchmarks.real_decoder
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from benchmarks.common import Result, emit, interleaved_ratio
from benchmarks.decoders import memory, reset_peak
from hosting.models.packaged import SMOLLM2_INSTRUCT, installed
from hosting.settings import packaged_dir

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "The real SmolLM2-135M-Instruct (4-bit GGUF) that `make bench` fetches, with its weights "
    "kept three ways: repacked 4-bit blocks dequantised one layer at a time (the app's way, "
    "the one with targets), the file's blocks dequantised by `gguf.quants`, and every weight "
    "dequantised once to float32. Memory: in a fresh process that has imported what the app "
    "imports first, the peak (`VmHWM`, which counts mapped file pages as a container does) "
    "while loading and running four 128-token passes, each with the previous trace held, "
    "minus the resident memory before loading (target at most 250 MB). Speed: `slim_forward` "
    "against transformers' eager pass reading the same file, alternated in one process on two "
    "threads each, 7 pairs per length; the median per-pair ratio (target at most 2x at 128 "
    "tokens). Last, reading the file's header with this app's reader and with `gguf`'s "
    "`GGUFReader`, each in a fresh process. Heads turned off: benchmark real_heads_off."
)

ROOT = Path(__file__).resolve().parent.parent
LENGTHS = (16, 64, 128)
PAIRS = 7  #: alternated pairs per length
PASSES = 3  #: held passes in the memory run
THREADS = {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
VARIANTS = ("repacked", "gguf", "float32")
RATIO_TARGET = 2.0
MEMORY_TARGET_MB = 250.0
REPORT_ONLY = float("inf")


def model_file() -> Path:
    path = installed(SMOLLM2_INSTRUCT, packaged_dir())
    if path is None:
        raise SystemExit("The real decoder is missing: run `make model` first.")
    return path


def load(path: Path, variant: str) -> Any:
    """The checkpoint with its weights kept the ``variant`` way."""
    from attention_core.pretrained import load_checkpoint, quantised

    if variant == "gguf":
        quantised.REPACKED.clear()  # every quantised matrix read by gguf.quants instead
    checkpoint = load_checkpoint(path)
    if variant == "float32":
        return replace(checkpoint, model=_widened(checkpoint.model))
    return checkpoint


def _widened(model: Any) -> Any:
    """``model`` with every stored weight dequantised once to float32."""
    from attention_core.pretrained.tensors import widen

    def wide(item: Any) -> Any:
        return {
            f.name: widen(getattr(item, f.name))
            for f in fields(item)
            if hasattr(getattr(item, f.name), "widen")
        }

    layers = tuple(replace(layer, **wide(layer)) for layer in model.layers)
    return replace(model, layers=layers, **wide(model))


def memory_here(variant: str) -> dict[str, float]:
    """In a fresh process: the resident memory the model adds while loading and running."""
    import numpy as np
    import tokenizers  # noqa: F401  (the app has these loaded before any model)

    import attention_core.pretrained.checkpoint  # noqa: F401
    from attention_core.pretrained.slim import slim_forward

    base = memory()
    start = time.perf_counter()
    checkpoint = load(model_file(), variant)
    load_s = time.perf_counter() - start
    loaded = memory()
    ids = np.random.default_rng(0).integers(0, checkpoint.info.vocab_size, LENGTHS[-1])
    reset_peak()
    held = slim_forward(checkpoint.model, ids)
    for _ in range(PASSES):
        held = slim_forward(checkpoint.model, ids)  # the last one stays held meanwhile
    running = memory()
    return {
        "load_s": load_s,
        "loaded_mb": loaded["peak"] - base["rss"],
        "peak_mb": max(loaded["peak"], running["peak"]) - base["rss"],
        "anon_mb": running["anon"] - base["anon"],
        "file_mb": running["file"] - base["file"],
        "trace_mb": held.nbytes / 2**20,
    }


def reader_here(which: str) -> dict[str, float]:
    """In a fresh process: the time and resident memory of reading the file's header."""
    import gguf  # imported before the clock starts: not the reader's cost

    from attention_core.pretrained.gguf_file import read_gguf

    base = memory()
    start = time.perf_counter()
    read = read_gguf(model_file()) if which == "ours" else gguf.GGUFReader(model_file())
    seconds = time.perf_counter() - start
    after = memory()
    del read
    return {"s": seconds, "mb": after["peak"] - base["rss"]}


def timing_here(variant: str) -> dict[str, list[float]]:
    """Ours against transformers on the same file and threads, alternated, per length."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import numpy as np
    import torch
    import transformers

    from attention_core.pretrained.slim import slim_forward

    torch.set_num_threads(2)
    path = model_file()
    ours = load(path, variant)
    reference = transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, attn_implementation="eager", dtype=torch.float32
    ).eval()
    found: dict[str, list[float]] = {}
    for length in LENGTHS:
        ids = np.random.default_rng(length).integers(0, ours.info.vocab_size, length)
        batch = torch.tensor(ids)[None]

        def theirs(batch: torch.Tensor = batch) -> None:
            with torch.no_grad():
                reference(batch, output_attentions=True)

        ratio, spread, ours_s, theirs_s = interleaved_ratio(
            lambda ids=ids: slim_forward(ours.model, ids), theirs, PAIRS
        )
        found[str(length)] = [ratio, *spread, ours_s, theirs_s]
    return found


def _fresh(kind: str, variant: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_decoder", f"--{kind}", variant],
        cwd=ROOT,
        env={**os.environ, **THREADS, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} {variant} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def results(variant: str) -> list[Result]:
    memory_figures, timing = _fresh("memory", variant), _fresh("timing", variant)
    chosen = variant == "repacked"
    label = f"real decoder ({variant})"
    out = [
        Result(
            f"{label}: memory the model adds, 128-token passes, trace held",
            round(memory_figures["peak_mb"], 1),
            MEMORY_TARGET_MB if chosen else REPORT_ONLY,
            "MB",
            details={
                "after loading MB": round(memory_figures["loaded_mb"], 1),
                "anonymous MB": round(memory_figures["anon_mb"], 1),
                "mapped file MB": round(memory_figures["file_mb"], 1),
                "trace MB": round(memory_figures["trace_mb"], 1),
                "load s": round(memory_figures["load_s"], 2),
            },
        )
    ]
    for length in LENGTHS:
        ratio, low, high, ours_s, theirs_s = timing[str(length)]
        at_target = chosen and length == LENGTHS[-1]
        out.append(
            Result(
                f"{label}: forward pass / transformers eager, {length} tokens, 2 threads",
                round(ratio, 2),
                RATIO_TARGET if at_target else REPORT_ONLY,
                "×",
                spread=(round(low, 2), round(high, 2)),
                details={
                    "ours ms": round(1000 * ours_s),
                    "transformers ms": round(1000 * theirs_s),
                },
            )
        )
    return out


def reader_results() -> list[Result]:
    ours, theirs = _fresh("reader", "ours"), _fresh("reader", "gguf")
    return [
        Result(
            f"real decoder: reading the GGUF header, {name}",
            round(figures["s"], 2),
            REPORT_ONLY,
            "s",
            details={"resident MB": round(figures["mb"], 1)},
        )
        for name, figures in (("ours", ours), ("gguf.GGUFReader", theirs))
    ]


HERE = {
    "--memory": memory_here,
    "--timing": timing_here,
    "--reader": reader_here,
}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] in HERE:
        print(json.dumps(HERE[sys.argv[1]](sys.argv[2])))
        return
    model_file()
    emit([r for variant in VARIANTS for r in results(variant)] + reader_results())


if __name__ == "__main__":
    main()
