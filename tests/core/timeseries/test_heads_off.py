"""The trained forecaster with heads off (attention_core.timeseries.heads_off): rebuilt from
the run's kept weights it forecasts what the run did, bit for bit; the error with each head
off is the error of the model with that head's columns of W_O zeroed by hand; the edge
refuses heads the model does not have, every head off, and a sweep of a single head."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

import attention_core as ac
from attention_core.timeseries import heads_off
from attention_core.timeseries import model as forecaster
from attention_core.timeseries import training as trainer

WINDOW = 10
CONFIG = forecaster.ForecasterConfig(1, WINDOW, d_model=8, n_heads=2, n_layers=2, d_hidden=16)
D_HEAD = CONFIG.d_model // CONFIG.n_heads


def seasonal(n_rows: int = 240) -> pd.DataFrame:
    """A period of 7 and a little noise (seed 0)."""
    t = np.arange(n_rows)
    noise = 0.1 * np.random.default_rng(0).normal(size=n_rows)
    return pd.DataFrame({"y": np.sin(2 * np.pi * t / 7) + noise})


@pytest.fixture(scope="module")
def dataset() -> ac.SeriesDataset:
    return ac.prepare_dataset(seasonal(), ["y"], "y", WINDOW)


def trained(dataset: ac.SeriesDataset, config: forecaster.ForecasterConfig):
    return trainer.train_model(
        dataset, config, replace(forecaster.FORECAST_TRAINING, steps=40, seed=0)
    )


@pytest.fixture(scope="module")
def result(dataset: ac.SeriesDataset) -> trainer.ForecasterResult:
    return trained(dataset, CONFIG)


def zeroed_by_hand(
    result: trainer.ForecasterResult, layer: int, head: int
) -> forecaster.SeriesForecaster:
    """The trained model with head ``head`` of layer ``layer`` deleted from W_O by hand."""
    model = trainer.restore(CONFIG, result)
    with torch.no_grad():  # torch's W_O weight is (d, H*dv): head h is columns h*dv:(h+1)*dv
        model.layers[layer].attention.output.weight[:, head * D_HEAD : (head + 1) * D_HEAD] = 0.0
    return model


def test_the_rebuilt_model_forecasts_what_the_run_did_bit_for_bit(
    result: trainer.ForecasterResult, dataset: ac.SeriesDataset
) -> None:
    model = trainer.restore(CONFIG, result)
    np.testing.assert_array_equal(trainer.validation_forecast(model, dataset), result.predicted)
    assert all(not array.flags.writeable for array in result.parameters.values())


def test_each_heads_zeroed_error_is_the_error_with_its_w_o_columns_zeroed_by_hand(
    result: trainer.ForecasterResult, dataset: ac.SeriesDataset
) -> None:
    errors = heads_off.head_errors(CONFIG, result, dataset)
    assert errors.intact == result.model_errors
    assert errors.mae["zero"].shape == errors.rmse["mean"].shape == (2, 2)
    for layer in range(CONFIG.n_layers):
        for head in range(CONFIG.n_heads):
            by_hand = trainer.validation_forecast(zeroed_by_hand(result, layer, head), dataset)
            expected = ac.forecast_errors(result.actual, by_hand)
            assert errors.mae["zero"][layer, head] == pytest.approx(expected.mae, abs=1e-9)
            assert errors.rmse["zero"][layer, head] == pytest.approx(expected.rmse, abs=1e-9)
    assert not np.allclose(errors.mae["zero"], errors.intact.mae)


def test_the_sweep_agrees_with_the_forecast_of_each_head_off_alone(
    result: trainer.ForecasterResult, dataset: ac.SeriesDataset
) -> None:
    errors = heads_off.head_errors(CONFIG, result, dataset)
    for layer, head in ((0, 0), (1, 1)):
        ablation = ac.Ablation.of([(layer, head)], "mean")
        alone = heads_off.forecast_with_heads_off(CONFIG, result, dataset, ablation)
        assert alone.ablation == ablation
        assert errors.mae["mean"][layer, head] == pytest.approx(alone.errors.mae, abs=1e-12)
        assert errors.rmse["mean"][layer, head] == pytest.approx(alone.errors.rmse, abs=1e-12)


def test_several_heads_off_change_the_forecast_and_none_off_changes_nothing(
    result: trainer.ForecasterResult, dataset: ac.SeriesDataset
) -> None:
    off = heads_off.forecast_with_heads_off(
        CONFIG, result, dataset, ac.Ablation.of([(0, 1), (1, 0)])
    )
    assert off.predicted.shape == result.predicted.shape and not off.predicted.flags.writeable
    assert not np.allclose(off.predicted, result.predicted)
    nothing = heads_off.forecast_with_heads_off(CONFIG, result, dataset, ac.Ablation.of([]))
    np.testing.assert_array_equal(nothing.predicted, result.predicted)


@pytest.mark.parametrize(
    ("heads", "words"),
    [
        ([(0, 2)], "Layer 0 has no head 2"),
        ([(2, 0)], "There is no layer 2"),
        ([(0, 0), (0, 1), (1, 0), (1, 1)], "keep at least one head on"),
    ],
)
def test_heads_the_model_does_not_have_or_every_head_off_are_refused_in_words(
    result: trainer.ForecasterResult, dataset: ac.SeriesDataset, heads: list, words: str
) -> None:
    with pytest.raises(ac.InputError, match=words):
        heads_off.forecast_with_heads_off(CONFIG, result, dataset, ac.Ablation.of(heads))


def test_a_sweep_of_a_single_head_model_is_refused_in_words(dataset: ac.SeriesDataset) -> None:
    single = replace(CONFIG, n_heads=1, n_layers=1)
    with pytest.raises(ac.InputError, match="single head"):
        heads_off.head_errors(single, trained(dataset, single), dataset)


def test_the_sweeps_cost_is_two_passes_per_head_over_the_validation_windows(
    dataset: ac.SeriesDataset,
) -> None:
    one_pass = forecaster.step_macs(CONFIG, len(dataset.val_ends))
    assert heads_off.sweep_macs(CONFIG, dataset) == 2 * 2 * 2 * one_pass  # kinds x L x H
