"""The hand-written backward pass against PyTorch's autograd (attention_core.teaching.gradcheck)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.teaching import gradcheck


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seed", [0, 7])
def test_hand_written_gradients_match_autograd(seed: int, causal: bool) -> None:
    check = gradcheck.check_gradients(gradcheck.gradient_example(seed, causal))
    assert check.loss == pytest.approx(check.autograd_loss, abs=1e-12)
    for name in gradcheck.GRADIENT_NAMES:
        assert check.max_difference[name] < 1e-9, name
        assert np.any(check.hand[name] != 0.0), name
