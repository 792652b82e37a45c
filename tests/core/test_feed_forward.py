"""The one torch feed-forward module computes the core's MLP, with any activation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from attention_core.maths.layers import gelu_tanh, mlp, relu
from attention_core.training.export import as_array, as_matrix
from attention_core.training.feed_forward import FeedForward


@pytest.mark.parametrize(
    ("module", "function"),
    [(nn.ReLU(), relu), (nn.GELU(approximate="tanh"), gelu_tanh), (nn.Identity(), lambda z: z)],
)
def test_feed_forward_equals_the_cores_mlp_on_its_weights(module: nn.Module, function) -> None:
    torch.manual_seed(0)
    block = FeedForward(4, 6, module).double()
    x = torch.randn(5, 4, dtype=torch.float64)
    with torch.no_grad():
        expected = block(x).numpy()
    hidden, output = block.hidden, block.output
    computed = mlp(
        x.numpy(),
        as_matrix(hidden),
        as_array(hidden.bias),
        as_matrix(output),
        as_array(output.bias),
        function,
    )
    np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-12)


def test_feed_forward_parameters_are_hidden_then_output() -> None:
    block = FeedForward(3, 7, nn.Tanh())
    shapes = [tuple(p.shape) for p in block.parameters()]
    assert shapes == [(7, 3), (7,), (3, 7), (3,)]
