"""Run every benchmark and print its figures beside the targets.

    make bench                     # all of them: BENCHMARKS.md and benchmarks/results.json
    python -m benchmarks core_vs_torch bytes_per_cell   # a selection: benchmarks/last_run.md
    python -m benchmarks --render  # BENCHMARKS.md again from benchmarks/results.json
    python -m benchmarks --add class_lesson   # measure some, add them to results.json, render

Each benchmark runs in its own process (so thread settings and imports don't
leak between them) and prints JSON results; this collects them into a
Markdown table, printed and written to benchmarks/last_run.md. A full run also
saves its rows with the machine, the commit and the versions in
benchmarks/results.json and writes BENCHMARKS.md from them (benchmarks/report.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks import report

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
    "class_lesson",  # 18. a class of 100 follows the course step by step and answers
    "learning_heads_off",  # 19. the learning page's heads off: each head alone, per shipped seed
    "real_heads_off",  # 20. the real SmolLM2 with heads off: cost, the induction experiment
    "walkable_keys",  # 21. a key press in a 128 x 128 walkable matrix, in Chromium
)


def _run(name: str) -> list[dict]:
    completed = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}"], cwd=ROOT, capture_output=True, text=True
    )
    if completed.returncode != 0:
        return [{"name": name, "error": completed.stderr.strip().splitlines()[-1:]}]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main(selected: list[str]) -> None:
    if selected == ["--render"]:
        run = report.read_results()
        report.DOCUMENT.write_text(report.render(run, BENCHMARKS))
        print(f"wrote {report.DOCUMENT.name} from {report.RESULTS.name}")
        return
    adding = selected[:1] == ["--add"]
    selected = selected[1:] if adding else selected
    names = selected or list(BENCHMARKS)
    load_at_start = report.load_average()
    rows: dict[str, list[dict]] = {}
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows[name] = _run(name)
        for row in rows[name]:
            print(report.table_row(name, row), flush=True)
    table = report.table(rows, tuple(names))
    report.LAST_RUN.write_text(table + "\n")
    print("\n" + table)
    load = (load_at_start, report.load_average())
    if adding:  # beside the last full run, which the header names with these
        run = report.add_later(report.read_results(), rows, load)
    elif not selected:
        run = report.one_run(rows, load)
    else:
        return
    report.save(run)
    report.DOCUMENT.write_text(report.render(run, BENCHMARKS))


if __name__ == "__main__":
    main(sys.argv[1:])
