r"""AdamW for the two trained models, written out (both training loops use it).

.. math::
    \theta \leftarrow \theta (1 - \eta\lambda),\quad
    m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
    v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad
    \theta \leftarrow \theta - \frac{\eta}{1-\beta_1^t}\,
        \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} + \epsilon}

The same arithmetic, in the same order, as ``torch.optim.AdamW`` (single-tensor
path; ``tests/core/test_optimiser.py`` compares them step by step). Why not
torch's own: constructing any ``torch.optim`` optimiser imports
``torch._dynamo`` and SymPy, memory and an import's wait that a classroom server
would pay for nothing (a class's peak memory: benchmarks/class_mix.py). With ``weight_decay=0``
this is Adam. The learning rate may change between steps (:attr:`learning_rate`).

Needs PyTorch; imported only by the training loops.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


class AdamW:
    """Decoupled weight decay Adam over ``parameters``; ``step()`` after ``backward()``."""

    def __init__(
        self,
        parameters: Iterable[torch.nn.Parameter],
        learning_rate: float,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.parameters = [p for p in parameters if p.requires_grad]
        self.learning_rate, self.weight_decay = learning_rate, weight_decay
        self.betas, self.eps = betas, eps
        self.steps = 0
        self.first = [torch.zeros_like(p) for p in self.parameters]  # m
        self.second = [torch.zeros_like(p) for p in self.parameters]  # v

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One update of every parameter that has a gradient."""
        self.steps += 1
        beta1, beta2 = self.betas
        rate = self.learning_rate
        step_size = rate / (1 - beta1**self.steps)
        correction2 = (1 - beta2**self.steps) ** 0.5  # as torch computes it
        for parameter, first, second in zip(self.parameters, self.first, self.second, strict=True):
            grad = parameter.grad
            if grad is None:
                continue
            parameter.mul_(1 - rate * self.weight_decay)
            first.lerp_(grad, 1 - beta1)
            second.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denominator = (second.sqrt() / correction2).add_(self.eps)
            parameter.addcdiv_(first, denominator, value=-step_size)
