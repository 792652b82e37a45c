"""Run every benchmark and print its figures beside the targets.

    make bench                     # all of them
    python -m benchmarks core_vs_torch bytes_per_cell   # a selection

Each benchmark runs in its own process (so thread settings and imports don't
leak between them) and prints JSON results; this collects them into a
Markdown table, printed and written to benchmarks/last_run.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = (
    "core_vs_torch",  # 1. core trace vs torch fused attention
    "bytes_per_cell",  # 2. bytes to the browser per heatmap cell
    "rerun_cost",  # 3. one rerun of the text page vs a minimal page
    "cold_start",  # 4. streamlit run -> text page drawn, vs a bare app
    "classroom",  # 5. 30 browser sessions on one server
    "training",  # 6. the time-series model's default training run
    "learning",  # 7. the learning page: time to 99 % per task, reruns while training
    "capacity",  # 8. N headless sessions on one server (websocket protocol)
    "proxy",  # 9. first visit at 20 Mbit/s, direct vs through nginx with gzip
    "pretrained",  # 10. the pretrained model: load, forward pass, rerun, memory
    "training_storm",  # 11. 30 students open the learning page, each their own seed
    "class_mix",  # 12. peak memory: 30 students over every page; one student's tour
    "class_session",  # 13. a live class: 100 followers + 30 others; 300 on 3 replicas + Redis
    "decoders",  # 14. each catalogue decoder: load, memory, 128-token forward, trace size
    "class_pages",  # 15. a class of 100 follows its teacher over every page
    "real_decoder",  # 16. the real SmolLM2 (4-bit GGUF): forward vs transformers, memory, load
    "classic_series",  # 17. the time-series model on sunspots, Nile, CO₂: level, change, the fix
)


def _run(name: str) -> list[dict]:
    completed = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}"], cwd=ROOT, capture_output=True, text=True
    )
    if completed.returncode != 0:
        return [{"name": name, "error": completed.stderr.strip().splitlines()[-1:]}]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _row(result: dict) -> str:
    if "error" in result:
        return f"| {result['name']} | failed: {result['error']} | | |"
    target = result["target"]
    target_text = (
        "report only"
        if target in (float("inf"), None)
        else (f"{'≤' if result['lower_is_better'] else '≥'} {target} {result['unit']}")
    )
    spread = result.get("spread")
    spread_text = f" ({spread[0]}–{spread[1]})" if spread else ""
    verdict = "" if target_text == "report only" else ("met" if result["met"] else "**not met**")
    details = ", ".join(f"{k} {v}" for k, v in result.get("details", {}).items())
    return (
        f"| {result['name']} | {result['figure']} {result['unit']}{spread_text} | "
        f"{target_text} {verdict} | {details} |"
    )


def main(selected: list[str]) -> None:
    names = selected or list(BENCHMARKS)
    lines = ["| benchmark | figure (min–max) | target | details |", "|---|---|---|---|"]
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        for result in _run(name):
            lines.append(_row(result))
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    (ROOT / "benchmarks" / "last_run.md").write_text(table + "\n")
    print("\n" + table)


if __name__ == "__main__":
    main(sys.argv[1:])
