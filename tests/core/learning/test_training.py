"""Training each task from its page defaults: accuracy, the target heads, snapshots, safety.

A few seeds per task keep this file to about a minute on one thread; the full
seeds 0-4 sweep and the time to 99 % are in ``benchmarks/learning.py``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from attention_core.learning import training
from attention_core.learning.config import DEFAULTS, TrainConfig
from attention_core.learning.forward import forward
from attention_core.learning.model import TinyTransformer, load_arrays, weights_as_arrays
from attention_core.learning.predict import predict
from attention_core.learning.tasks import get_task, is_held_out


def train_default(task: str, seed: int) -> training.LearningResult:
    model, train = DEFAULTS[task]
    return training.train_model(model, replace(train, seed=seed))


@pytest.fixture(scope="module")
def reverse_runs() -> dict[int, training.LearningResult]:
    return {seed: train_default("reverse", seed) for seed in (0, 1, 2)}


@pytest.fixture(scope="module")
def induction_runs() -> dict[int, training.LearningResult]:
    return {seed: train_default("induction", seed) for seed in (0, 4)}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reverse_reaches_99_percent_with_an_anti_diagonal_head(reverse_runs, seed) -> None:
    result = reverse_runs[seed]
    assert result.accuracy[-1] >= 0.99
    assert result.scores["anti-diagonal"][-1].max() > 0.9
    assert result.scores["anti-diagonal"][0].max() < 0.5  # it was not there at the start


@pytest.mark.parametrize("seed", [0, 4])
def test_induction_reaches_99_percent_with_an_induction_head_in_layer_2(
    induction_runs, seed
) -> None:
    result = induction_runs[seed]
    assert result.accuracy[-1] >= 0.99
    induction = result.scores["induction"]  # (E, L, H)
    assert induction[0][1, 0] < 0.15 < 0.5 < induction[-1][1, 0]  # formed while training
    assert result.scores["previous token"][-1][0, 0] > 0.25  # helped by layer 1 (from ~0.16)


def test_sort_reaches_99_percent_and_writes_sorted_copies_one_token_at_a_time() -> None:
    result = train_default("sort", 0)
    assert result.accuracy[-1] >= 0.99
    assert result.steps_to_target is not None
    task = get_task("sort")
    for typed in ("210201", "222000", "101010", "000000"):
        prediction = predict(result.final, result.model, task.parse(typed))
        written = "".join(task.alphabet[t] for t in prediction.answer[5:])
        assert written == "".join(sorted(typed))
        # the model read its own output: the sequence is the input and what it wrote
        np.testing.assert_array_equal(prediction.tokens[6:], prediction.answer[5:10])


def test_snapshots_run_from_untrained_to_final_and_their_attention_is_the_cores(
    reverse_runs,
) -> None:
    result = reverse_runs[0]
    steps = [snapshot.step for snapshot in result.snapshots]
    assert steps[0] == 0 and steps[-1] == result.eval_steps[-1]
    assert len(steps) <= training.N_SNAPSHOTS and steps == sorted(set(steps))
    for snapshot, weights in zip(result.snapshots, result.snapshot_weights, strict=True):
        np.testing.assert_array_equal(
            weights, forward(snapshot.arrays, result.model, result.probe).weights
        )
    assert not result.snapshot_weights.flags.writeable and not result.accuracy.flags.writeable


def test_trained_attention_by_the_core_matches_torch(induction_runs) -> None:
    result = induction_runs[0]
    model = load_arrays(TinyTransformer(result.model), result.final)
    batch = get_task("induction").make(np.random.default_rng(9), 8)
    with torch.no_grad():
        _, weights = model(torch.from_numpy(batch.tokens))
    torch_weights = torch.stack(weights, dim=1).numpy()  # (B, L, H, T, T)
    for row, tokens in enumerate(batch.tokens):
        ours = forward(result.final, result.model, tokens).weights
        np.testing.assert_allclose(ours, torch_weights[row], rtol=0, atol=1e-5)
    again = weights_as_arrays(model)
    np.testing.assert_array_equal(again.layers[1].w_k, result.final.layers[1].w_k)


def test_same_settings_and_seed_give_the_same_numbers(reverse_runs) -> None:
    again = train_default("reverse", 0)
    np.testing.assert_array_equal(again.loss, reverse_runs[0].loss)
    np.testing.assert_array_equal(again.snapshot_weights, reverse_runs[0].snapshot_weights)


def test_training_never_draws_a_held_out_sequence() -> None:
    batch = training.training_batch("sort", np.random.default_rng(0), 500)
    assert len(batch.tokens) == 500 and not is_held_out(batch.tokens).any()
    assert is_held_out(training.held_out_batch("sort").tokens).all()


def test_an_exception_from_progress_ends_the_run_and_frees_the_lock_and_threads() -> None:
    class StopError(Exception):
        pass

    def stop(update) -> None:
        if update.step >= 10:
            raise StopError

    threads = torch.get_num_threads()
    model, train = DEFAULTS["reverse"]
    with pytest.raises(StopError):
        training.train_model(model, train, stop)
    assert not training.TRAINING_LOCK.locked()
    assert torch.get_num_threads() == threads


def test_the_step_budget_stops_a_run_that_cannot_reach_its_target() -> None:
    model, _ = DEFAULTS["sort"]
    result = training.train_model(model, TrainConfig(steps=30, eval_every=10))
    assert result.stop_reason == "finished all 30 steps"
    np.testing.assert_array_equal(result.eval_steps, [0, 10, 20, 30])
