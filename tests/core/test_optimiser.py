"""Our written-out AdamW against torch.optim.AdamW, and what it spares a server."""

from __future__ import annotations

import pytest
import torch

from attention_core.training.optimiser import AdamW
from tests.snippets import run_python


def twin_models(seed: int) -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(seed)
    first = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    second = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    second.load_state_dict(first.state_dict())
    return first, second


@pytest.mark.parametrize("weight_decay", [0.0, 0.3])
def test_every_step_matches_torch_adamw_with_a_changing_learning_rate(weight_decay) -> None:
    ours_model, torch_model = twin_models(0)
    ours = AdamW(ours_model.parameters(), 0.01, weight_decay)
    reference = torch.optim.AdamW(
        torch_model.parameters(), lr=0.01, weight_decay=weight_decay, foreach=False
    )
    data = torch.randn(40, 16, 6, generator=torch.Generator().manual_seed(1))
    for step, x in enumerate(data):
        rate = 0.01 * (1 - step / len(data))  # annealed, as training does after its target
        ours.learning_rate = rate
        reference.param_groups[0]["lr"] = rate
        for model, optimiser in ((ours_model, ours), (torch_model, reference)):
            optimiser.zero_grad()
            model(x).square().mean().backward()
            optimiser.step()
        for mine, theirs in zip(ours_model.parameters(), torch_model.parameters(), strict=True):
            torch.testing.assert_close(mine, theirs, rtol=0, atol=1e-7)


def test_a_parameter_without_a_gradient_is_left_alone() -> None:
    model, _ = twin_models(2)
    optimiser = AdamW(model.parameters(), 0.1, weight_decay=0.5)
    before = [p.detach().clone() for p in model.parameters()]
    optimiser.step()  # no backward yet: no gradients
    for parameter, old in zip(model.parameters(), before, strict=True):
        assert torch.equal(parameter, old)


def test_training_with_it_does_not_import_torch_dynamo() -> None:
    """torch.optim's optimisers import torch._dynamo and SymPy (about 65 MB); ours does not."""
    code = (
        "import sys, torch\n"
        "from attention_core.training.optimiser import AdamW\n"
        "m = torch.nn.Linear(3, 2); o = AdamW(m.parameters(), 0.1)\n"
        "m(torch.ones(1, 3)).sum().backward(); o.step()\n"
        "print(any(n.startswith(('torch._dynamo', 'sympy')) for n in sys.modules))\n"
    )
    assert run_python(code) == "False"
