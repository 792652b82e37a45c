"""BENCHMARKS.md, written from a run's rows: the machine, one table, how each is measured.

A full `make bench` saves its rows, with the date, machine, commit and versions, in
benchmarks/results.json and renders BENCHMARKS.md from them; `python -m benchmarks
--render` renders it again from that file without running anything. Each benchmark's
paragraph under "How each is measured" is the ``METHOD`` string of its own module, read
with ``ast`` so that rendering imports none of them (they import torch, Playwright, ...).
"""

from __future__ import annotations

import ast
import json
import math
import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results.json"
DOCUMENT = ROOT / "BENCHMARKS.md"
LAST_RUN = ROOT / "benchmarks" / "last_run.md"
#: ``source`` of rows measured by one `make bench`; any other source is said in the header.
ONE_RUN = "one run"
TABLE_HEAD = (
    "| benchmark | measure | figure (min–max) | target | |",
    "|---|---|---|---|---|",
)


def _constant(name: str, constant: str) -> object:
    """The value of a plain ``constant = ...`` in benchmarks/<name>.py (read, not imported:
    a benchmark's imports are heavy), or None."""
    tree = ast.parse((ROOT / "benchmarks" / f"{name}.py").read_text())
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == constant for t in node.targets)
            and isinstance(node.value, ast.Constant)
        ):
            return node.value.value
    return None


def method(name: str) -> str:
    """The ``METHOD`` paragraph of benchmarks/<name>.py, or "" when it has none."""
    text = _constant(name, "METHOD")
    return " ".join(text.split()) if isinstance(text, str) else ""


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def details_tables(run: dict, order: tuple[str, ...]) -> list[str]:
    """A table of each row's details, for the benchmarks that ask for it
    (``DETAILS_SHOWN = True``: a per-seed table, say)."""
    tables = []
    for number, name in enumerate(order, start=1):
        if _constant(name, "DETAILS_SHOWN") is not True:
            continue
        for row in run["benchmarks"].get(name, []):
            lines = [f"**{number}. {name}: {_cell(row['name'])}**", "", "| | |", "|---|---|"]
            lines += [f"| {_cell(key)} | {_cell(value)} |" for key, value in row["details"].items()]
            tables.append("\n".join(lines))
    return tables


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _report_only(row: dict) -> bool:
    target = row.get("target")
    return target is None or (isinstance(target, float) and math.isinf(target))


def target_text(row: dict) -> str:
    """ "≤ 1.25 x", "≥ 27 seeds", or "" for a figure reported without a target."""
    if _report_only(row):
        return ""
    sign = "≤" if row.get("lower_is_better", True) else "≥"
    return f"{sign} {_number(row['target'])} {row['unit']}"


def verdict(row: dict) -> str:
    """ "met", "**not met**" or "report only"."""
    if _report_only(row):
        return "report only"
    return "met" if row["met"] else "**not met**"


def table_row(benchmark: str, row: dict) -> str:
    """One Markdown row: the benchmark, the measure, its figure beside its target."""
    if "error" in row:
        error = row["error"]
        text = " ".join(error) if isinstance(error, list) else str(error)
        return f"| {benchmark} | {row['name']} | failed: {text.replace('|', '/')} | | **not met** |"
    spread = row.get("spread")
    spread_text = f" ({_number(spread[0])}–{_number(spread[1])})" if spread else ""
    figure = f"{_number(row['figure'])} {row['unit']}{spread_text}"
    return f"| {benchmark} | {row['name']} | {figure} | {target_text(row)} | {verdict(row)} |"


def table(rows: dict[str, list[dict]], order: tuple[str, ...]) -> str:
    """One table of every row, benchmarks in ``order``, each named on its first row."""
    lines = list(TABLE_HEAD)
    for number, name in enumerate(order, start=1):
        for index, row in enumerate(rows.get(name, [])):
            lines.append(table_row(f"{number}. {name}" if index == 0 else "", row))
    return "\n".join(lines)


def header(run: dict) -> str:
    """The one line that says when, where and on what code the rows were measured."""
    machine = run["machine"]
    versions = run["versions"]
    commit = run["commit"] + (" with uncommitted changes" if run.get("dirty") else "")
    load = run.get("load")
    load_text = f"; load average {load[0]} at the start, {load[1]} at the end" if load else ""
    where = (
        f"{machine['cpu']} ({machine['cores']} cores{load_text}), commit {commit}, "
        f"Python {versions['python']}, torch {versions['torch']}, NumPy {versions['numpy']}."
    )
    note = f" {run['note']}" if run.get("note") else ""  # what the figures cannot show
    note += "".join(f" {later_text(later)}" for later in run.get("later", []))
    if run.get("source", ONE_RUN) == ONE_RUN:
        return f"Measured in one run of `make bench` on {run['date']} on {where}{note}"
    return (
        f"**Not one run: {run['source']}.** Measured {run['date']} on {where} "
        "The next full `make bench` replaces them with one run."
    )


def later_text(later: dict) -> str:
    """The header's words for benchmarks measured after the run and added to it (``--add``)."""
    names = ", ".join(later["names"])
    load = later.get("load")
    load_text = f", load average {load[0]} at the start and {load[1]} at the end" if load else ""
    note = f" {later['note']}" if later.get("note") else ""
    return (
        f"Not in that run: {names}, measured on {later['date']} at commit {later['commit']}"
        f"{load_text} (`python -m benchmarks --add`).{note}"
    )


def add_later(run: dict, rows: dict[str, list[dict]], load: tuple[float, float]) -> dict:
    """``run`` with ``rows`` (benchmarks measured now) in place of its own for those names,
    and a record of when, so the header says which figures came later."""
    now = this_machine()
    later = {"names": list(rows), "date": now["date"], "commit": now["commit"], "load": list(load)}
    kept = [old for old in run.get("later", []) if not set(old["names"]) <= set(rows)]
    benchmarks = run["benchmarks"] | {name: _json_safe(found) for name, found in rows.items()}
    return run | {"benchmarks": benchmarks, "later": [*kept, later]}


def render(run: dict, order: tuple[str, ...]) -> str:
    """The whole of BENCHMARKS.md."""
    methods = []
    for number, name in enumerate(order, start=1):
        paragraph = method(name) or "Not described."
        methods.append(f"**{number}. {name}** (`python -m benchmarks {name}`). {paragraph}")
    return (
        "\n\n".join(
            [
                "# Benchmarks",
                "Written by `make bench` (`python -m benchmarks`, about 70 minutes) from "
                "benchmarks/results.json; `python -m benchmarks --render` writes it again from "
                "that file. A run of some benchmarks (`python -m benchmarks rerun_cost "
                "pretrained`) writes only benchmarks/last_run.md; `python -m benchmarks --add "
                "class_lesson` also puts its rows in results.json beside the full run's, and "
                "the line below says so. History is in git.",
                header(run),
                "## Results",
                table(run["benchmarks"], order),
                *(["## Details", *tables] if (tables := details_tables(run, order)) else []),
                "## How each is measured",
                "Every figure is a ratio of two things measured side by side in the same run "
                "(median, with min–max over the repeats), a count, or a budget or peak measured "
                "in one run, so that it holds on a noisy machine. Each benchmark runs in its own "
                "process.",
                *methods,
            ]
        )
        + "\n"
    )


def _json_safe(rows: list[dict]) -> list[dict]:
    """Rows with an infinite target (report only) stored as null: plain JSON."""
    return [
        row | {"target": None} if _report_only(row) and "target" in row else row for row in rows
    ]


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (the platform's processor elsewhere)."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def this_machine() -> dict:
    """What the header says about the code and the machine (not its load)."""
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
        "commit": _git("rev-parse", "--short", "HEAD"),
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "versions": {
            "python": platform.python_version(),
            "torch": _version("torch"),
            "numpy": _version("numpy"),
        },
    }


def load_average() -> float:
    """The one-minute load average, rounded."""
    return round(os.getloadavg()[0], 2)


def one_run(rows: dict[str, list[dict]], load: tuple[float, float]) -> dict:
    """A full run's record for results.json."""
    return this_machine() | {
        "source": ONE_RUN,
        "load": list(load),
        "benchmarks": {name: _json_safe(found) for name, found in rows.items()},
    }


def save(run: dict, path: Path | None = None) -> None:
    """Write ``run`` to ``path`` (benchmarks/results.json by default)."""
    (path or RESULTS).write_text(json.dumps(run, indent=1, ensure_ascii=False) + "\n")


def read_results(path: Path | None = None) -> dict:
    """The run saved in ``path`` (benchmarks/results.json by default)."""
    return json.loads((path or RESULTS).read_text())
