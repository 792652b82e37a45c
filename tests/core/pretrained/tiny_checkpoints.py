"""Tiny random checkpoints, saved the way the Hugging Face Hub serves them (tests only).

``transformers`` builds a model from a small config with random weights and saves
it (``model.safetensors``, or shards, and ``config.json``); ``tokenizers`` builds a
word-level ``tokenizer.json`` over exactly ``vocab_size`` words (``[UNK]``, ``w1`` ...).
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

from pathlib import Path

import numpy as np
import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers

VOCAB_SIZE = 96


def word(i: int) -> str:
    """The tokenizer's word for id ``i`` (``[UNK]`` is 0)."""
    return "[UNK]" if i == 0 else f"w{i}"


def save_tokenizer(directory: Path, vocab_size: int = VOCAB_SIZE) -> None:
    """A whitespace word-level ``tokenizer.json`` over ``vocab_size`` words."""
    vocab = {word(i): i for i in range(vocab_size)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(directory / "tokenizer.json"))


def save_model(
    config: transformers.PretrainedConfig,
    directory: Path,
    dtype: torch.dtype = torch.float32,
    max_shard_size: str | None = None,
) -> None:
    """A random causal LM of ``config`` (seeded) saved as ``dtype``, one file or shards of
    ``max_shard_size``, with config.json and a tokenizer.
    """
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():  # larger than the default 0.02 init: attention that is not uniform
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.3 if parameter.ndim > 1 else 0.5)
    shards = {} if max_shard_size is None else {"max_shard_size": max_shard_size}
    model.to(dtype).save_pretrained(directory, safe_serialization=True, **shards)
    save_tokenizer(directory, config.vocab_size)


def reference(directory: Path) -> transformers.PreTrainedModel:
    """The saved model read back by transformers, eager attention, float64, eval mode."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        directory, attn_implementation="eager", dtype=torch.float32
    )
    return model.eval()


def run_reference(model: transformers.PreTrainedModel, ids: np.ndarray) -> dict[str, np.ndarray]:
    """Attention weights (L, H, T, T), final hidden states (T, d) and logits (T, V), float64."""
    with torch.no_grad():
        output = model(
            input_ids=torch.tensor(ids[None]), output_attentions=True, output_hidden_states=True
        )
        hidden = model.base_model(input_ids=torch.tensor(ids[None])).last_hidden_state
    return {
        "weights": torch.stack([a[0] for a in output.attentions]).numpy(),
        "hidden": hidden[0].numpy(),
        "logits": output.logits[0].numpy(),
    }
