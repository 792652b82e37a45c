r"""Check the hand-written backward pass against PyTorch's autograd.

One head, a squared-error loss against a target :math:`Y`:

.. math:: L = \tfrac12 \lVert O - Y \rVert^2, \qquad
          \frac{\partial L}{\partial O} = O - Y

:func:`attention_core.attention_backward` turns :math:`\partial L/\partial O`
into the gradient of every weight matrix; autograd does the same from the
forward pass alone. They must agree to rounding (about 1e-16 in float64).

PyTorch is imported inside :func:`autograd_gradients` only, so importing this
module stays as fast as the rest of the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # at run time torch is imported only inside autograd_gradients
    import torch

from attention_core.boundary.api import scaled_dot_product_attention
from attention_core.boundary.gradients import attention_backward
from attention_core.boundary.validation import check_positive_int
from attention_core.maths.backward import AttentionGradients
from attention_core.maths.projections import glorot_uniform

#: The matrices whose gradients are compared, in display order.
GRADIENT_NAMES = ("W_Q", "W_K", "W_V", "X")


@dataclass(frozen=True)
class GradientExample:
    """Inputs of one small attention head and its target.

    ``x (T, d)``, ``w_q, w_k (d, dk)``, ``w_v (d, dv)``, ``target (T, dv)``,
    optional ``mask (T, T)`` bool (True = may attend).
    """

    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    target: np.ndarray
    mask: np.ndarray | None


def gradient_example(
    seed: int = 0, causal: bool = False, length: int = 4, width: int = 3, head_width: int = 2
) -> GradientExample:
    """A seeded example: inputs and target ~ N(0, 1), Glorot-uniform weights."""
    length = check_positive_int(length, "Length", 64)
    width = check_positive_int(width, "Width", 64)
    head_width = check_positive_int(head_width, "Head width", 64)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((length, width))
    w_q = glorot_uniform(rng, width, head_width)
    w_k = glorot_uniform(rng, width, head_width)
    w_v = glorot_uniform(rng, width, head_width)
    target = rng.standard_normal((length, head_width))
    mask = np.tri(length, dtype=bool) if causal else None
    return GradientExample(x, w_q, w_k, w_v, target, mask)


def hand_gradients(example: GradientExample) -> tuple[float, AttentionGradients]:
    r"""The loss and :func:`attention_backward` with :math:`\partial L/\partial O = O - Y`."""
    forward = scaled_dot_product_attention(
        example.x @ example.w_q,
        example.x @ example.w_k,
        example.x @ example.w_v,
        mask=example.mask,
    )
    d_output = forward.context - example.target  # (T, dv)
    loss = 0.5 * float(np.sum(d_output**2))
    gradients = attention_backward(
        example.x,
        example.x,
        example.x,
        example.w_q,
        example.w_k,
        example.w_v,
        d_output,
        mask=example.mask,
    )
    return loss, gradients


def autograd_gradients(example: GradientExample) -> tuple[float, dict[str, np.ndarray]]:
    """The same loss in float64 PyTorch, differentiated by autograd.

    Returns the loss and ``{name: gradient}`` for :data:`GRADIENT_NAMES`.
    """
    import torch  # heavy: only when a gradient check is asked for

    def leaf(array: np.ndarray) -> torch.Tensor:
        return torch.tensor(array, dtype=torch.float64, requires_grad=True)

    x, w_q, w_k, w_v = (leaf(a) for a in (example.x, example.w_q, example.w_k, example.w_v))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = (q @ k.T) / float(np.sqrt(q.shape[1]))
    if example.mask is not None:
        scores = scores.masked_fill(~torch.tensor(example.mask), float("-inf"))
    output = torch.softmax(scores, dim=-1) @ v
    loss = 0.5 * torch.sum((output - torch.tensor(example.target)) ** 2)
    loss.backward()
    tensors = {"W_Q": w_q, "W_K": w_k, "W_V": w_v, "X": x}
    return loss.item(), {name: _gradient(tensors[name]) for name in GRADIENT_NAMES}


@dataclass(frozen=True)
class GradientCheck:
    """Hand-written and autograd gradients side by side."""

    loss: float  #: from our NumPy forward pass
    autograd_loss: float  #: from PyTorch's
    hand: dict[str, np.ndarray]  #: name -> gradient, see GRADIENT_NAMES
    autograd: dict[str, np.ndarray]
    max_difference: dict[str, float]  #: name -> max |hand - autograd|


def _gradient(leaf: torch.Tensor) -> np.ndarray:
    """The gradient autograd stored on ``leaf`` after ``backward()``."""
    if leaf.grad is None:
        raise RuntimeError("autograd left no gradient on a leaf that needs one")
    return leaf.grad.numpy()


def check_gradients(example: GradientExample) -> GradientCheck:
    r""":math:`\max |\nabla_{\text{hand}} - \nabla_{\text{autograd}}|` for every matrix."""
    loss, gradients = hand_gradients(example)
    hand = {
        "W_Q": gradients.d_w_q,
        "W_K": gradients.d_w_k,
        "W_V": gradients.d_w_v,
        # Self-attention: X feeds the queries, keys and values, so its gradient is the sum.
        "X": gradients.d_x_q + gradients.d_x_k + gradients.d_x_v,
    }
    autograd_loss, autograd = autograd_gradients(example)
    difference = {name: float(np.max(np.abs(hand[name] - autograd[name]))) for name in hand}
    return GradientCheck(loss, autograd_loss, hand, autograd, difference)
