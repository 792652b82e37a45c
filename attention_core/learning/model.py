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
:func:`weights_as_arrays` hands the core exactly the matrices it multiplies. The MLP is
:class:`attention_core.training.feed_forward.FeedForward` (ReLU, width ``4 d_model``).

Needs PyTorch; imported only on demand (``from attention_core.learning import model``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.forward import LayerArrays, ModelArrays
from attention_core.maths.ablation import Ablation
from attention_core.training.attention import MultiHeadAttention
from attention_core.training.export import (
    as_array,
    as_matrix,
    attention_matrices,
    load_array,
    load_matrix,
)
from attention_core.training.feed_forward import FeedForward


class Block(nn.Module):
    """Pre-norm residual block: attention, then (optionally) the MLP."""

    attention_norm: nn.LayerNorm
    attention: MultiHeadAttention
    mlp_norm: nn.LayerNorm | None
    mlp: FeedForward | None  #: ReLU, width 4 d_model

    def __init__(self, config: TinyTransformerConfig) -> None:
        super().__init__()
        self.attention_norm = nn.LayerNorm(config.d_model)
        self.attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.mlp_norm = nn.LayerNorm(config.d_model) if config.mlp else None
        self.mlp = (
            FeedForward(config.d_model, 4 * config.d_model, nn.ReLU()) if config.mlp else None
        )

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        attended, weights = self.attention(self.attention_norm(x), mask, ablation, layer_index)
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

    def __init__(self, config: TinyTransformerConfig, seed: int = 0) -> None:
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

    def forward(
        self, tokens: torch.Tensor, ablation: Ablation | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Tokens ``(B, T)`` -> logits, weights; ``ablation``: heads turned off, None: all on."""
        hidden = self.token_embedding(tokens) + self.position_embedding  # (B, T, d)
        all_weights = []
        for index, block in enumerate(self.blocks):
            hidden, weights = block(hidden, self.mask, ablation, index)
            all_weights.append(weights)
        return self.unembed(self.final_norm(hidden)), all_weights  # (B, T, V), L x (B, H, T, T)


def _norm(norm: nn.LayerNorm) -> tuple[np.ndarray, np.ndarray]:
    return as_array(norm.weight), as_array(norm.bias)


def weights_as_arrays(model: TinyTransformer) -> ModelArrays:
    """Every trained matrix as the NumPy forward pass takes it (``x @ w``, read-only).

    The core multiplies from the right and torch stores ``weight (out, in)``,
    so each projection is the transposed weight (:mod:`attention_core.training.export`).
    """
    layers = []
    for block in model.layers():
        mlp = block.mlp
        layers.append(
            LayerArrays(
                attention_norm=_norm(block.attention_norm),
                **attention_matrices(block.attention),
                mlp_norm=_norm(block.mlp_norm) if block.mlp_norm is not None else None,
                mlp=(
                    (
                        as_matrix(mlp.hidden),
                        as_array(mlp.hidden.bias),
                        as_matrix(mlp.output),
                        as_array(mlp.output.bias),
                    )
                    if mlp is not None
                    else None
                ),
            )
        )
    return ModelArrays(
        token_embedding=as_array(model.token_embedding.weight),
        position_embedding=as_array(model.position_embedding),
        layers=tuple(layers),
        final_norm=_norm(model.final_norm),
        unembed=(as_matrix(model.unembed), as_array(model.unembed.bias)),
    )


def load_arrays(model: TinyTransformer, arrays: ModelArrays) -> TinyTransformer:
    """Put NumPy matrices (as :func:`weights_as_arrays` gives them) back into ``model``."""

    def put_norm(norm: nn.LayerNorm, pair: tuple[np.ndarray, np.ndarray]) -> None:
        load_array(norm.weight, pair[0])
        load_array(norm.bias, pair[1])

    load_array(model.token_embedding.weight, arrays.token_embedding)
    load_array(model.position_embedding, arrays.position_embedding)
    for block, layer in zip(model.layers(), arrays.layers, strict=True):
        put_norm(block.attention_norm, layer.attention_norm)
        attention = block.attention
        for linear, matrix in zip(
            (attention.query, attention.key, attention.value, attention.output),
            (layer.w_q, layer.w_k, layer.w_v, layer.w_o),
            strict=True,
        ):
            load_matrix(linear, matrix)
        if block.mlp is not None and block.mlp_norm is not None:
            assert layer.mlp is not None and layer.mlp_norm is not None  # the same config
            put_norm(block.mlp_norm, layer.mlp_norm)
            w1, b1, w2, b2 = layer.mlp
            load_matrix(block.mlp.hidden, w1)
            load_array(block.mlp.hidden.bias, b1)
            load_matrix(block.mlp.output, w2)
            load_array(block.mlp.output.bias, b2)
    put_norm(model.final_norm, arrays.final_norm)
    load_matrix(model.unembed, arrays.unembed[0])
    load_array(model.unembed.bias, arrays.unembed[1])
    return model
