"""The NumPy forward pass (attention_core.maths.attention) against the PyTorch model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_core.learning.config import DEFAULTS, TinyTransformerConfig
from attention_core.learning.forward import forward
from attention_core.learning.model import TinyTransformer, weights_as_arrays
from attention_core.learning.tasks import get_task
from attention_core.maths import attention

ROOT = Path(__file__).resolve().parents[3]
TOLERANCE = 1e-5


def torch_pass(model: TinyTransformer, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's logits ``(B, T, V)`` and weights ``(B, L, H, T, T)`` (read from the modules)."""
    with torch.no_grad():
        logits, weights = model(torch.from_numpy(tokens))
    return logits.numpy(), torch.stack(weights, dim=1).numpy()


@pytest.mark.parametrize(
    "config",
    [
        TinyTransformerConfig("reverse", 1, 1, 32, False),
        TinyTransformerConfig("sort", 2, 2, 32, True),
        TinyTransformerConfig("induction", 2, 4, 64, False),
        TinyTransformerConfig("induction", 2, 1, 16, True),
    ],
)
def test_numpy_attention_and_logits_match_torch_on_random_weights(
    config: TinyTransformerConfig,
) -> None:
    torch.manual_seed(3)
    model = TinyTransformer(config)
    for parameter in model.parameters():  # well away from the initial values
        parameter.data += 0.3 * torch.randn_like(parameter)
    batch = get_task(config.task).make(np.random.default_rng(0), 6)
    logits, weights = torch_pass(model, batch.tokens)
    arrays = weights_as_arrays(model)
    for row, tokens in enumerate(batch.tokens):
        trace = forward(arrays, config, tokens)
        np.testing.assert_allclose(trace.weights, weights[row], rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(trace.logits, logits[row], rtol=0, atol=10 * TOLERANCE)


def test_projections_are_the_transposed_linear_weights_with_the_cores_head_split() -> None:
    config = TinyTransformerConfig("reverse", 1, 4, 32, False)
    model = TinyTransformer(config)
    x = torch.randn(8, 32)
    arrays = weights_as_arrays(model).layers[0]
    attention_module = model.blocks[0].attention
    with torch.no_grad():
        expected = attention_module.split_heads(attention_module.query(x)[None])[0].numpy()
    ours = attention.project(x.numpy(), arrays.w_q, 4)  # (H, T, dk)
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-6)


def test_forward_runs_the_cores_attention_functions() -> None:
    """The try-it box's "The code" lists exactly the attention_core functions that run."""
    from ui.learning.sections import TRY_IT_CODE

    config, _ = DEFAULTS["induction"]
    model = TinyTransformer(config)
    arrays = weights_as_arrays(model)
    tokens = get_task("induction").parse(get_task("induction").default_probe)
    called = set()

    def profile(frame, event, arg) -> None:
        if event == "call" and frame.f_code.co_filename in CORE_FILES:
            called.add((frame.f_code.co_filename, frame.f_code.co_name))

    CORE_FILES = {attention.__file__, sys.modules[forward.__module__].__file__}
    sys.setprofile(profile)
    try:
        forward(arrays, config, tokens)
    finally:
        sys.setprofile(None)
    shown = {(sys.modules[f.__module__].__file__, f.__name__) for f in TRY_IT_CODE}
    # everything shown ran, and every attention function that ran is shown
    assert shown <= called
    assert {c for c in called if c[0] == attention.__file__} <= shown


def test_importing_attention_core_and_the_numpy_learning_modules_does_not_import_torch() -> None:
    code = (
        "import sys, attention_core, attention_core.learning.forward, "
        "attention_core.learning.predict, ui.shared.training_cache, ui.learning.training, "
        "ui.learning.sections; assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
