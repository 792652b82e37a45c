r"""GPT-2 (and distilgpt2) in NumPy: a decoder with learned absolute positions.

.. math::
    X_0 = E_{\text{tok}}[t] + E_{\text{pos}}[p] \qquad
    Y = X + \mathrm{Attn}(\mathrm{LN}_1(X)) \qquad
    X' = Y + \mathrm{MLP}(\mathrm{LN}_2(Y)) \qquad
    \mathrm{logits} = \mathrm{LN}_f(X_L)\, E_{\text{tok}}^\top

Pre-LayerNorm, Q/K/V with biases (``c_attn`` holds all three side by side), GELU
in its tanh form, a causal mask, and the LM head tied to the token table. GPT-2
stores its ``Conv1D`` weights as ``(d_in, d_out)`` already: ``x @ w``, no transpose.
Attention is :func:`attention_core.maths.attention.multi_head_attention`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.maths.ablation import Ablation
from attention_core.maths.attention import multi_head_attention
from attention_core.maths.layers import gelu_tanh, layer_norm, mlp
from attention_core.maths.projections import Projections
from attention_core.pretrained import config as settings
from attention_core.pretrained import decoder
from attention_core.pretrained.decoder import next_token_logits, one_text
from attention_core.pretrained.tensors import (
    Stored,
    Tensors,
    expect,
    open_tensors,
    widen,
    without_prefix,
)
from attention_core.pretrained.trace import Attended, BlockTrace, ModelInfo, ModelTrace, block_trace

#: config.json's names for GELU in its tanh form (the only activation GPT-2 checkpoints use).
TANH_GELUS = ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")


@dataclass(frozen=True)
class GPT2Layer:
    """One block's arrays as stored (float32, or float16 widened when used)."""

    ln1_gain: Stored  #: (d,)
    ln1_bias: Stored  #: (d,)
    w_qkv: Stored  #: (d, 3d) W^Q, W^K, W^V side by side
    b_qkv: Stored  #: (3d,)
    w_o: Stored  #: (d, d)
    b_o: Stored  #: (d,)
    ln2_gain: Stored  #: (d,)
    ln2_bias: Stored  #: (d,)
    w_in: Stored  #: (d, d_ff)
    b_in: Stored  #: (d_ff,)
    w_out: Stored  #: (d_ff, d)
    b_out: Stored  #: (d,)

    def projections(self) -> Projections:
        """W^Q, W^K, W^V ``(d, d)`` each, cut from ``c_attn``, with their biases; float32."""
        w, b = widen(self.w_qkv), widen(self.b_qkv)
        d = w.shape[0]
        return Projections(
            w[:, :d],
            w[:, d : 2 * d],
            w[:, 2 * d :],
            widen(self.w_o),
            b_q=b[:d],
            b_k=b[d : 2 * d],
            b_v=b[2 * d :],
            b_o=widen(self.b_o),
        )


@dataclass(frozen=True)
class GPT2:
    """A loaded GPT-2: the tables, the blocks, the final LayerNorm, and its facts."""

    info: ModelInfo
    token_table: Stored  #: (V, d) ``wte``, also the LM head
    position_table: Stored  #: (max_positions, d) ``wpe``
    layers: tuple[GPT2Layer, ...]
    final_gain: Stored  #: (d,) ``ln_f``
    final_bias: Stored
    lm_head: Stored  #: (V, d): ``token_table`` unless the checkpoint stores its own
    eps: float

    def attend(
        self, x: np.ndarray, layer: GPT2Layer, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> Attended:  # fmt: skip
        r""":math:`\mathrm{Attn}(\mathrm{LN}_1 X)` on the layer's input ``x (T, d)``; the heads
        ``ablation`` names in layer ``layer_index`` off."""
        normed = layer_norm(x, widen(layer.ln1_gain), widen(layer.ln1_bias), self.eps)
        scale = 1.0 / math.sqrt(self.info.d_head)
        attended = multi_head_attention(
            normed, normed, layer.projections(), self.info.n_heads, scale, mask,
            ablation=ablation, layer_index=layer_index,
        )  # fmt: skip
        return Attended(normed, attended)

    def block(
        self, x: np.ndarray, layer: GPT2Layer, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> BlockTrace:  # fmt: skip
        r""":math:`Y = X + \mathrm{Attn}(\mathrm{LN}_1 X)`,
        :math:`X' = Y + \mathrm{MLP}(\mathrm{LN}_2 Y)`; ``(T, d) -> (T, d)``.
        """
        attended = self.attend(x, layer, mask, ablation, layer_index)
        y = x + attended.trace.output  # (T, d)
        return block_trace(x, attended, y + self.feed_forward(y, layer))

    def feed_forward(self, y: np.ndarray, layer: GPT2Layer) -> np.ndarray:
        r"""The block's second half without its residual: :math:`\mathrm{MLP}(\mathrm{LN}_2 Y)`,
        ``(T, d) -> (T, d)``."""
        normed_y = layer_norm(y, widen(layer.ln2_gain), widen(layer.ln2_bias), self.eps)
        w_in, b_in, w_out, b_out = (
            widen(a) for a in (layer.w_in, layer.b_in, layer.w_out, layer.b_out)
        )
        return mlp(normed_y, w_in, b_in, w_out, b_out, gelu_tanh)  # (T, d)

    def embed(
        self, ids: np.ndarray, type_ids: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r""":math:`X_0 = E_{\text{tok}}[t] + E_{\text{pos}}[p]`: ``(T,) -> (X_0, token rows,
        position rows)``, each ``(T, d)``; one text (``type_ids`` None)."""
        one_text(type_ids)
        token_rows = widen(self.token_table[ids])  # (T, d)
        position_rows = widen(self.position_table[: len(ids)])  # (T, d)
        return token_rows + position_rows, token_rows, position_rows

    def finish(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r""":math:`h = \mathrm{LN}_f(X_L)`, logits :math:`h W_{\text{LM}}^\top`: ``(T, d) ->
        ((T, d), (T, V))``."""
        hidden = layer_norm(x, widen(self.final_gain), widen(self.final_bias), self.eps)
        return hidden, next_token_logits(hidden, self.lm_head)  # (T, V)

    def forward(self, ids: np.ndarray, ablation: Ablation | None = None) -> ModelTrace:
        """Embeddings, every block, the final norm and the logits: ``(T,) -> ModelTrace``;
        ``ablation``: heads turned off, None: all on."""
        return decoder.forward(self, ids, ablation=ablation)


def _layer(tensors: Tensors, i: int, d: int, d_ff: int) -> GPT2Layer:
    def take(name: str, shape: tuple[int, ...]) -> Stored:
        return expect(tensors, f"h.{i}.{name}", shape)

    return GPT2Layer(
        take("ln_1.weight", (d,)),
        take("ln_1.bias", (d,)),
        take("attn.c_attn.weight", (d, 3 * d)),
        take("attn.c_attn.bias", (3 * d,)),
        take("attn.c_proj.weight", (d, d)),
        take("attn.c_proj.bias", (d,)),
        take("ln_2.weight", (d,)),
        take("ln_2.bias", (d,)),
        take("mlp.c_fc.weight", (d, d_ff)),
        take("mlp.c_fc.bias", (d_ff,)),
        take("mlp.c_proj.weight", (d_ff, d)),
        take("mlp.c_proj.bias", (d,)),
    )


def _check_settings(config: settings.Config) -> None:
    settings.refuse_unless(
        config.get("activation_function", "gelu_new") in TANH_GELUS,
        f"the activation {config.get('activation_function')!r} (GPT-2 uses gelu_new)",
    )
    settings.refuse_unless(config.get("scale_attn_weights", True), "unscaled attention scores")
    settings.refuse_unless(
        not config.get("scale_attn_by_inverse_layer_idx", False), "scores scaled by layer index"
    )
    settings.refuse_unless(not config.get("add_cross_attention", False), "cross-attention")


def load(directory: Path, config: settings.Config) -> GPT2:
    """Read and check a GPT-2 checkpoint folder (config.json, safetensors)."""
    tensors = without_prefix(open_tensors(directory), "transformer.")
    return from_tensors(directory.name, config, tensors)


def from_tensors(name: str, config: settings.Config, tensors: Tensors) -> GPT2:
    """A GPT-2 from HF's settings and tensor names (without ``transformer.``): settings
    checked, then every tensor's shape."""
    _check_settings(config)
    d, n_heads = settings.integer(config, "n_embd"), settings.integer(config, "n_head")
    n_layers, vocab = settings.integer(config, "n_layer"), settings.integer(config, "vocab_size")
    max_positions = settings.integer(config, "n_positions")
    d_ff = 4 * d if config.get("n_inner") is None else settings.integer(config, "n_inner")
    settings.refuse_unless(d % n_heads == 0, f"{n_heads} heads that do not divide width {d}")
    token_table = expect(tensors, "wte.weight", (vocab, d))
    info = ModelInfo(
        name=name,
        family="gpt2",
        model_type="gpt2",
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_heads,
        d_model=d,
        d_head=d // n_heads,
        vocab_size=vocab,
        max_positions=max_positions,
        causal=True,
        positions="absolute",
        rotary_base=None,
    )
    own_head = "lm_head.weight" in tensors and not config.get("tie_word_embeddings", True)
    return GPT2(
        info=info,
        token_table=token_table,
        position_table=expect(tensors, "wpe.weight", (max_positions, d)),
        layers=tuple(_layer(tensors, i, d, d_ff) for i in range(n_layers)),
        final_gain=expect(tensors, "ln_f.weight", (d,)),
        final_bias=expect(tensors, "ln_f.bias", (d,)),
        lm_head=expect(tensors, "lm_head.weight", (vocab, d)) if own_head else token_table,
        eps=settings.number(config, "layer_norm_epsilon", 1e-5),
    )
