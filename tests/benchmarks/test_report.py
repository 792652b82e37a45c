"""BENCHMARKS.md as `make bench` writes it: one header line, one table, one method a benchmark."""

from __future__ import annotations

import json

from benchmarks import __main__ as bench_main
from benchmarks import report
from benchmarks.__main__ import BENCHMARKS

MACHINE = {
    "date": "2026-12-01 10:00 UTC",
    "machine": {"cpu": "Test CPU 9000", "cores": 2},
    "commit": "abc1234",
    "dirty": False,
    "versions": {"python": "3.11.9", "torch": "2.13.0", "numpy": "2.4.0"},
}


def _row(name: str, figure: float, target: float | None, *, lower: bool = True) -> dict:
    met = None if target is None else (figure <= target if lower else figure >= target)
    return {
        "name": name,
        "figure": figure,
        "target": target,
        "unit": "s",
        "lower_is_better": lower,
        "spread": None,
        "details": {},
        "met": met,
    }


def _run(**overrides: object) -> dict:
    rows = {
        "core_vs_torch": [_row("fast enough", 0.5, 1.0), _row("too slow", 2.0, 1.0)],
        "training": [_row("reported", 3.0, None), _row("enough seeds", 30, 27, lower=False)],
    }
    return MACHINE | {"source": report.ONE_RUN, "load": [0.5, 1.25], "benchmarks": rows} | overrides


def test_one_run_header_names_date_machine_load_commit_and_versions() -> None:
    line = report.header(_run())
    assert line == (
        "Measured in one run of `make bench` on 2026-12-01 10:00 UTC on Test CPU 9000 "
        "(2 cores; load average 0.5 at the start, 1.25 at the end), commit abc1234, "
        "Python 3.11.9, torch 2.13.0, NumPy 2.4.0."
    )


def test_a_note_on_the_run_is_said_in_the_header() -> None:
    line = report.header(_run(note="The machine was shared."))
    assert line.endswith("NumPy 2.4.0. The machine was shared.")


def test_a_dirty_tree_is_said_in_the_header() -> None:
    assert "commit abc1234 with uncommitted changes," in report.header(_run(dirty=True))


def test_rows_collected_from_earlier_runs_say_so_in_the_header() -> None:
    line = report.header(_run(source="rows collected from earlier runs", load=None))
    assert line.startswith("**Not one run: rows collected from earlier runs.**")
    assert "replaces them with one run" in line


def test_each_figure_sits_beside_its_target_and_verdict() -> None:
    text = report.table(_run()["benchmarks"], ("core_vs_torch", "training"))
    assert text.splitlines()[2:] == [
        "| 1. core_vs_torch | fast enough | 0.5 s | ≤ 1 s | met |",
        "|  | too slow | 2 s | ≤ 1 s | **not met** |",
        "| 2. training | reported | 3 s |  | report only |",
        "|  | enough seeds | 30 s | ≥ 27 s | met |",
    ]


def test_an_infinite_target_is_report_only_and_stored_as_null() -> None:
    row = _row("reported", 3.0, float("inf"))
    assert report.verdict(row) == "report only"
    stored = report.one_run({"training": [row]}, (0.1, 0.2))["benchmarks"]["training"][0]
    assert stored["target"] is None
    json.dumps(stored, allow_nan=False)  # plain JSON, no Infinity


def test_a_failed_benchmark_is_a_row_that_says_so() -> None:
    row = {"name": "cold_start", "error": ["RuntimeError: no browser"]}
    assert report.table_row("4. cold_start", row) == (
        "| 4. cold_start | cold_start | failed: RuntimeError: no browser | | **not met** |"
    )


def test_the_spread_follows_the_figure() -> None:
    row = _row("ratio", 1.2, 2.0) | {"spread": [1.1, 1.49], "unit": "x"}
    assert "| 1.2 x (1.1–1.49) | ≤ 2 x | met |" in report.table_row("", row)


def test_the_document_has_one_table_then_a_method_for_every_benchmark() -> None:
    text = report.render(_run(), BENCHMARKS)
    assert text.count("| benchmark | measure |") == 1
    methods = text.split("## How each is measured", 1)[1]
    positions = [methods.index(f"**{n}. {name}**") for n, name in enumerate(BENCHMARKS, 1)]
    assert positions == sorted(positions)


def test_every_benchmark_in_the_tuple_has_a_method_paragraph() -> None:
    missing = [name for name in BENCHMARKS if len(report.method(name)) < 100]
    assert missing == []


def test_the_committed_document_is_rendered_from_the_committed_results() -> None:
    run = report.read_results()
    assert list(run["benchmarks"]) == list(BENCHMARKS)
    assert report.DOCUMENT.read_text() == report.render(run, BENCHMARKS)


def test_a_save_then_read_gives_the_same_run(tmp_path) -> None:
    path = tmp_path / "results.json"
    report.save(_run(), path)
    assert report.read_results(path) == _run()


def _paths(monkeypatch, tmp_path) -> None:
    for name in ("LAST_RUN", "RESULTS", "DOCUMENT"):
        monkeypatch.setattr(report, name, tmp_path / name)
    monkeypatch.setattr(bench_main, "_run", lambda name: [_row(f"{name} figure", 1.0, 2.0)])


def test_a_selection_writes_only_the_last_run(monkeypatch, tmp_path) -> None:
    _paths(monkeypatch, tmp_path)
    bench_main.main(["training", "proxy"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["LAST_RUN"]
    assert "| 2. proxy | proxy figure | 1 s | ≤ 2 s | met |" in report.LAST_RUN.read_text()


def test_a_full_run_writes_the_results_and_the_document(monkeypatch, tmp_path) -> None:
    _paths(monkeypatch, tmp_path)
    bench_main.main([])
    run = report.read_results()
    assert run["source"] == report.ONE_RUN
    assert list(run["benchmarks"]) == list(BENCHMARKS)
    assert report.DOCUMENT.read_text() == report.render(run, BENCHMARKS)
    report.DOCUMENT.unlink()
    bench_main.main(["--render"])
    assert report.DOCUMENT.read_text() == report.render(run, BENCHMARKS)


def test_benchmarks_added_later_replace_their_rows_and_the_header_says_when(
    monkeypatch, tmp_path
) -> None:
    _paths(monkeypatch, tmp_path)
    report.save(_run())
    later = MACHINE | {"date": "2026-12-02 09:00 UTC", "commit": "def5678"}
    monkeypatch.setattr(report, "this_machine", lambda: later)
    bench_main.main(["--add", "training"])
    run = report.read_results()
    assert run["benchmarks"]["training"] == [_row("training figure", 1.0, 2.0)]
    assert run["benchmarks"]["core_vs_torch"] == _run()["benchmarks"]["core_vs_torch"]
    assert run["date"] == MACHINE["date"] and run["commit"] == MACHINE["commit"]
    line = report.header(run)
    assert line.startswith("Measured in one run of `make bench` on 2026-12-01 10:00 UTC")
    assert "Not in that run: training, measured on 2026-12-02 09:00 UTC at commit def5678" in line
    assert report.DOCUMENT.read_text() == report.render(run, BENCHMARKS)
    bench_main.main(["--add", "training"])  # measured again: one record of it, the newest
    assert len(report.read_results()["later"]) == 1


def test_a_benchmark_that_shows_its_details_gets_a_table_of_them(monkeypatch) -> None:
    run = _run()
    run["benchmarks"]["training"][1]["details"] = {"seed 0": "kept", "seed 1": "not | kept"}
    shown = {("training", "DETAILS_SHOWN"): True}
    monkeypatch.setattr(report, "_constant", lambda name, constant: shown.get((name, constant)))
    text = report.render(run, ("core_vs_torch", "training"))
    details = text.split("## Details", 1)[1].split("## How each is measured", 1)[0]
    assert "**2. training: enough seeds**" in details
    assert "| seed 0 | kept |" in details and "| seed 1 | not \\| kept |" in details
    assert "core_vs_torch" not in details  # only the benchmarks that ask for it
    shown.clear()
    assert "## Details" not in report.render(run, ("core_vs_torch", "training"))
