"""Runs trained ahead of time: the page's default settings with seeds 0-29, the same everywhere.

Training is chaotic: float rounding differs between CPUs, so the same seed can
follow another path on another machine and find another circuit. A lesson
must show the same model on the day as when it was prepared, and a class of 30
must not wait for 30 trainings. So the project's own training code
(:func:`.training.train_model`) trains each task's defaults with seeds
:data:`SEEDS` once, with ``python -m attention_core.learning.shipped``, and the
results ship with the app in ``runs/``: one compressed ``.npz`` per task (no
pickles) and ``manifest.json`` with each file's SHA-256 and the settings it
was trained with.

:func:`shipped_run` loads one seed's result without PyTorch and checks it
first: the file's digest, the settings against today's defaults, and the last
replayed attention against the core's forward pass on the stored matrices. A
file that fails a check is refused with a message (:class:`ShippedRunError`);
the page then trains live.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np

from attention_core.boundary.arrays import read_only
from attention_core.boundary.errors import InputError
from attention_core.learning.config import DEFAULTS, TinyTransformerConfig
from attention_core.learning.forward import arrays_from_dict, arrays_to_dict, forward
from attention_core.learning.result import TinyTransformerResult
from attention_core.training.config import TrainingConfig

FOLDER = Path(__file__).resolve().parent / "runs"
MANIFEST = FOLDER / "manifest.json"
SEEDS = range(30)  #: the seeds trained ahead of time, for every task
CHECK_ATOL = 1e-6  #: stored vs recomputed attention on the probe
#: Each stored array's name in the files, and the result's field it fills.
CURVES = {
    "eval_steps": "eval_steps",
    "loss": "train_loss",
    "accuracy": "held_out",
    "probe": "probe",
    "snapshot_steps": "snapshot_steps",
    "snapshot_weights": "snapshot_weights",
}


class ShippedRunError(InputError):
    """A shipped file is missing, altered or out of date: train live instead."""


def shipped_seed(model: TinyTransformerConfig, train: TrainingConfig) -> int | None:
    """The seed if these are a task's default settings with a shipped seed, else None."""
    defaults = DEFAULTS.get(model.task)
    if defaults is None or train.seed not in SEEDS:
        return None
    return train.seed if (model, dataclasses.replace(train, seed=0)) == defaults else None


def shipped_run(
    model: TinyTransformerConfig, train: TrainingConfig
) -> TinyTransformerResult | None:
    """The shipped result of these settings (checked), or None when none was shipped.

    Raises :class:`ShippedRunError` when the shipped file fails a check.
    """
    seed = shipped_seed(model, train)
    if seed is None:
        return None
    return _load(model.task, seed)


@functools.cache
def _manifest() -> dict:
    try:
        return json.loads(MANIFEST.read_text())
    except (OSError, ValueError) as error:
        raise ShippedRunError(f"The runs trained ahead of time cannot be read: {error}") from error


@functools.lru_cache(maxsize=4)
def _verified_file(task: str) -> Path:
    """The task's ``.npz``, once its SHA-256 and settings match the manifest and the defaults."""
    entry = _manifest().get(task)
    if entry is None:
        raise ShippedRunError(f"No runs of {task!r} were shipped.")
    path = FOLDER / entry["file"]
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise ShippedRunError(f"The runs of {task!r} cannot be read: {error}") from error
    if digest != entry["sha256"]:
        raise ShippedRunError(
            f"{path.name} is not the file that was shipped (SHA-256 {digest[:12]}…, expected "
            f"{entry['sha256'][:12]}…): it will not be shown."
        )
    model, train = DEFAULTS[task]
    if entry["model"] != dataclasses.asdict(model) or entry["train"] != _train_dict(train):
        raise ShippedRunError(
            f"The shipped runs of {task!r} were trained with other settings than today's "
            "defaults; rebuild them with `python -m attention_core.learning.shipped`."
        )
    return path


@functools.lru_cache(maxsize=2 * len(SEEDS))
def _load(task: str, seed: int) -> TinyTransformerResult:
    path = _verified_file(task)
    model, train = DEFAULTS[task]
    with np.load(path, allow_pickle=False) as stored:
        prefix = f"{seed}/"
        if f"{prefix}eval_steps" not in stored.files:
            raise ShippedRunError(f"Seed {seed} of {task!r} is not in {path.name}.")
        get = {
            name.removeprefix(prefix): stored[name]
            for name in stored.files
            if name.startswith(prefix)
        }
    meta = json.loads(str(get["meta"]))
    final = arrays_from_dict(_under("final/", get), model)
    result = TinyTransformerResult(
        model=model,
        train=dataclasses.replace(train, seed=seed),
        eval_steps=read_only(get["eval_steps"]),
        train_loss=read_only(get["loss"]),
        held_out=read_only(get["accuracy"]),
        scores={name: read_only(value) for name, value in _under("score/", get).items()},
        probe=read_only(get["probe"]),
        snapshot_steps=read_only(get["snapshot_steps"]),
        snapshot_weights=read_only(get["snapshot_weights"]),
        final=final,
        stop_reason=meta["stop_reason"],
        seconds=meta["seconds"],
        steps_to_target=meta["steps_to_target"],
        trained_ahead=True,
    )
    recomputed = forward(final, model, result.probe).weights
    if not np.allclose(recomputed, result.snapshot_weights[-1], rtol=0, atol=CHECK_ATOL):
        raise ShippedRunError(
            f"Seed {seed} of {task!r}: the stored attention is not what the stored matrices "
            "compute; it will not be shown."
        )
    return result


def _under(prefix: str, named: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The entries whose names start with ``prefix``, without it."""
    return {k.removeprefix(prefix): v for k, v in named.items() if k.startswith(prefix)}


def _train_dict(train: TrainingConfig) -> dict:
    return dataclasses.asdict(dataclasses.replace(train, seed=0))


def _result_arrays(result: TinyTransformerResult) -> dict[str, np.ndarray]:
    """One result as named arrays: curves, scores, final matrices and a JSON ``meta``."""
    meta = {
        "stop_reason": result.stop_reason,
        "seconds": round(result.seconds, 2),
        "steps_to_target": result.steps_to_target,
    }
    named = {name: np.asarray(getattr(result, field)) for name, field in CURVES.items()}
    named |= {f"score/{name}": np.asarray(value) for name, value in result.scores.items()}
    named |= {f"final/{name}": value for name, value in arrays_to_dict(result.final).items()}
    named["meta"] = np.array(json.dumps(meta))
    return named


def build(tasks: list[str], seeds: range = SEEDS) -> None:
    """Train every task's defaults with ``seeds`` and write ``runs/`` (needs PyTorch)."""
    from attention_core.learning import training  # torch: only when building

    FOLDER.mkdir(exist_ok=True)
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    for task in tasks:
        model, train = DEFAULTS[task]
        stored: dict[str, np.ndarray] = {}
        for seed in seeds:
            result = training.train_model(model, dataclasses.replace(train, seed=seed))
            stored |= {f"{seed}/{k}": v for k, v in _result_arrays(result).items()}
            print(f"{task} seed {seed}: {result.stop_reason}", file=sys.stderr, flush=True)
        path = FOLDER / f"{task}.npz"
        np.savez_compressed(path, **stored)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle
        manifest[task] = {
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "seeds": list(seeds),
            "model": dataclasses.asdict(model),
            "train": _train_dict(train),
            "trained_on": f"{platform.machine()} {platform.processor() or ''}".strip(),
            "torch": training.torch.__version__,
        }
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    build(sys.argv[1:] or list(DEFAULTS))
