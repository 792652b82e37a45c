"""A GGUF file (llama.cpp, Ollama, LM Studio) as a checkpoint of a supported family.

The file's metadata is translated into the settings a ``config.json`` would hold and
its tensors are renamed to Hugging Face's names, so the same family code
(:func:`attention_core.pretrained.llama.from_tensors`,
:func:`attention_core.pretrained.gpt2.from_tensors`) checks and runs both. What
llama.cpp's converter changed is undone on the way:

- ``llama``: W^Q and W^K rows were permuted into RoPE's pair order, the order the
  core turns anyway, so they are used as stored (``Llama.interleaved``);
- ``qwen2``: nothing was permuted (llama.cpp turns its halves, as HF does);
- ``gpt2``: the ``Conv1D`` weights were transposed to ``(out, in)``; they are
  transposed back (a view, or :attr:`Quantised.T`).

Quantised matrices stay as blocks and are dequantised a layer at a time
(:mod:`attention_core.pretrained.quantised`); plain float matrices stay in the mapped
file, as a safetensors file's do. Nothing in the file is executed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.pretrained import config as settings
from attention_core.pretrained import gpt2, llama
from attention_core.pretrained.gguf_file import GGUFFile, TensorInfo, read_gguf
from attention_core.pretrained.quantised import REPACKED, Quantised, Repacked
from attention_core.pretrained.tensors import Stored, Tensors
from attention_core.pretrained.trace import Model

ARCHITECTURES = ("llama", "qwen2", "gpt2")
#: ggml types stored as plain arrays (BF16 as raw 16-bit words, see tensors.widen).
PLAIN: dict[int, np.dtype] = {
    0: np.dtype("<f4"),
    1: np.dtype("<f2"),
    30: np.dtype("<u2"),
    24: np.dtype("i1"),
    25: np.dtype("<i2"),
    26: np.dtype("<i4"),
    27: np.dtype("<i8"),
    28: np.dtype("<f8"),
}
#: GGUF tensor names -> Hugging Face's, per family ("{i}" the layer).
LLAMA_NAMES = {
    "token_embd.weight": "embed_tokens.weight",
    "output_norm.weight": "norm.weight",
    "output.weight": "lm_head.weight",
    "blk.{i}.attn_norm.weight": "layers.{i}.input_layernorm.weight",
    "blk.{i}.ffn_norm.weight": "layers.{i}.post_attention_layernorm.weight",
    "blk.{i}.ffn_gate.weight": "layers.{i}.mlp.gate_proj.weight",
    "blk.{i}.ffn_up.weight": "layers.{i}.mlp.up_proj.weight",
    "blk.{i}.ffn_down.weight": "layers.{i}.mlp.down_proj.weight",
    **{
        f"blk.{{i}}.attn_{short}.{part}": f"layers.{{i}}.self_attn.{long}_proj.{part}"
        for short, long in (("q", "q"), ("k", "k"), ("v", "v"), ("output", "o"))
        for part in ("weight", "bias")
    },
}
GPT2_NAMES = {
    "token_embd.weight": "wte.weight",
    "position_embd.weight": "wpe.weight",
    "output.weight": "lm_head.weight",
    **{f"output_norm.{part}": f"ln_f.{part}" for part in ("weight", "bias")},
    **{
        f"blk.{{i}}.{short}.{part}": f"h.{{i}}.{long}.{part}"
        for short, long in (
            ("attn_norm", "ln_1"),
            ("attn_qkv", "attn.c_attn"),
            ("attn_output", "attn.c_proj"),
            ("ffn_norm", "ln_2"),
            ("ffn_up", "mlp.c_fc"),
            ("ffn_down", "mlp.c_proj"),
        )
        for part in ("weight", "bias")
    },
}
#: GPT-2's Conv1D weights, which llama.cpp stores transposed.
GPT2_TRANSPOSED = (
    "attn.c_attn.weight",
    "attn.c_proj.weight",
    "mlp.c_fc.weight",
    "mlp.c_proj.weight",
)


def dequantizable() -> frozenset[int]:
    """ggml type ids the app reads: plain floats and every type ``gguf.quants`` dequantises."""
    from gguf import GGMLQuantizationType, quants

    quantised = {kind.value for kind in GGMLQuantizationType if hasattr(quants, kind.name)}
    return frozenset(quantised | {0, 1, 30})


def _type_names(kinds: frozenset[int]) -> str:
    from gguf import GGMLQuantizationType

    return ", ".join(GGMLQuantizationType(kind).name for kind in sorted(kinds))


def stored(file: GGUFFile, info: TensorInfo) -> Stored:
    """One tensor as the core keeps it: a read-only view of the mapped file (plain floats),
    :class:`Repacked` blocks (read once) or :class:`Quantised` rows (mapped)."""
    dtype = PLAIN.get(info.kind)
    if dtype is not None:
        return file.bytes_of(info).view(dtype).reshape(info.shape)
    n_rows = int(np.prod(info.shape[:-1], dtype=np.int64))
    if info.kind in REPACKED:
        return Repacked.from_blocks(file.read(info).reshape(n_rows, -1), info.kind)
    return Quantised(info.kind, file.bytes_of(info).reshape(n_rows, -1), info.dims[0])


def _check_types(file: GGUFFile) -> None:
    known = dequantizable() | set(PLAIN)
    odd = sorted({info.kind for info in file.tensors.values()} - known)
    if odd:
        raise InputError(
            f"{file.path.name} stores weights as {_type_names(frozenset(odd))}, which the app "
            f"cannot dequantise. It reads {_type_names(dequantizable())}."
        )


def renamed(file: GGUFFile, names: dict[str, str], n_layers: int) -> Tensors:
    """The file's tensors under Hugging Face's names (tensors without one are left out)."""
    if n_layers > len(file.tensors):  # every layer holds tensors: a count that big is a lie
        raise InputError(
            f"{file.path.name} declares {n_layers} layers but holds {len(file.tensors)} "
            "tensors in all: it is damaged or not a model of this architecture."
        )
    tensors: Tensors = {}
    for gguf_name, hf_name in names.items():
        for i in range(n_layers) if "{i}" in gguf_name else (0,):
            info = file.tensors.get(gguf_name.format(i=i))
            if info is not None:
                tensors[hf_name.format(i=i)] = stored(file, info)
    return tensors


def _meta(file: GGUFFile, arch: str, key: str, default: Any = None) -> Any:
    value = file.metadata.get(f"{arch}.{key}", default)
    if value is None:
        raise InputError(f"{file.path.name} has no {arch}.{key} in its metadata.")
    return value


def _common(file: GGUFFile, arch: str) -> dict[str, Any]:
    """Settings every family has, and refusals of what none computes."""
    if file.metadata.get(f"{arch}.expert_count"):
        settings.refuse_unless(False, "a mixture of experts")
    token_table = file.tensors.get("token_embd.weight")
    if token_table is None or len(token_table.dims) != 2:
        raise InputError(f"{file.path.name} has no token table (token_embd.weight).")
    return {
        settings.SOURCE: f"the metadata of {file.path.name}",
        "model_type": arch,
        "vocab_size": token_table.dims[1],
        "tie_word_embeddings": "output.weight" not in file.tensors,
    }


def _divides(heads: object, width: object) -> bool:
    """Whether ``heads`` and ``width`` are whole numbers and the heads split the width evenly."""
    whole = all(isinstance(n, int) and not isinstance(n, bool) for n in (heads, width))
    return whole and heads > 0 and width % heads == 0  # type: ignore[operator]


def llama_config(file: GGUFFile, arch: str) -> settings.Config:
    """A llama or qwen2 file's metadata as Hugging Face's LlamaConfig / Qwen2Config keys."""
    heads = _meta(file, arch, "attention.head_count")
    width = _meta(file, arch, "embedding_length")
    head_dim = file.metadata.get(f"{arch}.attention.key_length")
    config = _common(file, arch) | {
        "hidden_size": width,
        "intermediate_size": _meta(file, arch, "feed_forward_length"),
        "num_attention_heads": heads,
        "num_key_value_heads": file.metadata.get(f"{arch}.attention.head_count_kv", heads),
        "num_hidden_layers": _meta(file, arch, "block_count"),
        "max_position_embeddings": _meta(file, arch, "context_length"),
        "rope_theta": file.metadata.get(f"{arch}.rope.freq_base", 10_000.0),
        "rms_norm_eps": _meta(file, arch, "attention.layer_norm_rms_epsilon"),
        "attention_bias": "blk.0.attn_q.bias" in file.tensors,
        "use_sliding_window": False,
    }
    if head_dim is not None:
        config["head_dim"] = head_dim
    else:
        settings.refuse_unless(
            _divides(heads, width), f"{heads} heads that do not divide the width {width}"
        )
    rotated = file.metadata.get(f"{arch}.rope.dimension_count")
    if isinstance(rotated, int) and _divides(heads, width):
        config["partial_rotary_factor"] = rotated / (head_dim or width // heads)
    scaling = file.metadata.get(f"{arch}.rope.scaling.type", "none")
    if scaling != "none" or "rope_freqs.weight" in file.tensors:
        config["rope_scaling"] = {"rope_type": str(scaling if scaling != "none" else "llama3")}
    return config


def gpt2_config(file: GGUFFile) -> settings.Config:
    """A gpt2 file's metadata as Hugging Face's GPT2Config keys."""
    return _common(file, "gpt2") | {
        "n_embd": _meta(file, "gpt2", "embedding_length"),
        "n_head": _meta(file, "gpt2", "attention.head_count"),
        "n_layer": _meta(file, "gpt2", "block_count"),
        "n_positions": _meta(file, "gpt2", "context_length"),
        "n_inner": _meta(file, "gpt2", "feed_forward_length"),
        "layer_norm_epsilon": _meta(file, "gpt2", "attention.layer_norm_epsilon"),
    }


def load_gguf_model(path: Path) -> tuple[GGUFFile, Model]:
    """Read ``path`` and build its model; :class:`InputError` for anything unsupported."""
    file = read_gguf(path)
    arch = file.metadata.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise InputError(
            f"{path.name} holds a model of the architecture {str(arch)[:40]!r}. The app runs "
            f"GGUF files of the architectures {', '.join(ARCHITECTURES)}."
        )
    _check_types(file)
    if arch == "gpt2":
        config = gpt2_config(file)
        tensors = renamed(file, GPT2_NAMES, settings.integer(config, "n_layer"))
        for name in [n for n in tensors if n.endswith(GPT2_TRANSPOSED)]:
            tensors[name] = tensors[name].T
        return file, gpt2.from_tensors(path.stem, config, tensors)
    config = llama_config(file, arch)
    tensors = renamed(file, LLAMA_NAMES, settings.integer(config, "num_hidden_layers"))
    return file, llama.from_tensors(path.stem, config, tensors, interleaved=arch == "llama")
