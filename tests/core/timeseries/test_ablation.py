"""Heads turned off in the time-series forecaster (PyTorch): nothing off changes nothing, bit
for bit; a zeroed head equals its columns of W_O zeroed by hand; a mean-ablated head equals its
slice of the heads side by side replaced by its mean over each window's time steps, by hand."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from attention_core.maths.ablation import Ablation
from attention_core.timeseries import model as forecaster

TOLERANCE = 1e-6
CONFIG = forecaster.ForecasterConfig(
    n_features=3, window=6, d_model=8, n_heads=2, n_layers=2, d_hidden=16
)
D_HEAD = CONFIG.d_model // CONFIG.n_heads
OFF = [(0, 1), (1, 0)]


@pytest.fixture(scope="module")
def model() -> forecaster.SeriesForecaster:
    torch.manual_seed(3)
    return forecaster.SeriesForecaster(CONFIG).double().eval()


def windows() -> torch.Tensor:
    return torch.randn(5, CONFIG.window, CONFIG.n_features, dtype=torch.float64)  # (B, T, p)


def by_hand(
    model: forecaster.SeriesForecaster,
    x: torch.Tensor,
    replace: Callable[[torch.Tensor], torch.Tensor],
) -> torch.Tensor:
    """The forecaster written out, each ablated head's columns of ``(B, T, H*dv)`` replaced."""
    hidden = model.positions(model.embeddings(x))  # (B, T, d)
    for index, layer in enumerate(model.layers):
        concat, _ = layer.attention.heads(hidden, model.mask)  # (B, T, H*dv)
        concat = concat.clone()
        for head in Ablation.of(OFF).heads_in(index):
            columns = slice(head * D_HEAD, (head + 1) * D_HEAD)
            concat[..., columns] = replace(concat[..., columns])
        hidden = layer.engineering(layer.attention.output(concat))
    return model.head(hidden[:, -1, :]).squeeze(-1)  # (B,)


def test_no_head_off_changes_nothing_bit_for_bit(model: forecaster.SeriesForecaster) -> None:
    x = windows()
    with torch.no_grad():
        forecast, weights = model(x)
        for ablation in (None, Ablation(frozenset()), Ablation(frozenset(), "mean")):
            again, again_weights = model(x, ablation=ablation)
            assert torch.equal(again, forecast)
            assert all(map(torch.equal, again_weights, weights))


def test_zeroed_heads_equal_their_columns_of_w_o_zeroed_by_hand(
    model: forecaster.SeriesForecaster,
) -> None:
    x = windows()
    zeroed = forecaster.SeriesForecaster(CONFIG).double()
    zeroed.load_state_dict(model.state_dict())
    with torch.no_grad():
        for index, head in OFF:  # torch's W_O weight is (d, H*dv): head h is columns
            weight = zeroed.layers[index].attention.output.weight
            weight[:, head * D_HEAD : (head + 1) * D_HEAD] = 0.0
        ablated, _ = model(x, ablation=Ablation.of(OFF))
        expected, _ = zeroed.eval()(x)
        intact, _ = model(x)
    torch.testing.assert_close(ablated, expected, rtol=0, atol=TOLERANCE)
    torch.testing.assert_close(ablated, by_hand(model, x, torch.zeros_like), rtol=0, atol=TOLERANCE)
    assert not torch.allclose(ablated, intact)


def test_mean_ablated_heads_equal_their_mean_over_each_windows_time_steps_by_hand(
    model: forecaster.SeriesForecaster,
) -> None:
    x = windows()
    with torch.no_grad():
        ablated, _ = model(x, ablation=Ablation.of(OFF, "mean"))
        expected = by_hand(model, x, lambda columns: columns.mean(dim=1, keepdim=True))
        intact, _ = model(x)
    torch.testing.assert_close(ablated, expected, rtol=0, atol=TOLERANCE)
    assert not torch.allclose(ablated, intact)
