"""What each catalogue decoder costs a server.

These machines cannot download the catalogue's models, so each decoder is measured
on a checkpoint of exactly its published shape and storage type, built here with
random weights (``transformers``, offline): the same tensors, bytes and arithmetic
as the Hub's file, other numbers. The bundled all-MiniLM-L6-v2 (the real file) is
measured the same way for comparison. Each model is measured in a fresh Python
process that has imported NumPy, ``tokenizers`` and the core before it starts:

- load: ``attention_core.pretrained.load_checkpoint`` of the folder (config,
  weights, tokenizer), seconds, the file already in the page cache (as it is right
  after a download);
- memory after loading; the peak (VmHWM, reset after loading) during the first
  128-token forward pass, nothing else held; and the peak while the next passes
  run with the previous trace held, as the page's trace cache holds the newest
  one. All above that bare process (MB). Resident memory is split into anonymous
  memory (the process's own) and mapped file pages (the memory-mapped weights,
  which the kernel can drop and read again);
- forward: one 128-token forward pass as the page runs it
  (:func:`~attention_core.pretrained.slim.slim_forward`: one layer's steps held at a
  time) through our NumPy core on one BLAS thread: the first (it reads the mapped
  weights) and the median of the next ones (ms);
- trace: the bytes the page's cache keeps per 128-token input (a
  :class:`~attention_core.pretrained.slim.SlimTrace`), and for comparison a whole
  :class:`~attention_core.pretrained.ModelTrace` (every layer's every step and the
  logits).

Memory is in MB of 2^20 bytes (``/proc``'s kB / 1024, as in the other memory
benchmarks); file sizes in MB of 10^6 bytes, as the catalogue and the Hub give them.

The deployment's default set is the bundled model only (the class-mix benchmark
measures its peak); the decoders are opt-in, and these are their costs. Report
only: wall-clock figures on a shared machine carry no target.

    python -m benchmarks.decoders
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import Result, emit
from hosting.models.catalogue import DISTILGPT2, SMOLLM2_135M, CatalogueEntry

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "Each catalogue decoder is built offline with `transformers` from its published "
    "`config.json` fields, with random weights in the storage type of the Hub's file, and "
    "saved as the Hub serves it in a temporary folder (the run refuses a shape whose "
    "parameter count differs from the catalogue's): the same tensors, bytes and arithmetic as "
    "the real files. The bundled all-MiniLM-L6-v2 goes through the same `load_checkpoint`. "
    "Each model runs in a fresh process that has imported NumPy, `tokenizers` and the core, "
    "on one BLAS thread: load time, memory after loading, the peak (`VmHWM`, reset after "
    "loading) over 128-token forward passes with the previous result held as the page's cache "
    "holds it, the first pass's time and what the page keeps per input (its `SlimTrace`). "
    "Reported only."
)

if TYPE_CHECKING:
    from attention_core.pretrained import ModelInfo

#: One model's measurements by name (``shape`` is text, the rest numbers).
Figures = dict[str, Any]

ROOT = Path(__file__).resolve().parent.parent
TOKENS = 128
FORWARDS = 5  #: timed forward passes after the first
MB = 2**20
REPORT_ONLY = float("inf")
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Decoder:
    """A catalogue decoder's published ``config.json`` fields and its stored dtype on the Hub."""

    entry: CatalogueEntry
    family: str  #: "gpt2" or "llama": which transformers config class
    fields: dict[str, Any] = field(hash=False)
    dtype: str  #: torch dtype of the Hub's model.safetensors
    #: Buffers the Hub's older file still stores (GPT-2's causal-mask ``attn.bias``,
    #: (1, 1, n_positions, n_positions) float32 per layer): added so the file has the
    #: published size; the core maps them and never reads them.
    mask_buffers: bool = False

    @property
    def name(self) -> str:
        return self.entry.repo_id.split("/")[1]


#: The published configs (config.json on the Hub at the pinned revisions).
DECODERS = (
    Decoder(
        DISTILGPT2,
        "gpt2",
        {
            "n_embd": 768,
            "n_head": 12,
            "n_layer": 6,
            "n_positions": 1024,
            "n_ctx": 1024,
            "vocab_size": 50257,
            "activation_function": "gelu_new",
            "layer_norm_epsilon": 1e-5,
        },
        "float32",
        mask_buffers=True,
    ),
    Decoder(
        SMOLLM2_135M,
        "llama",
        {
            "hidden_size": 576,
            "intermediate_size": 1536,
            "num_attention_heads": 9,
            "num_key_value_heads": 3,
            "num_hidden_layers": 30,
            "vocab_size": 49152,
            "max_position_embeddings": 8192,
            "rope_theta": 100000.0,
            "rms_norm_eps": 1e-5,
            "hidden_act": "silu",
            "tie_word_embeddings": True,
        },
        "bfloat16",
    ),
)


def save_tokenizer(folder: Path) -> None:
    """A word-level tokenizer: the forward pass is measured on ids, not on text."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocabulary = {"[UNK]": 0, **{f"w{i}": i for i in range(1, 100)}}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))


def add_mask_buffers(folder: Path, n_layers: int, n_positions: int) -> None:
    """Add GPT-2's per-layer causal-mask buffers to ``model.safetensors``, as the Hub's has."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    path = folder / "model.safetensors"
    tensors = load_file(path)
    prefix = "transformer." if any(n.startswith("transformer.") for n in tensors) else ""
    mask = np.tril(np.ones((n_positions, n_positions), np.float32))[None, None]
    for i in range(n_layers):
        tensors[f"{prefix}h.{i}.attn.bias"] = mask
        tensors[f"{prefix}h.{i}.attn.masked_bias"] = np.array(-1e4, np.float32)
    save_file(tensors, path, metadata={"format": "pt"})


def build(folder: Path, decoder: Decoder) -> None:
    """A random checkpoint of ``decoder``'s shape, saved as the Hub serves it (safetensors).

    Refuses a shape whose parameter count is not the catalogue's (a check of the fields).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported
    import torch
    import transformers

    config_class = {"gpt2": transformers.GPT2Config, "llama": transformers.LlamaConfig}
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(
        config_class[decoder.family](**decoder.fields)
    )
    parameters = sum(p.numel() for p in model.parameters())  # tied weights counted once
    if parameters != decoder.entry.parameters:
        raise RuntimeError(
            f"{decoder.name}: {parameters:,} parameters, the catalogue says "
            f"{decoder.entry.parameters:,}: the fields are not the published config"
        )
    model.to(getattr(torch, decoder.dtype)).save_pretrained(folder, safe_serialization=True)
    del model
    if decoder.mask_buffers:
        add_mask_buffers(folder, int(decoder.fields["n_layer"]), int(decoder.fields["n_positions"]))
    save_tokenizer(folder)


def memory() -> dict[str, float]:
    """This process's resident memory (VmRSS), its anonymous and file parts, and peak, MB."""
    wanted = {"VmRSS:": "rss", "RssAnon:": "anon", "RssFile:": "file", "VmHWM:": "peak"}
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            key = line.split()[0]
            if key in wanted:
                found[wanted[key]] = int(line.split()[1]) / 1024
    return found


def reset_peak() -> None:
    """Set VmHWM back to the current resident memory (Linux ``clear_refs`` value 5)."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def shape(info: ModelInfo) -> str:
    """The loaded model's shape as the core read it from config.json, for the report."""
    rope = f", RoPE base {info.rotary_base:g}" if info.rotary_base else ""
    return (
        f"L {info.n_layers}, H {info.n_heads}, Hkv {info.n_kv_heads}, d {info.d_model}, "
        f"V {info.vocab_size}{rope}"
    )


def measure_here(folder: str) -> Figures:
    """Run in the fresh process: load ``folder``, forward 128 tokens, report the figures."""
    import numpy as np
    import safetensors  # noqa: F401  (the app has them loaded already: not the model's cost)
    import tokenizers  # noqa: F401

    from attention_core.pretrained import load_checkpoint
    from attention_core.pretrained.slim import slim_forward

    base = memory()
    start = time.perf_counter()
    model = load_checkpoint(folder)
    load_s = time.perf_counter() - start
    loaded = memory()
    reset_peak()
    ids = np.random.default_rng(0).integers(0, model.info.vocab_size, TOKENS)
    start = time.perf_counter()
    trace = slim_forward(model.model, ids)  # the page's pass; nothing cached yet
    first_ms = 1000 * (time.perf_counter() - start)
    alone = memory()
    reset_peak()
    times = []
    for _ in range(FORWARDS):  # the previous trace stays held, as the page's cache keeps it
        start = time.perf_counter()
        trace = slim_forward(model.model, ids)
        times.append(1000 * (time.perf_counter() - start))
    held = memory()
    trace_bytes = trace.nbytes
    del trace
    after = memory()
    whole = model.forward(ids)  # every layer's every step, for comparison (after the peaks)
    whole_bytes, logits_bytes = whole.nbytes, 0 if whole.logits is None else whole.logits.nbytes
    del whole
    return {
        "load_s": load_s,
        "load_peak_mb": loaded["peak"] - base["rss"],
        "loaded_mb": loaded["rss"] - base["rss"],
        "loaded_anon_mb": loaded["anon"] - base["anon"],
        "loaded_file_mb": loaded["file"] - base["file"],
        "peak_mb": alone["peak"] - base["rss"],
        "peak_held_mb": held["peak"] - base["rss"],
        "after_anon_mb": after["anon"] - base["anon"],
        "after_file_mb": after["file"] - base["file"],
        "first_forward_ms": first_ms,
        "forward_ms": statistics.median(times),
        "trace_mb": trace_bytes / MB,
        "whole_trace_mb": whole_bytes / MB,
        "logits_mb": logits_bytes / MB,
        "shape": shape(model.info),
        "file_mb": sum(p.stat().st_size for p in Path(folder).glob("*.safetensors")) / 10**6,
    }


def measure(folder: Path) -> Figures:
    """:func:`measure_here` in a fresh Python process on one BLAS thread."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.decoders", "--measure", str(folder)],
        cwd=ROOT,
        env={**os.environ, **ONE_THREAD, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"measuring {folder.name} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def results(name: str, figures: Figures, published_mb: float) -> list[Result]:
    """The figures of one model as report-only results."""

    def mb(value: float) -> float:
        return round(value, 1)

    return [
        Result(
            f"decoders: {name}: load, fresh process",
            round(figures["load_s"], 3),
            REPORT_ONLY,
            "s",
            details={
                "shape": figures["shape"],
                "model.safetensors MB (10^6 B)": round(figures["file_mb"], 1),
                "published MB (10^6 B)": published_mb,
            },
        ),
        Result(
            f"decoders: {name}: memory after loading",
            mb(figures["loaded_mb"]),
            REPORT_ONLY,
            "MB",
            details={
                "anonymous MB": mb(figures["loaded_anon_mb"]),
                "mapped file MB": mb(figures["loaded_file_mb"]),
                "peak while loading MB": mb(figures["load_peak_mb"]),
            },
        ),
        Result(
            f"decoders: {name}: peak memory, {TOKENS}-token forward passes",
            mb(figures["peak_mb"]),
            REPORT_ONLY,
            "MB",
            details={
                "one trace held meanwhile MB": mb(figures["peak_held_mb"]),
                "after them: anonymous MB": mb(figures["after_anon_mb"]),
                "mapped file MB": mb(figures["after_file_mb"]),
            },
        ),
        Result(
            f"decoders: {name}: forward pass, {TOKENS} tokens, 1 thread",
            round(figures["forward_ms"], 1),
            REPORT_ONLY,
            "ms",
            details={"first pass ms": round(figures["first_forward_ms"], 1), "samples": FORWARDS},
        ),
        Result(
            f"decoders: {name}: what the page caches per {TOKENS}-token input (SlimTrace)",
            mb(figures["trace_mb"]),
            REPORT_ONLY,
            "MB",
            details={
                "whole ModelTrace MB": mb(figures["whole_trace_mb"]),
                "of which logits MB": mb(figures["logits_mb"]),
            },
        ),
    ]


def main() -> None:
    """Build every catalogue decoder's checkpoint in a temporary folder, measure each."""
    from attention_core.pretrained import loading
    from hosting.models.catalogue import BUNDLED

    found = results(
        "all-MiniLM-L6-v2 (bundled)", measure(loading.model_directory()), BUNDLED.size_mb
    )
    with tempfile.TemporaryDirectory(prefix="decoders-") as scratch:
        for decoder in DECODERS:
            folder = Path(scratch) / decoder.name
            folder.mkdir()
            print(f"building {decoder.name} ...", file=sys.stderr, flush=True)
            build(folder, decoder)
            found += results(decoder.name, measure(folder), decoder.entry.size_mb)
    emit(found)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure_here(sys.argv[2])))
    else:
        main()
