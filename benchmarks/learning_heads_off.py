"""The learning page's "Turn heads off": what each head alone is worth, per shipped seed.

Figures, over the runs shipped with the app (the page's defaults, seeds 0-29; no training):
- induction: the seeds for which zeroing either head of the textbook circuit alone (the
  layer-1 head with the best previous-token score, the layer-2 head with the best induction
  score) costs more than 15 points of held-out accuracy, the claim the page makes
  (:func:`attention_core.learning.claims.needs_both_circuit_heads`); the details hold every
  seed's intact accuracy, both drops, the claim, and whether the two heads are also the two
  largest drops of the sweep (the textbook statement, which the page does not promise);
- sort: the seeds for which every layer-1 head alone costs more than 3 points and no
  layer-2 head alone more than 1 (:func:`~attention_core.learning.claims.sort_rests_on_layer_one`).
"""

from __future__ import annotations

import dataclasses

from attention_core.learning import claims, shipped
from attention_core.learning.ablation import Sweep, single_head_sweep
from attention_core.learning.config import DEFAULTS
from attention_core.learning.result import TinyTransformerResult
from benchmarks.common import Result, emit
from ui.shared.heads_off import head_label

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
DETAILS_SHOWN = True  #: BENCHMARKS.md shows the per-seed table of each row
METHOD = (
    "For the runs shipped with the app (each task's defaults, seeds 0–29, no training), the "
    "held-out token accuracy (512 fixed held-out sequences) of the NumPy forward pass with "
    "every head on and with each head alone zeroed (`attention_core/learning/ablation.py`). "
    "Induction: how many seeds keep the page's claim, that zeroing either head of the textbook "
    "circuit (the layer-1 head with the best previous-token score, the layer-2 head with the "
    "best induction score) costs more than 15 points (target at least 27 of 30); the per-seed "
    "table in the row's details: intact accuracy, the drop with each circuit head off, the "
    "claim, and whether those two heads are also the sweep's two largest drops. Sort: how many "
    "seeds have every layer-1 head alone costing more than 3 points and no layer-2 head alone "
    "more than 1 (target at least 27 of 30)."
)

CLAIM_TARGET = 27  # of 30: nine seeds in ten, as the page's other claims


def load(task: str, seed: int) -> TinyTransformerResult:
    model, train = DEFAULTS[task]
    result = shipped.shipped_run(model, dataclasses.replace(train, seed=seed))
    assert result is not None
    return result


def points(drop: float) -> str:
    """Held-out accuracy lost, in points (below 0: the model does better without the head)."""
    return f"{round(100 * drop, 1) + 0.0:.1f}"  # + 0.0: no "-0.0"


def induction_row(result: TinyTransformerResult, sweep: Sweep) -> tuple[bool, str]:
    heads = claims.circuit_heads(result)
    assert heads is not None
    previous, induction = claims.circuit_drops(result, sweep)
    kept = claims.needs_both_circuit_heads(result, sweep)
    largest = claims.circuit_costs_most(result, sweep)
    return kept, (
        f"intact {sweep.intact.accuracy:.1%}"
        f" / previous-token head {head_label(*heads[0])} off: costs {points(previous)} points"
        f" / induction head {head_label(*heads[1])} off: costs {points(induction)} points"
        f" / claim {'kept' if kept else 'NOT KEPT'}"
        f" / the two largest drops: {'yes' if largest else 'no'}"
    )


def sort_row(result: TinyTransformerResult, sweep: Sweep) -> tuple[bool, str]:
    kept = claims.sort_rests_on_layer_one(result, sweep)
    drops = " ".join(
        f"{head_label(layer, head)} {points(sweep.drops[layer, head])}"
        for layer in range(sweep.drops.shape[0])
        for head in range(sweep.drops.shape[1])
    )
    return (
        kept,
        f"intact {sweep.intact.accuracy:.1%} / points lost, each head alone off: {drops} / claim "
        + ("kept" if kept else "NOT KEPT"),
    )


def task_result(task: str, row, name: str) -> Result:
    per_seed, kept, largest = {}, 0, 0
    for seed in shipped.SEEDS:
        result = load(task, seed)
        sweep = single_head_sweep(result, "zero")
        held, words = row(result, sweep)
        kept += held
        largest += task == "induction" and claims.circuit_costs_most(result, sweep)
        per_seed[f"seed {seed}"] = words
    if task == "induction":
        per_seed["the circuit's heads are the two largest drops"] = f"{largest} of 30 seeds"
    return Result(
        name=name,
        figure=kept,
        target=CLAIM_TARGET,
        unit="seeds",
        lower_is_better=False,
        details=per_seed,
    )


def main() -> None:
    emit(
        [
            task_result(
                "induction",
                induction_row,
                "learning, heads off: induction, seeds 0-29 where either circuit head "
                "zeroed alone costs > 15 points",
            ),
            task_result(
                "sort",
                sort_row,
                "learning, heads off: sort, seeds 0-29 where each layer-1 head alone costs "
                "> 3 points and no layer-2 head > 1",
            ),
        ]
    )


if __name__ == "__main__":
    main()
