"""Heads turned off in the learning page's tiny transformer: in the NumPy forward pass the page
draws, and in the PyTorch model it trains. Nothing off changes nothing, bit for bit; a zeroed
head equals its rows of W_O zeroed by hand; both passes agree with heads off."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.forward import ModelArrays, forward
from attention_core.learning.model import TinyTransformer, weights_as_arrays
from attention_core.learning.tasks import get_task
from attention_core.maths.ablation import Ablation

TOLERANCE = 1e-5
CONFIG = TinyTransformerConfig("induction", n_layers=2, n_heads=4, d_model=32, mlp=True)
D_HEAD = CONFIG.d_model // CONFIG.n_heads
OFF = [(0, 1), (1, 3)]


@pytest.fixture(scope="module")
def model() -> TinyTransformer:
    torch.manual_seed(3)
    model = TinyTransformer(CONFIG, seed=5)
    for parameter in model.parameters():  # well away from the initial values
        parameter.data += 0.3 * torch.randn_like(parameter)
    return model.eval()


def sequences(count: int = 4) -> np.ndarray:
    return get_task(CONFIG.task).make(np.random.default_rng(0), count).tokens  # (B, T)


def with_w_o_rows_zeroed(arrays: ModelArrays, off: list[tuple[int, int]]) -> ModelArrays:
    """Head h's rows ``h*dv:(h+1)*dv`` of W_O ``(H*dv, d)`` set to zero, by hand."""
    layers = list(arrays.layers)
    for index, head in off:
        w_o = np.array(layers[index].w_o)
        w_o[head * D_HEAD : (head + 1) * D_HEAD] = 0.0
        layers[index] = replace(layers[index], w_o=w_o)
    return replace(arrays, layers=tuple(layers))


def test_no_head_off_changes_nothing_bit_for_bit(model: TinyTransformer) -> None:
    arrays = weights_as_arrays(model)
    tokens = sequences()
    for row in tokens:
        intact = forward(arrays, CONFIG, row)
        for ablation in (None, Ablation(frozenset()), Ablation(frozenset(), "mean")):
            again = forward(arrays, CONFIG, row, ablation)
            assert np.array_equal(again.logits, intact.logits)
            assert np.array_equal(again.weights, intact.weights)
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(tokens))
        same, _ = model(torch.from_numpy(tokens), ablation=Ablation(frozenset()))
    assert torch.equal(logits, same)


def test_zeroed_heads_equal_their_rows_of_w_o_zeroed_by_hand_in_numpy(
    model: TinyTransformer,
) -> None:
    arrays = weights_as_arrays(model)
    by_hand = with_w_o_rows_zeroed(arrays, OFF)
    for row in sequences():
        ablated = forward(arrays, CONFIG, row, Ablation.of(OFF))
        np.testing.assert_allclose(
            ablated.logits, forward(by_hand, CONFIG, row).logits, rtol=0, atol=1e-10
        )
        assert not np.allclose(ablated.logits, forward(arrays, CONFIG, row).logits)


def test_zeroed_heads_equal_their_w_o_columns_zeroed_by_hand_in_torch(
    model: TinyTransformer,
) -> None:
    tokens = torch.from_numpy(sequences())
    by_hand = TinyTransformer(CONFIG)
    by_hand.load_state_dict(model.state_dict())
    with torch.no_grad():
        for index, head in OFF:  # torch's W_O weight is (d, H*dv): head h is columns
            by_hand.layers()[index].attention.output.weight[
                :, head * D_HEAD : (head + 1) * D_HEAD
            ] = 0
        ablated, _ = model(tokens, ablation=Ablation.of(OFF))
        expected, _ = by_hand.eval()(tokens)
    torch.testing.assert_close(ablated, expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_the_numpy_pass_and_the_torch_model_agree_with_heads_off(
    model: TinyTransformer, kind: str
) -> None:
    ablation = Ablation.of(OFF, kind)  # type: ignore[arg-type]
    tokens = sequences()
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(tokens), ablation=ablation)  # (B, T, V)
    arrays = weights_as_arrays(model)
    for row, expected in zip(tokens, logits.numpy(), strict=True):
        ours = forward(arrays, CONFIG, row, ablation).logits
        np.testing.assert_allclose(ours, expected, rtol=0, atol=10 * TOLERANCE)


def test_mean_ablation_is_each_sequences_own_positional_mean(model: TinyTransformer) -> None:
    """In a batch, a head's mean is over each sequence's positions, not over the batch."""
    tokens = torch.from_numpy(sequences())
    ablation = Ablation.of([(0, 2)], "mean")
    with torch.no_grad():
        batch, _ = model(tokens, ablation=ablation)
        one_by_one = torch.cat([model(row[None], ablation=ablation)[0] for row in tokens])
    torch.testing.assert_close(batch, one_by_one, rtol=0, atol=1e-6)
