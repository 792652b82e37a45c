"""The runs trained ahead of time: checked at load, the page's promise holds on them, no torch."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from attention_core.learning import claims, shipped
from attention_core.learning.config import DEFAULTS
from attention_core.learning.forward import arrays_to_dict, forward
from tests.snippets import run_python


def load(task: str, seed: int):
    model, train = DEFAULTS[task]
    result = shipped.shipped_run(model, dataclasses.replace(train, seed=seed))
    assert result is not None
    return result


@pytest.fixture(scope="module")
def all_runs() -> dict[str, list]:
    return {task: [load(task, seed) for seed in shipped.SEEDS] for task in DEFAULTS}


def test_every_task_ships_seeds_0_to_29_of_its_defaults(all_runs) -> None:
    for task, runs in all_runs.items():
        model, train = DEFAULTS[task]
        assert len(runs) == 30
        for seed, result in enumerate(runs):
            assert result.trained_ahead and result.model == model
            assert result.train == dataclasses.replace(train, seed=seed)
            # the replay's last step is what the core computes from the stored matrices
            np.testing.assert_allclose(
                result.snapshot_weights[-1],
                forward(result.final, model, result.probe).weights,
                rtol=0,
                atol=shipped.CHECK_ATOL,
            )
            assert result.snapshot_steps[0] == 0
            assert result.snapshot_steps[-1] == result.eval_steps[-1]
            assert not result.snapshot_weights.flags.writeable
            assert not result.final.layers[0].w_q.flags.writeable


def test_nine_seeds_in_ten_show_what_the_page_promises(all_runs) -> None:
    kept = {task: sum(map(claims.keeps_its_promise, runs)) for task, runs in all_runs.items()}
    assert min(kept.values()) >= 27, kept


def test_other_settings_or_seeds_have_no_shipped_run() -> None:
    model, train = DEFAULTS["induction"]
    assert shipped.shipped_run(model, dataclasses.replace(train, seed=30)) is None
    assert shipped.shipped_run(dataclasses.replace(model, d_model=64), train) is None
    assert shipped.shipped_run(model, dataclasses.replace(train, learning_rate=0.003)) is None


def test_an_altered_file_is_refused(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "runs"
    shutil.copytree(shipped.FOLDER, folder)
    data = bytearray((folder / "reverse.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / "reverse.npz").write_bytes(bytes(data))
    monkeypatch.setattr(shipped, "FOLDER", folder)
    monkeypatch.setattr(shipped, "MANIFEST", folder / "manifest.json")
    for cached in (shipped._manifest, shipped._verified_file, shipped._load):
        cached.cache_clear()
    try:
        with pytest.raises(shipped.ShippedRunError, match="not the file that was shipped"):
            load("reverse", 0)
    finally:
        for cached in (shipped._manifest, shipped._verified_file, shipped._load):
            cached.cache_clear()


def test_settings_changed_since_the_runs_were_built_are_refused(monkeypatch) -> None:
    model, train = DEFAULTS["reverse"]
    changed = dataclasses.replace(train, extra_steps=train.extra_steps + 1)
    monkeypatch.setitem(DEFAULTS, "reverse", (model, changed))
    shipped._verified_file.cache_clear()
    shipped._load.cache_clear()
    try:
        with pytest.raises(shipped.ShippedRunError, match="other settings"):
            shipped.shipped_run(model, changed)
    finally:
        shipped._verified_file.cache_clear()
        shipped._load.cache_clear()


def test_a_shipped_run_has_the_layout_of_a_live_one() -> None:
    from attention_core.learning import training

    model, train = DEFAULTS["reverse"]
    live = training.train_model(model, dataclasses.replace(train, steps=30))
    stored = load("reverse", 0)
    assert arrays_to_dict(live.final).keys() == arrays_to_dict(stored.final).keys()
    assert live.scores.keys() == stored.scores.keys()
    assert live.snapshot_weights.shape[1:] == stored.snapshot_weights.shape[1:]


def test_loading_a_shipped_run_does_not_import_torch() -> None:
    code = (
        "import sys, dataclasses\n"
        "from attention_core.learning import shipped\n"
        "from attention_core.learning.config import DEFAULTS\n"
        "m, t = DEFAULTS['induction']\n"
        "assert shipped.shipped_run(m, dataclasses.replace(t, seed=7)).trained_ahead\n"
        "print('torch' in sys.modules)\n"
    )
    assert run_python(code) == "False"
