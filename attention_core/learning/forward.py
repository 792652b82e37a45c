r"""The trained tiny transformer's forward pass in NumPy; attention by :mod:`..attention`.

.. math::
    h^0 = E[x] + P,\quad
    h^{l} = h^{l-1} + \mathrm{MHA}(\mathrm{LN}(h^{l-1}))\;[\,+\,\mathrm{MLP}(\mathrm{LN}(\cdot))\,],
    \quad \mathrm{logits} = \mathrm{LN}(h^L)\, W^U + b^U

Every drawing of the learning page comes from here: the weights of every head
are :func:`attention_core.maths.attention.multi_head_attention` on the trained
projections, not read back from PyTorch. Tokens ``(T,)``, residual ``(T, d)``,
weights ``(L, H, T, T)``. No PyTorch needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.arrays import read_only
from attention_core.learning.config import TinyTransformerConfig
from attention_core.maths import attention
from attention_core.maths.ablation import Ablation
from attention_core.maths.layers import layer_norm, mlp, relu
from attention_core.maths.projections import Projections

LAYER_NORM_EPS = 1e-5  # torch.nn.LayerNorm's default

Norm = tuple[np.ndarray, np.ndarray]  #: gain (d,), bias (d,)


@dataclass(frozen=True)
class LayerArrays:
    """One block's trained matrices, ``x @ w`` convention (read-only float32, as trained)."""

    attention_norm: Norm
    w_q: np.ndarray  #: (d, H*dk)
    w_k: np.ndarray  #: (d, H*dk)
    w_v: np.ndarray  #: (d, H*dv)
    w_o: np.ndarray  #: (H*dv, d)
    mlp_norm: Norm | None
    mlp: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None  #: w1, b1, w2, b2

    def projections(self) -> Projections:
        """The core's :class:`Projections`; heads combine through W^O (no per-head weights)."""
        return Projections(self.w_q, self.w_k, self.w_v, self.w_o)


@dataclass(frozen=True)
class ModelArrays:
    """Every trained parameter of a :class:`~.model.TinyTransformer` as NumPy arrays."""

    token_embedding: np.ndarray  #: (V, d)
    position_embedding: np.ndarray  #: (T, d)
    layers: tuple[LayerArrays, ...]
    final_norm: Norm
    unembed: tuple[np.ndarray, np.ndarray]  #: (d, V), (V,)


def arrays_to_dict(arrays: ModelArrays) -> dict[str, np.ndarray]:
    """Every matrix under a flat name (``layer0.w_q``), as a file stores it."""
    flat = {
        "token_embedding": arrays.token_embedding,
        "position_embedding": arrays.position_embedding,
        "final_norm.gain": arrays.final_norm[0],
        "final_norm.bias": arrays.final_norm[1],
        "unembed.w": arrays.unembed[0],
        "unembed.b": arrays.unembed[1],
    }
    for index, layer in enumerate(arrays.layers):
        name = f"layer{index}."
        flat |= {
            f"{name}attention_norm.gain": layer.attention_norm[0],
            f"{name}attention_norm.bias": layer.attention_norm[1],
            f"{name}w_q": layer.w_q,
            f"{name}w_k": layer.w_k,
            f"{name}w_v": layer.w_v,
            f"{name}w_o": layer.w_o,
        }
        if layer.mlp_norm is not None and layer.mlp is not None:
            w1, b1, w2, b2 = layer.mlp
            flat |= {
                f"{name}mlp_norm.gain": layer.mlp_norm[0],
                f"{name}mlp_norm.bias": layer.mlp_norm[1],
                f"{name}mlp.w1": w1,
                f"{name}mlp.b1": b1,
                f"{name}mlp.w2": w2,
                f"{name}mlp.b2": b2,
            }
    return flat


def arrays_from_dict(flat: Mapping[str, np.ndarray], config: TinyTransformerConfig) -> ModelArrays:
    """The inverse of :func:`arrays_to_dict` for a model of ``config``; read-only copies."""

    def get(name: str) -> np.ndarray:
        return read_only(flat[name], np.float32)

    def norm(name: str) -> Norm:
        return get(f"{name}.gain"), get(f"{name}.bias")

    layers = tuple(
        LayerArrays(
            attention_norm=norm(f"layer{i}.attention_norm"),
            w_q=get(f"layer{i}.w_q"),
            w_k=get(f"layer{i}.w_k"),
            w_v=get(f"layer{i}.w_v"),
            w_o=get(f"layer{i}.w_o"),
            mlp_norm=norm(f"layer{i}.mlp_norm") if config.mlp else None,
            mlp=(
                (
                    get(f"layer{i}.mlp.w1"),
                    get(f"layer{i}.mlp.b1"),
                    get(f"layer{i}.mlp.w2"),
                    get(f"layer{i}.mlp.b2"),
                )
                if config.mlp
                else None
            ),
        )
        for i in range(config.n_layers)
    )
    return ModelArrays(
        token_embedding=get("token_embedding"),
        position_embedding=get("position_embedding"),
        layers=layers,
        final_norm=norm("final_norm"),
        unembed=(get("unembed.w"), get("unembed.b")),
    )


@dataclass(frozen=True)
class ForwardTrace:
    """What one sequence does in the model: every head's trace, weights and the logits."""

    tokens: np.ndarray  #: (T,)
    traces: tuple[attention.MultiHeadTrace, ...]  #: one per layer
    weights: np.ndarray  #: (L, H, T, T) every head's softmax weights
    logits: np.ndarray  #: (T, V)

    @property
    def predictions(self) -> np.ndarray:
        """``(T,)`` the most likely next (or output) token at every position."""
        return np.argmax(self.logits, axis=-1)


def forward(
    arrays: ModelArrays,
    config: TinyTransformerConfig,
    tokens: np.ndarray,
    ablation: Ablation | None = None,
) -> ForwardTrace:
    """Run ``tokens (T,)`` through the trained model; attention by the core, head by head.

    ``ablation``: the heads turned off (:mod:`attention_core.maths.ablation`, checked by the
    caller against ``config``), None: all on.
    """
    tokens = np.asarray(tokens)
    mask = config.attention_mask() if config.causal else None  # (T, T) or None
    scale = 1.0 / np.sqrt(config.d_model // config.n_heads)
    # float32 matrices as trained; float64 arithmetic from here on
    hidden = arrays.token_embedding[tokens].astype(np.float64) + arrays.position_embedding  # (T, d)
    traces = []
    for index, layer in enumerate(arrays.layers):
        normed = layer_norm(hidden, *layer.attention_norm, LAYER_NORM_EPS)
        trace = attention.multi_head_attention(
            normed, normed, layer.projections(), config.n_heads, scale, mask,
            ablation=ablation, layer_index=index,
        )  # fmt: skip
        hidden = hidden + trace.output  # (T, d)
        if layer.mlp is not None and layer.mlp_norm is not None:
            hidden = hidden + mlp(
                layer_norm(hidden, *layer.mlp_norm, LAYER_NORM_EPS), *layer.mlp, relu
            )
        traces.append(trace)
    w_unembed, b_unembed = arrays.unembed
    logits = (
        layer_norm(hidden, *arrays.final_norm, LAYER_NORM_EPS) @ w_unembed + b_unembed
    )  # (T, V)
    weights = np.stack([trace.weights for trace in traces])  # (L, H, T, T)
    return ForwardTrace(tokens, tuple(traces), weights, logits)
