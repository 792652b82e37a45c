"""Heads turned off in the real SmolLM2-135M-Instruct: the cost of an ablated pass, and the
induction experiment's figures, in one process on two threads (``python -m benchmarks
real_heads_off``; the model is loaded as :mod:`benchmarks.real_decoder` loads it).

- **cost**: the page's ablated pass (:func:`~attention_core.pretrained.slim.ablated_pass`,
  which reuses the cached intact pass below the first ablated layer) against an intact
  ``slim_forward`` at 128 tokens, alternated, median per-pair ratio; the worst case (a head
  of the first layer off: every layer runs again) has the target, 1.5×.
- **experiment**: the copying accuracy on the page's repeated sequence (40 random tokens of
  seed 0 twice) intact, minus the top 1, 3 and 10 induction heads, and minus as many random
  heads (seeds 0, 1, 2, averaged), zeroed
  (:func:`~attention_core.pretrained.induction_experiment.induction_experiment`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import Result, interleaved_ratio

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "The real SmolLM2-135M-Instruct (4-bit GGUF, repacked as the app keeps it), in one process "
    "on two threads. Cost: the page's ablated pass, which reuses the cached intact pass below "
    "the first ablated layer, against an intact `slim_forward` at 128 tokens, alternated, 7 "
    "pairs, median per-pair ratio, with a head of layer 1 off (the worst case: every layer "
    "runs again; target at most 1.5x; the CPU time's ratio, less moved by other jobs on a "
    "shared machine, and the top 10 induction heads' in the details). The induction "
    "experiment on the page's repeated sequence (40 random tokens of seed 0, twice): the "
    "copying accuracy (the share of the second copy's 39 predictable tokens guessed first) "
    "with every head on, with the top 1, 3 and 10 heads by induction score zeroed, and with as "
    "many heads zeroed at random from the others (seeds 0, 1, 2; the mean)."
)
ABLATED_TARGET = 1.5
LENGTH = 128
PAIRS = 7
REPORT_ONLY = float("inf")


def special_ids(checkpoint: Any) -> tuple[list[int], int | None]:
    """The tokenizer's special ids and the BOS id its texts start with (None if none)."""
    added = checkpoint.tokenizer.whole.get_added_tokens_decoder()
    special = [int(i) for i, token in added.items() if token.special]
    first = int(checkpoint.tokenize("a").ids[0])
    return special, first if first in special else None


def cpu_ratio(subject: Callable[[], object], reference: Callable[[], object]) -> float:
    """Median per-pair ratio of the CPU time (every thread of this process) of ``subject`` to
    ``reference``, alternated: less moved by other jobs on a shared machine than wall time."""
    ratios = []
    for _ in range(PAIRS):
        start = time.process_time()
        subject()
        middle = time.process_time()
        reference()
        ratios.append((middle - start) / (time.process_time() - middle))
    return statistics.median(ratios)


def figures_here(checkpoint: Any) -> dict[str, Any]:
    """Cost ratios and the experiment's accuracies, in this process (two threads)."""
    import numpy as np

    from attention_core.maths.ablation import Ablation
    from attention_core.pretrained import circuits
    from attention_core.pretrained.induction_experiment import (
        COPY_LENGTH,
        RANDOM_SEEDS,
        copy_test_ids,
        copying_accuracy,
        copying_on,
        induction_experiment,
        top_heads,
    )
    from attention_core.pretrained.slim import ablated_pass, slim_forward

    model = checkpoint.model
    special, bos = special_ids(checkpoint)
    copy_run = slim_forward(model, copy_test_ids(model.info.vocab_size, special, bos))
    scores = circuits.detect_heads(copy_run.weights, COPY_LENGTH)["induction"]
    start = time.perf_counter()
    found = induction_experiment(
        copying_on(model, copy_run, COPY_LENGTH),
        scores,
        copying_accuracy(copy_run.ranks, COPY_LENGTH),
    )
    experiment_s = time.perf_counter() - start
    ids = np.random.default_rng(LENGTH).integers(0, model.info.vocab_size, LENGTH)
    intact = slim_forward(model, ids)
    costs = {}
    for name, heads in (("first", [(0, 0)]), ("top10", list(top_heads(scores, 10)))):
        ablation = Ablation.of(heads)

        def ablated(a: Ablation = ablation) -> object:
            return ablated_pass(model, intact, a)

        def whole() -> object:
            return slim_forward(model, ids)

        costs[name] = (*interleaved_ratio(ablated, whole, PAIRS), cpu_ratio(ablated, whole))
    return {
        "intact": found.intact,
        "rows": [
            [row.size, [list(h) for h in row.top], row.top_accuracy, list(row.random_accuracies)]
            for row in found.rows
        ],
        "seeds": list(RANDOM_SEEDS),
        "experiment_s": experiment_s,
        "costs": {
            name: [ratio, *spread, ours, theirs, cpu]
            for name, (ratio, spread, ours, theirs, cpu) in costs.items()
        },
    }


def heads_off_results(figures: dict[str, Any]) -> list[Result]:
    """The rows: the ablated / intact cost ratio, then the experiment's accuracies."""
    ratio, low, high, ablated_s, intact_s, cpu = figures["costs"]["first"]
    top10 = figures["costs"]["top10"]
    out = [
        Result(
            f"real decoder: ablated / intact pass, {LENGTH} tokens (a head of layer 1 off)",
            round(ratio, 2),
            ABLATED_TARGET,
            "×",
            spread=(round(low, 2), round(high, 2)),
            details={
                "ablated ms": round(1000 * ablated_s),
                "intact ms": round(1000 * intact_s),
                "CPU time ×": round(cpu, 2),
                "top 10 induction heads off (from layer 18) ×": round(top10[0], 2),
                "top 10 induction heads off, CPU time ×": round(top10[-1], 2),
            },
        ),
        Result(
            "real decoder: copying accuracy, every head on",
            round(figures["intact"], 3),
            REPORT_ONLY,
            "",
            details={"experiment s (13 passes of 81 tokens)": round(figures["experiment_s"], 1)},
        ),
    ]
    seeds = ", ".join(map(str, figures["seeds"]))
    for size, top, top_accuracy, random_accuracies in figures["rows"]:
        heads = ", ".join(f"L{layer + 1} H{head + 1}" for layer, head in top)
        out += [
            Result(
                f"real decoder: copying accuracy minus the top {size} induction heads",
                round(top_accuracy, 3),
                REPORT_ONLY,
                "",
                details={"heads": heads},
            ),
            Result(
                f"real decoder: copying accuracy minus {size} random heads (mean of seeds {seeds})",
                round(sum(random_accuracies) / len(random_accuracies), 3),
                REPORT_ONLY,
                "",
                details={"per seed": [round(value, 3) for value in random_accuracies]},
            ),
        ]
    return out


def main() -> None:
    """The figures from a fresh process on two threads (set before NumPy loads), then the rows."""
    from benchmarks.common import emit
    from benchmarks.real_decoder import ROOT, THREADS, load, model_file

    if sys.argv[1:] == ["--here"]:
        print(json.dumps(figures_here(load(model_file(), "repacked"))))
        return
    model_file()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_heads_off", "--here"],
        cwd=ROOT, env={**os.environ, **THREADS, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    emit(heads_off_results(json.loads(done.stdout.strip().splitlines()[-1])))


if __name__ == "__main__":
    main()
