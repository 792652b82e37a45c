r"""A tiny transformer in PyTorch with the NumPy core's names (trained by :mod:`.training`).

.. math::
    h^0 = E[x] + P \;\to\;
    h^{l} = h^{l-1} + \mathrm{MultiHeadAttention}(\mathrm{LN}(h^{l-1}))
    \;[\, + \mathrm{MLP}(\mathrm{LN}(\cdot)) \,] \;\to\;
    \mathrm{logits} = \mathrm{LN}(h^L)\, W^U + b^U

Shapes: tokens ``(B, T)``, the residual stream ``(B, T, d_model)``, logits
``(B, T, V)``. The attention is :class:`attention_core.training.attention.MultiHeadAttention`
(``Linear(bias=False)`` projections, the core's head split), so ``x @ query.weight.T``
is the core's ``x @ w_q`` and
:func:`weights_as_arrays` hands the core exactly the matrices it multiplies.

Needs PyTorch; imported only on demand (``from attention_core.learning import model``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from attention_core.boundary.arrays import read_only
from attention_core.learning.forward import LayerArrays, ModelArrays, ModelConfig
from attention_core.training.attention import MultiHeadAttention


class MLP(nn.Module):
    r""":math:`\mathrm{ReLU}(x W_1 + b_1) W_2 + b_2`, width ``4 d_model``."""

    hidden: nn.Linear
    output: nn.Linear

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(d_model, 4 * d_model)
        self.output = nn.Linear(4 * d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(x)))


class Block(nn.Module):
    """Pre-norm residual block: attention, then (optionally) the MLP."""

    attention_norm: nn.LayerNorm
    attention: MultiHeadAttention
    mlp_norm: nn.LayerNorm | None
    mlp: MLP | None

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attention_norm = nn.LayerNorm(config.d_model)
        self.attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.mlp_norm = nn.LayerNorm(config.d_model) if config.mlp else None
        self.mlp = MLP(config.d_model) if config.mlp else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        attended, weights = self.attention(self.attention_norm(x), mask)
        x = x + attended
        if self.mlp is not None and self.mlp_norm is not None:
            x = x + self.mlp(self.mlp_norm(x))
        return x, weights


class TinyTransformer(nn.Module):
    """Tokens ``(B, T)`` -> logits ``(B, T, V)`` and every layer's weights ``L x (B, H, T, T)``.

    Initialised from ``seed`` alone (its own generator, not torch's global one):
    embeddings and positions N(0, 0.02²), every projection N(0, 0.1²), biases 0,
    layer norms 1 and 0. The same seed gives the same weights in any thread.
    """

    def __init__(self, config: ModelConfig, seed: int = 0) -> None:
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Parameter(torch.empty(config.length, config.d_model))
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.final_norm = nn.LayerNorm(config.d_model)
        self.unembed = nn.Linear(config.d_model, config.vocab_size)
        self.register_buffer("mask", torch.from_numpy(config.attention_mask()))
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            self.token_embedding.weight.normal_(0.0, 0.02, generator=generator)
            self.position_embedding.normal_(0.0, 0.02, generator=generator)
            for module in self.modules():
                if isinstance(module, nn.Linear):
                    module.weight.normal_(0.0, 0.1, generator=generator)
                    if module.bias is not None:
                        module.bias.zero_()

    def layers(self) -> list[Block]:
        """The blocks, in order (typed: ``nn.ModuleList`` only knows they are modules)."""
        return [block for block in self.blocks if isinstance(block, Block)]

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        hidden = self.token_embedding(tokens) + self.position_embedding  # (B, T, d)
        all_weights = []
        for block in self.blocks:
            hidden, weights = block(hidden, self.mask)
            all_weights.append(weights)
        return self.unembed(self.final_norm(hidden)), all_weights  # (B, T, V), L x (B, H, T, T)


def _array(parameter: torch.Tensor, transpose: bool = False) -> np.ndarray:
    """A parameter as a read-only float32 NumPy copy (``.T`` for a Linear's ``(out, in)``)."""
    value = parameter.detach().cpu()
    return read_only((value.T if transpose else value).numpy())


def _norm(norm: nn.LayerNorm) -> tuple[np.ndarray, np.ndarray]:
    return _array(norm.weight), _array(norm.bias)


def weights_as_arrays(model: TinyTransformer) -> ModelArrays:
    """Every trained matrix as the NumPy forward pass takes it (``x @ w``, read-only).

    The core multiplies from the right and torch stores ``weight (out, in)``,
    so each projection is the transposed weight.
    """
    layers = []
    for block in model.layers():
        attention = block.attention
        mlp = block.mlp
        layers.append(
            LayerArrays(
                attention_norm=_norm(block.attention_norm),
                w_q=_array(attention.query.weight, True),
                w_k=_array(attention.key.weight, True),
                w_v=_array(attention.value.weight, True),
                w_o=_array(attention.output.weight, True),
                mlp_norm=_norm(block.mlp_norm) if block.mlp_norm is not None else None,
                mlp=(
                    (
                        _array(mlp.hidden.weight, True),
                        _array(mlp.hidden.bias),
                        _array(mlp.output.weight, True),
                        _array(mlp.output.bias),
                    )
                    if mlp is not None
                    else None
                ),
            )
        )
    return ModelArrays(
        token_embedding=_array(model.token_embedding.weight),
        position_embedding=_array(model.position_embedding),
        layers=tuple(layers),
        final_norm=_norm(model.final_norm),
        unembed=(_array(model.unembed.weight, True), _array(model.unembed.bias)),
    )


def load_arrays(model: TinyTransformer, arrays: ModelArrays) -> TinyTransformer:
    """Put NumPy matrices (as :func:`weights_as_arrays` gives them) back into ``model``."""

    def put(parameter: torch.Tensor, array: np.ndarray, transpose: bool = False) -> None:
        value = torch.from_numpy(np.array(array.T if transpose else array, dtype=np.float32))
        parameter.data.copy_(value)

    def put_norm(norm: nn.LayerNorm, pair: tuple[np.ndarray, np.ndarray]) -> None:
        put(norm.weight, pair[0])
        put(norm.bias, pair[1])

    put(model.token_embedding.weight, arrays.token_embedding)
    put(model.position_embedding, arrays.position_embedding)
    for block, layer in zip(model.layers(), arrays.layers, strict=True):
        put_norm(block.attention_norm, layer.attention_norm)
        for linear, array in zip(
            (block.attention.query, block.attention.key, block.attention.value),
            (layer.w_q, layer.w_k, layer.w_v),
            strict=True,
        ):
            put(linear.weight, array, transpose=True)
        put(block.attention.output.weight, layer.w_o, transpose=True)
        if block.mlp is not None and block.mlp_norm is not None:
            assert layer.mlp is not None and layer.mlp_norm is not None  # the same config
            put_norm(block.mlp_norm, layer.mlp_norm)
            w1, b1, w2, b2 = layer.mlp
            put(block.mlp.hidden.weight, w1, transpose=True)
            put(block.mlp.hidden.bias, b1)
            put(block.mlp.output.weight, w2, transpose=True)
            put(block.mlp.output.bias, b2)
    put_norm(model.final_norm, arrays.final_norm)
    put(model.unembed.weight, arrays.unembed[0], transpose=True)
    put(model.unembed.bias, arrays.unembed[1])
    return model
