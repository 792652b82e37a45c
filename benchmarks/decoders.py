"""Benchmark 14: what each catalogue decoder costs a server (issue 22, part 3).

These machines cannot download the catalogue's models, so each one is measured on a
checkpoint of exactly its shape and storage type built here with random weights
(``transformers``, offline): the same tensors, bytes and arithmetic as the real
file, other numbers. Each model is then measured in a fresh Python process:

- load: ``attention_core.pretrained.load_checkpoint`` of the folder (config, weights,
  tokenizer), seconds;
- memory: the process's resident memory after loading, and its peak (VmHWM) after
  forward passes of 128 tokens, both above a bare process that imported NumPy and
  the core (MB);
- forward: one 128-token forward pass through our NumPy core on one BLAS thread,
  median of several (ms).

The deployment's default set is the bundled all-MiniLM-L6-v2 only (the class-mix
benchmark measures its peak); the decoders are opt-in, and these are their costs.

    python -m benchmarks.decoders
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from benchmarks.common import Result, emit
from hosting.local_server import ROOT

TOKENS = 128
FORWARDS = 5
#: The catalogue's decoders, as published on the Hub (config.json fields), and the
#: storage type of their model.safetensors there.
SHAPES: dict[str, tuple[str, dict[str, object], str]] = {
    "distilgpt2": (
        "gpt2",
        {
            "n_embd": 768,
            "n_head": 12,
            "n_layer": 6,
            "n_positions": 1024,
            "vocab_size": 50257,
            "activation_function": "gelu_new",
            "layer_norm_epsilon": 1e-5,
        },
        "float32",
    ),
    "SmolLM2-135M": (
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
            "tie_word_embeddings": True,
        },
        "bfloat16",
    ),
}

MEASURE = """
import json, os, statistics, sys, time
import numpy as np
from attention_core.pretrained import load_checkpoint

def rss(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) / 1024

base = rss("VmRSS:")
start = time.perf_counter()
model = load_checkpoint(sys.argv[1])
loaded_s = time.perf_counter() - start
loaded = rss("VmRSS:")
ids = np.random.default_rng(0).integers(0, model.info.vocab_size, int(sys.argv[2]))
times = []
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    trace = model.forward(ids)
    times.append(1000 * (time.perf_counter() - start))
    del trace
print(json.dumps({"load_s": loaded_s, "loaded_mb": loaded - base,
                  "peak_mb": rss("VmHWM:") - base, "forward_ms": statistics.median(times),
                  "file_mb": sum(p.stat().st_size for p in os.scandir(sys.argv[1])) / 2**20}))
"""


def tokenizer_json(folder: Path) -> None:
    """A word-level tokenizer: the forward pass is measured on ids, not on text."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocabulary = {"[UNK]": 0, **{f"w{i}": i for i in range(1, 100)}}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))


def build(folder: Path, family: str, fields: Mapping[str, object], dtype: str) -> None:
    """A random checkpoint of this shape, saved as the Hub serves it (safetensors)."""
    import torch
    import transformers

    config_class = {"gpt2": transformers.GPT2Config, "llama": transformers.LlamaConfig}[family]
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config_class(**fields))
    model.to(getattr(torch, dtype)).save_pretrained(folder, safe_serialization=True)
    tokenizer_json(folder)


def measure(name: str, folder: Path) -> list[Result]:
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(folder), str(TOKENS), str(FORWARDS)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    details = {
        "model.safetensors MB": round(figures["file_mb"]),
        "load s": round(figures["load_s"], 2),
    }
    report = float("inf")
    return [
        Result(
            f"decoders: {name}: memory after loading",
            round(figures["loaded_mb"]),
            report,
            "MB",
            details=details,
        ),
        Result(
            f"decoders: {name}: peak memory, {TOKENS}-token forward passes",
            round(figures["peak_mb"]),
            report,
            "MB",
        ),
        Result(
            f"decoders: {name}: forward pass, {TOKENS} tokens, 1 thread",
            round(figures["forward_ms"], 1),
            report,
            "ms",
            details={"samples": FORWARDS},
        ),
    ]


def main() -> None:
    results = []
    for name, (family, fields, dtype) in SHAPES.items():
        with tempfile.TemporaryDirectory() as folder:
            build(Path(folder), family, fields, dtype)
            results += measure(name, Path(folder))
    emit(results)


if __name__ == "__main__":
    main()
