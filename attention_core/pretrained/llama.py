r"""The Llama family in NumPy (Llama, SmolLM2, Qwen2, Mistral): RoPE, grouped K/V heads, SwiGLU.

.. math::
    Y = X + \mathrm{Attn}(\mathrm{RMSNorm}_1 X) \qquad
    X' = Y + \mathrm{SwiGLU}(\mathrm{RMSNorm}_2 Y) \qquad
    \mathrm{logits} = \mathrm{RMSNorm}_f(X_L)\, W_{\text{LM}}^\top

No position table: queries and keys are rotated by position (RoPE with the
configured base ``rope_theta``, positions 0, 1, ...), ``n_heads // n_kv_heads``
query heads share each K/V head, the mask is causal, the LM head is tied to the
token table or stored (``lm_head.weight``). Qwen2 adds biases to Q, K and V;
Llama's ``attention_bias`` adds them to Q, K, V and O.

**RoPE's column pairs.** :func:`attention_core.maths.positional.rotate` turns the
interleaved pairs (2i, 2i+1) of each head by :math:`\theta_{p,i} = p\, b^{-2i/d_k}`.
Hugging Face's Llama code turns the halves (i, i + d_k/2) by the same angle
(``rotate_half``; its ``inv_freq = base ** (-arange(0, d, 2) / d)`` is the same
:math:`b^{-2i/d_k}`). Loading reorders each head's rows of W^Q and W^K (and their
biases) so that HF's column i becomes our column 2i and HF's column i + d_k/2 our
2i + 1 (:func:`rope_order`, the standard permutation between Meta's and HF's
layouts). Each query and key is then the same numbers in another column order,
so every score :math:`q \cdot k` and every attention weight equals Hugging Face's.
Values and W^O are untouched. A GGUF file of the ``llama`` architecture already
stores them interleaved (llama.cpp's converter permutes them the same way, since
llama.cpp turns pairs (2i, 2i+1) too), so its rows are taken as they are
(``Llama.interleaved``); a ``qwen2`` GGUF keeps HF's order.

Weights stay as stored (float32, float16 or bfloat16, memory-mapped) and each
layer is widened to float32 while it runs (:func:`attention_core.pretrained.tensors.widen`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.boundary.limits import MAX_TOKENS
from attention_core.maths.ablation import Ablation
from attention_core.maths.attention import multi_head_attention
from attention_core.maths.layers import rms_norm, swiglu
from attention_core.maths.positional import rotary_angles
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


def rope_order(n_heads: int, d_head: int) -> np.ndarray:
    """Row order taking HF's half pairs to interleaved pairs, for ``n_heads`` heads: ``(H*dk,)``.

    Within a head: ``[0, dk/2, 1, dk/2 + 1, ...]``, so new row 2i is old row i and new
    row 2i + 1 is old row i + dk/2.
    """
    half = d_head // 2
    within = np.stack([np.arange(half), np.arange(half) + half], axis=1).reshape(-1)  # (dk,)
    return (np.arange(n_heads)[:, None] * d_head + within).reshape(-1)  # (H*dk,)


def _ordered(stored: Stored, order: np.ndarray | None) -> np.ndarray:
    """``stored`` as float32, its rows in ``order`` (None: as stored)."""
    wide = widen(stored)
    return wide if order is None else wide[order]


def _rows(stored: Stored | None, order: np.ndarray | None) -> np.ndarray | None:
    return None if stored is None else _ordered(stored, order)


@dataclass(frozen=True)
class LlamaLayer:
    """One block's arrays as stored, in Hugging Face's ``(d_out, d_in)`` layout and row order."""

    attention_norm: Stored  #: (d,) ``input_layernorm``
    w_q: Stored  #: (H*dk, d)
    w_k: Stored  #: (Hkv*dk, d)
    w_v: Stored  #: (Hkv*dk, d)
    w_o: Stored  #: (d, H*dk)
    b_q: Stored | None  #: (H*dk,) Qwen2, or Llama's attention_bias
    b_k: Stored | None  #: (Hkv*dk,)
    b_v: Stored | None  #: (Hkv*dk,)
    b_o: Stored | None  #: (d,) Llama's attention_bias only
    mlp_norm: Stored  #: (d,) ``post_attention_layernorm``
    w_gate: Stored  #: (d_ff, d)
    w_up: Stored  #: (d_ff, d)
    w_down: Stored  #: (d, d_ff)

    def projections(self, info: ModelInfo, interleaved: bool = False) -> Projections:
        """Float32 ``(d_in, d_out)`` projections, W^Q and W^K rows in RoPE's interleaved order
        (reordered from HF's halves unless ``interleaved``: stored so already)."""
        q_order = None if interleaved else rope_order(info.n_heads, info.d_head)
        k_order = None if interleaved else rope_order(info.n_kv_heads, info.d_head)
        return Projections(
            _ordered(self.w_q, q_order).T,
            _ordered(self.w_k, k_order).T,
            widen(self.w_v).T,
            widen(self.w_o).T,
            b_q=_rows(self.b_q, q_order),
            b_k=_rows(self.b_k, k_order),
            b_v=None if self.b_v is None else widen(self.b_v),
            b_o=None if self.b_o is None else widen(self.b_o),
        )


@dataclass(frozen=True)
class Llama:
    """A loaded Llama-family decoder: the token table, the blocks, the final norm, its facts."""

    info: ModelInfo
    token_table: Stored  #: (V, d) ``embed_tokens``
    layers: tuple[LlamaLayer, ...]
    final_norm: Stored  #: (d,) ``norm``
    lm_head: Stored  #: (V, d): ``token_table`` when tied
    eps: float  #: ``rms_norm_eps``
    rotary_base: float  #: RoPE's base b, ``rope_theta``
    interleaved: bool = False  #: W^Q, W^K rows stored in RoPE's pair order (llama GGUF)

    def attend(
        self, x: np.ndarray, layer: LlamaLayer, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> Attended:  # fmt: skip
        r""":math:`\mathrm{Attn}(\mathrm{RMSNorm}_1 X)` on the layer's input ``x (T, d)``, queries
        and keys turned by RoPE, grouped K/V heads; ``ablation``'s heads of ``layer_index`` off."""
        info, base = self.info, self.rotary_base
        normed = rms_norm(x, widen(layer.attention_norm), self.eps)  # (T, d)
        attended = multi_head_attention(
            normed, normed, layer.projections(info, self.interleaved), info.n_heads,
            info.d_head**-0.5, mask, rotary_base=base, kv_heads=info.n_kv_heads,
            ablation=ablation, layer_index=layer_index,
        )  # fmt: skip
        angles = rotary_angles(len(x), info.d_head, base).astype(np.float32)  # (T, dk/2)
        return Attended(normed, attended, angles)

    def block(
        self, x: np.ndarray, layer: LlamaLayer, mask: np.ndarray | None,
        ablation: Ablation | None = None, layer_index: int = 0,
    ) -> BlockTrace:  # fmt: skip
        r""":math:`Y = X + \mathrm{Attn}(\mathrm{RMSNorm}_1 X)`, :math:`X' = Y + \mathrm{FF}(Y)`"""
        attended = self.attend(x, layer, mask, ablation, layer_index)
        y = x + attended.trace.output  # (T, d)
        return block_trace(x, attended, y + self.feed_forward(y, layer))

    def feed_forward(self, y: np.ndarray, layer: LlamaLayer) -> np.ndarray:
        r""":math:`\mathrm{FF}(Y) = \mathrm{SwiGLU}(\mathrm{RMSNorm}_2 Y)`: ``(T, d) -> (T, d)``."""
        gate, up, down = (widen(w).T for w in (layer.w_gate, layer.w_up, layer.w_down))
        return swiglu(rms_norm(y, widen(layer.mlp_norm), self.eps), gate, up, down)

    def embed(
        self, ids: np.ndarray, type_ids: np.ndarray | None = None
    ) -> tuple[np.ndarray, None, None]:
        r""":math:`X_0 = E_{\text{tok}}[t]` ``(T, d)``: no position table (RoPE turns q and k);
        one text (``type_ids`` None)."""
        one_text(type_ids)
        return widen(self.token_table[ids]), None, None

    def finish(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r""":math:`h = \mathrm{RMSNorm}(X_L)`, logits :math:`h W_{\text{LM}}^\top`: ``(T, d) ->
        ((T, d), (T, V))``."""
        hidden = rms_norm(x, widen(self.final_norm), self.eps)  # (T, d)
        return hidden, next_token_logits(hidden, self.lm_head)  # (T, V)

    def forward(self, ids: np.ndarray, ablation: Ablation | None = None) -> ModelTrace:
        """Embeddings, every block, the final norm and the logits: ``(T,) -> ModelTrace``."""
        return decoder.forward(self, ids, ablation=ablation)


def rope_base(config: settings.Config) -> float:
    """``rope_theta`` (in ``rope_parameters`` or at the top); refuses scaled or partial RoPE."""
    parameters = config.get("rope_parameters") or {}
    scaling = config.get("rope_scaling")
    kind = parameters.get("rope_type", "default")
    if isinstance(scaling, dict):
        kind = scaling.get("rope_type", scaling.get("type", kind))
    settings.refuse_unless(
        kind == "default", f"RoPE scaling {kind!r} (only plain RoPE is computed)"
    )
    settings.refuse_unless(
        parameters.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0)) == 1.0,
        "RoPE on part of each head",
    )
    return settings.number(parameters, "rope_theta", config.get("rope_theta", 10_000.0))


def _check_window(config: settings.Config) -> None:
    """Refuse a sliding window short enough to change attention on an input the page allows."""
    window = config.get("sliding_window")
    used = config.get("use_sliding_window", config.get("model_type") == "mistral")
    settings.refuse_unless(
        not used or window is None or window >= MAX_TOKENS,
        f"a sliding attention window of {window} tokens (shorter than {MAX_TOKENS})",
    )


def _biases(config: settings.Config) -> tuple[bool, bool]:
    """(Q/K/V have biases, O has a bias): Qwen2 always Q/K/V; Llama's attention_bias all four."""
    if config.get("model_type") == "qwen2":
        return True, False
    both = settings.flag(config, "attention_bias", False)
    return both, both


def _layer(
    tensors: Tensors, i: int, info: ModelInfo, d_ff: int, biases: tuple[bool, bool]
) -> LlamaLayer:
    d, width, kv_width = info.d_model, info.n_heads * info.d_head, info.n_kv_heads * info.d_head

    def take(name: str, shape: tuple[int, ...], present: bool = True) -> Stored | None:
        return expect(tensors, f"layers.{i}.{name}", shape) if present else None

    qkv_bias, o_bias = biases
    return LlamaLayer(
        attention_norm=expect(tensors, f"layers.{i}.input_layernorm.weight", (d,)),
        w_q=expect(tensors, f"layers.{i}.self_attn.q_proj.weight", (width, d)),
        w_k=expect(tensors, f"layers.{i}.self_attn.k_proj.weight", (kv_width, d)),
        w_v=expect(tensors, f"layers.{i}.self_attn.v_proj.weight", (kv_width, d)),
        w_o=expect(tensors, f"layers.{i}.self_attn.o_proj.weight", (d, width)),
        b_q=take("self_attn.q_proj.bias", (width,), qkv_bias),
        b_k=take("self_attn.k_proj.bias", (kv_width,), qkv_bias),
        b_v=take("self_attn.v_proj.bias", (kv_width,), qkv_bias),
        b_o=take("self_attn.o_proj.bias", (d,), o_bias),
        mlp_norm=expect(tensors, f"layers.{i}.post_attention_layernorm.weight", (d,)),
        w_gate=expect(tensors, f"layers.{i}.mlp.gate_proj.weight", (d_ff, d)),
        w_up=expect(tensors, f"layers.{i}.mlp.up_proj.weight", (d_ff, d)),
        w_down=expect(tensors, f"layers.{i}.mlp.down_proj.weight", (d, d_ff)),
    )


def _info(name: str, config: settings.Config, base: float) -> ModelInfo:
    d, n_heads = (
        settings.integer(config, "hidden_size"),
        settings.integer(config, "num_attention_heads"),
    )
    n_kv_heads = settings.integer(config, "num_key_value_heads", n_heads)
    settings.refuse_unless(
        n_heads % n_kv_heads == 0, f"{n_kv_heads} K/V heads that do not divide {n_heads} heads"
    )
    default_width = d // n_heads if d % n_heads == 0 else None
    d_head = settings.integer(config, "head_dim", default_width or config.get("head_dim"))
    settings.refuse_unless(d_head % 2 == 0, f"an odd head width {d_head} (RoPE needs pairs)")
    return ModelInfo(
        name=name,
        family="llama",
        model_type=str(config.get("model_type")),
        n_layers=settings.integer(config, "num_hidden_layers"),
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        d_model=d,
        d_head=d_head,
        vocab_size=settings.integer(config, "vocab_size"),
        max_positions=settings.integer(config, "max_position_embeddings"),
        causal=True,
        positions="rotary",
        rotary_base=base,
    )


def load(directory: Path, config: settings.Config) -> Llama:
    """Read and check a Llama, Qwen2 or Mistral checkpoint folder (config.json, safetensors)."""
    tensors = without_prefix(open_tensors(directory), "model.")  # lm_head.weight keeps its name
    return from_tensors(directory.name, config, tensors)


def from_tensors(
    name: str, config: settings.Config, tensors: Tensors, interleaved: bool = False
) -> Llama:
    """A Llama, Qwen2 or Mistral from HF's settings and tensor names (without ``model.``):
    settings checked, then every tensor's shape. ``interleaved``: W^Q, W^K rows are stored
    in RoPE's pair order already (a llama GGUF)."""
    settings.refuse_unless(
        config.get("hidden_act", "silu") == "silu", f"the activation {config.get('hidden_act')!r}"
    )
    settings.refuse_unless(not config.get("mlp_bias", False), "biases in the feed-forward block")
    _check_window(config)
    base = rope_base(config)
    info = _info(name, config, base)
    d_ff = settings.integer(config, "intermediate_size")
    shape = (info.vocab_size, info.d_model)
    token_table = expect(tensors, "embed_tokens.weight", shape)
    tied = settings.flag(config, "tie_word_embeddings", False)
    biases = _biases(config)
    return Llama(
        info=info,
        token_table=token_table,
        layers=tuple(_layer(tensors, i, info, d_ff, biases) for i in range(info.n_layers)),
        final_norm=expect(tensors, "norm.weight", (info.d_model,)),
        lm_head=token_table if tied else expect(tensors, "lm_head.weight", shape),
        eps=settings.number(config, "rms_norm_eps", 1e-6),
        rotary_base=base,
        interleaved=interleaved,
    )
