"""The PyTorch forecaster: the same attention as the NumPy core, and it learns the season."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

import attention_core as ac
from attention_core.timeseries import model as forecaster
from attention_core.timeseries import training as trainer
from attention_core.training.export import as_array, as_matrix, attention_matrices

ROOT = Path(__file__).resolve().parents[3]


def small_model(mask: str = "causal", activation: str = "relu") -> forecaster.SeriesForecaster:
    torch.manual_seed(3)
    config = forecaster.ForecasterConfig(
        n_features=3,
        window=6,
        d_model=8,
        n_heads=2,
        activation=activation,
        mask=mask,
        sliding_window=2,
    )
    return forecaster.SeriesForecaster(config)


# --- The model's attention is the core's attention ----------------------------


@pytest.mark.parametrize("mask", forecaster.model_masks())
def test_model_attention_equals_core_attention_on_copied_weights(mask: str) -> None:
    model = small_model(mask).double()
    x = torch.randn(1, 6, 3, dtype=torch.float64)
    layer = model.layers[0]
    with torch.no_grad():
        embedded = model.positions(model.embeddings(x))  # (1, T, d)
        concat, weights = layer.attention.heads(embedded, model.mask)
        output = layer.attention.output(concat)
    core = ac.multi_head_attention(
        embedded[0].numpy(),
        **attention_matrices(layer.attention),
        n_heads=2,
        mask=forecaster.attention_mask(model.config),
    )
    np.testing.assert_allclose(weights[0].numpy(), core.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(concat[0].numpy(), core.concat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output[0].numpy(), core.output, rtol=0, atol=1e-12)


def test_model_attention_matches_core_in_float32_to_1e6() -> None:
    model = small_model()
    x = torch.randn(1, 6, 3)
    with torch.no_grad():
        embedded = model.positions(model.embeddings(x))
        _, weights = model(x)
    core = ac.multi_head_attention(
        embedded[0].numpy().astype(np.float64),
        **attention_matrices(model.layers[0].attention),
        n_heads=2,
        mask=ac.causal_mask(6),
    )
    np.testing.assert_allclose(weights[0][0].numpy(), core.weights, rtol=0, atol=1e-6)


@pytest.mark.parametrize("activation", ac.FEATURE_ACTIVATIONS)
def test_feature_embeddings_equal_the_numpy_embedding(activation: str) -> None:
    model = small_model(activation=activation).double()
    x = torch.randn(6, 3, dtype=torch.float64)
    linear = model.embeddings.linear
    numpy_embedding = ac.FeatureEmbedding(as_matrix(linear), as_array(linear.bias), activation)
    with torch.no_grad():
        ours = model.embeddings(x).numpy()
    np.testing.assert_allclose(ours, numpy_embedding(x.numpy()), rtol=0, atol=1e-12)


def test_weights_are_exposed_per_layer_and_head_and_respect_the_mask() -> None:
    config = forecaster.ForecasterConfig(n_features=2, window=5, d_model=8, n_heads=4, n_layers=3)
    model = forecaster.SeriesForecaster(config)
    with torch.no_grad():
        forecast, weights = model(torch.randn(7, 5, 2))
    assert forecast.shape == (7,)
    assert [tuple(w.shape) for w in weights] == [(7, 4, 5, 5)] * 3
    upper = ~torch.from_numpy(ac.causal_mask(5))
    assert all(float(w[..., upper].abs().max()) == 0.0 for w in weights)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(7, 4, 5))


# --- Training ------------------------------------------------------------------


def seasonal_dataset(window: int = 28) -> ac.SeriesDataset:
    return ac.prepare_dataset(ac.seasonal_series(), ["sales"], "sales", window, "zscore")


PROGRESS: list[trainer.TrainingProgress] = []
SEEDS = range(5)
AT_LEAST = 4  # of 5 seeds: training is chaotic, each CPU rounds differently


@pytest.fixture(scope="module")
def seasonal_runs() -> dict[int, trainer.ForecasterResult]:
    """150 seeded steps on the seasonal sample per seed (about a second each, one thread)."""
    PROGRESS.clear()
    return {
        seed: trainer.train_model(
            seasonal_dataset(),
            forecaster.ForecasterConfig(1, 28),
            replace(forecaster.FORECAST_TRAINING, steps=150, seed=seed),
            PROGRESS.append if seed == 0 else None,
        )
        for seed in SEEDS
    }


def test_short_training_beats_the_naive_forecast_on_the_seasonal_sample(seasonal_runs) -> None:
    better = [
        seed
        for seed, run in seasonal_runs.items()
        if run.model_errors.mae < 0.6 * run.naive_errors.mae
        and run.model_errors.rmse < 0.6 * run.naive_errors.rmse
        and run.held_out[-1] < 0.5 * run.held_out[0]
    ]
    assert len(better) >= AT_LEAST, better


def test_trained_last_step_attends_to_whole_periods_before_the_forecast(seasonal_runs) -> None:
    lags = np.arange(28, 0, -1)
    on_period = lags % ac.SEASONAL_PERIOD == 0
    seasonal = []
    for seed, run in seasonal_runs.items():
        last_row = run.last_row_after.mean(axis=0)  # (T,), oldest lag first
        before = run.last_row_before.mean(axis=0)
        if (
            lags[np.argmax(last_row)] % ac.SEASONAL_PERIOD == 0
            and last_row[on_period].sum() > 1.5 * 4 / 28  # uniform: 4/28
            and before[on_period].sum() < 1.5 * 4 / 28
        ):
            seasonal.append(seed)
    assert len(seasonal) >= AT_LEAST, seasonal


def test_training_reports_progress_and_read_only_results(seasonal_runs) -> None:
    steps = [update.step for update in PROGRESS]
    assert steps == list(range(10, 151, 10))
    run = seasonal_runs[0]
    assert len(run.eval_steps) == len(steps)
    assert len(run.val_labels) == len(run.actual) == 140
    assert run.weights_after.shape == (1, 2, 28, 28)
    with pytest.raises(ValueError):
        run.actual[0] = 0.0


def test_same_seed_gives_the_same_numbers() -> None:
    dataset = seasonal_dataset(window=7)
    config = forecaster.ForecasterConfig(n_features=1, window=7, d_model=8)
    first = trainer.train_model(
        dataset, config, replace(forecaster.FORECAST_TRAINING, steps=20, seed=5)
    )
    second = trainer.train_model(
        dataset, config, replace(forecaster.FORECAST_TRAINING, steps=20, seed=5)
    )
    np.testing.assert_array_equal(first.predicted, second.predicted)
    np.testing.assert_array_equal(first.weights_after, second.weights_after)


def test_early_stopping_keeps_the_best_weights() -> None:
    dataset = seasonal_dataset(window=7)
    config = forecaster.ForecasterConfig(n_features=1, window=7, d_model=8)
    result = trainer.train_model(
        dataset,
        config,
        replace(
            forecaster.FORECAST_TRAINING,
            steps=400,
            learning_rate=0.1,
            eval_every=5,
            patience=2,
            seed=1,
        ),
    )
    assert "stopped early" in result.stop_reason or result.eval_steps[-1] == 400
    assert result.best_step == int(result.eval_steps[np.argmin(result.held_out)])


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"steps": 5000}, "at most 2000"),
        ({"learning_rate": 5.0}, "learning rate"),
    ],
)
def test_train_config_refuses_out_of_budget_values(changes: dict, words: str) -> None:
    model = forecaster.ForecasterConfig(n_features=1, window=8)
    with pytest.raises(ac.InputError, match=words):
        forecaster.check_budget(model, replace(forecaster.FORECAST_TRAINING, **changes))


def test_model_config_names_valid_head_counts() -> None:
    with pytest.raises(ac.InputError, match="choose one of"):
        forecaster.ForecasterConfig(n_features=1, window=8, d_model=12, n_heads=5)


def test_too_big_a_model_is_refused_before_training() -> None:
    config = forecaster.ForecasterConfig(n_features=5, window=128, d_model=512, n_heads=8)
    with pytest.raises(ac.InputError, match="too big to train"):
        forecaster.check_budget(config, forecaster.FORECAST_TRAINING)


# --- Torch stays out of the core -------------------------------------------------


def test_importing_attention_core_does_not_import_torch() -> None:
    code = "import attention_core, sys; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_the_torch_model_offers_exactly_the_cores_feature_activations() -> None:
    assert set(forecaster._ACTIVATIONS) == set(ac.FEATURE_ACTIVATIONS)


def test_the_forecaster_offers_the_registered_masks_that_need_no_more_than_a_window() -> None:
    assert forecaster.model_masks() == ("none", "causal", "sliding")


def test_a_mask_registered_in_one_place_is_accepted_and_built_by_the_forecaster() -> None:
    def even_keys(n_q: int, n_k: int, window: int, padding: object, grid: object) -> np.ndarray:
        return np.broadcast_to(np.arange(n_k) % 2 == 0, (n_q, n_k)).copy()

    ac.MASKS.register("even", ac.Option("even keys", "Keys at even positions.", even_keys))
    try:
        config = forecaster.ForecasterConfig(n_features=2, window=4, mask="even")
        assert "even" in forecaster.model_masks()
        np.testing.assert_array_equal(
            forecaster.attention_mask(config), [[True, False, True, False]] * 4
        )
    finally:
        ac.MASKS.unregister("even")


def test_the_forecaster_refuses_a_mask_that_needs_padding_tokens() -> None:
    with pytest.raises(ac.InputError, match="choose one of: none, causal, sliding"):
        forecaster.ForecasterConfig(n_features=2, window=4, mask="padding")
