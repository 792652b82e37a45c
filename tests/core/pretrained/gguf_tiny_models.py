"""A tiny byte-level BPE tokenizer and tiny random decoders for the GGUF tests (tests only).

The tokenizer is trained by ``tokenizers`` on a short English text, the way GPT-2's was: a
byte-level alphabet (every byte has a token), then merges. Its pre-tokenizer follows
llama.cpp's ``tokenizer.ggml.pre`` name (``PRE_TOKENIZERS``), so a GGUF can say how it splits.
Each decoder is built by ``transformers`` from a small config whose vocabulary is exactly the
tokenizer's, with weights drawn larger than the default init so attention is not uniform.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch
import transformers
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

# Ids 0, 1, 2, as in SmolLM's vocabulary; llama.cpp marks them CONTROL (token type 3).
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
END_OF_TEXT = 0  # `<|endoftext|>` begins and ends a text, as in GPT-2 and Qwen2
TOKENIZER_VOCAB_SIZE = 384  # 3 special + 256 bytes + 125 merges: a few hundred tokens

# Every K-quant block holds 256 values along a row, so every row length (hidden size,
# intermediate size) is a multiple of 256: then every 2-D weight can be stored as Q4_K..Q6_K.
WIDTH = 256

CORPUS = (
    "Attention lets every token look at the tokens before it and decide which ones matter.",
    "The query of one token is compared with the key of every other token; the scores are "
    "scaled, masked and turned into weights by a softmax.",
    "The weights then mix the values, so a token can carry what it found to the next layer.",
    "A small model learns to copy names, to count and to finish a sentence it has seen before.",
    "In 1999 the library had 2024 books, 365 maps and 42 globes; by 2025 it had 3000 books.",
    "She said it's late, they're tired, we've walked far and I'm sure you'll sleep well.",
    "Heads that look one token back, heads that look at the first token, heads that copy.",
    "The cat sat on the mat. The dog sat on the log. The bird sat on the word.",
)

# Qwen2's split (its tokenizer.json): single digits, case-insensitive contractions.
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _gpt2_split() -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)


def _qwen2_split() -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def _smollm_split() -> pre_tokenizers.PreTokenizer:
    # SmolLM's tokenizer.json: every digit alone, then GPT-2's split.
    return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), _gpt2_split()])


# llama.cpp's `tokenizer.ggml.pre` name -> the pre-tokenizer of the model it names.
PRE_TOKENIZERS: dict[str, Callable[[], pre_tokenizers.PreTokenizer]] = {
    "gpt-2": _gpt2_split,
    "qwen2": _qwen2_split,
    "smollm": _smollm_split,
}


@cache
def tiny_tokenizer(pre: str = "gpt-2") -> Tokenizer:
    """A byte-level BPE tokenizer of ``TOKENIZER_VOCAB_SIZE`` tokens splitting text like ``pre``.

    Built once per ``pre``; do not change the returned tokenizer.
    """
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = PRE_TOKENIZERS[pre]()
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=TOKENIZER_VOCAB_SIZE,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 4, trainer)
    assert tokenizer.get_vocab_size() == TOKENIZER_VOCAB_SIZE, "the corpus ran out of merges"
    return tokenizer


def _llama_config(vocab_size: int, tied: bool) -> transformers.PretrainedConfig:
    return transformers.LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=WIDTH,
        intermediate_size=2 * WIDTH,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,  # grouped: two query heads share each K/V head
        max_position_embeddings=128,
        # not the default 10 000, so a reader that drops it is caught
        rope_parameters={"rope_type": "default", "rope_theta": 50_000.0},
        rms_norm_eps=1e-5,
        tie_word_embeddings=tied,
        bos_token_id=END_OF_TEXT,
        eos_token_id=END_OF_TEXT,
    )


def _qwen2_config(vocab_size: int, tied: bool) -> transformers.PretrainedConfig:
    return transformers.Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=WIDTH,
        intermediate_size=2 * WIDTH,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        rope_parameters={"rope_type": "default", "rope_theta": 1_000_000.0},
        rms_norm_eps=1e-6,
        tie_word_embeddings=tied,
        bos_token_id=END_OF_TEXT,
        eos_token_id=END_OF_TEXT,
    )


def _gpt2_config(vocab_size: int, tied: bool) -> transformers.PretrainedConfig:
    if not tied:
        raise ValueError("GPT-2 always ties its output to its token embeddings")
    # n_positions stays GPT-2's 1024: transformers' GGUF reader maps `gpt2.context_length`
    # to `n_ctx`, which GPT2Config no longer reads, so any other value fails to load there.
    return transformers.GPT2Config(
        vocab_size=vocab_size,
        n_embd=WIDTH,
        n_layer=2,
        n_head=4,
        n_positions=1024,
        bos_token_id=END_OF_TEXT,
        eos_token_id=END_OF_TEXT,
    )


# architecture -> (config builder, tied by default, llama.cpp pre-tokenizer of its models)
ARCHITECTURES: dict[str, tuple[Callable[[int, bool], transformers.PretrainedConfig], bool, str]] = {
    "llama": (_llama_config, False, "smollm"),
    "qwen2": (_qwen2_config, True, "qwen2"),
    "gpt2": (_gpt2_config, True, "gpt-2"),
}


@dataclass(frozen=True)
class TinyCheckpoint:
    """A tiny random decoder, float32 and in eval mode, with the tokenizer it was sized for."""

    architecture: str  # llama.cpp's `general.architecture`: "llama", "qwen2" or "gpt2"
    model: transformers.PreTrainedModel
    tokenizer: Tokenizer
    pre: str  # llama.cpp's `tokenizer.ggml.pre` for `tokenizer`


def _init_std(name: str, parameter: torch.Tensor) -> float:
    """Larger than transformers' 0.02: unit-sized activations and scores of a few units."""
    if parameter.ndim == 1:
        return 0.2  # biases; norm gains get 1 + this (see `_randomise`)
    if name.endswith(("wte.weight", "wpe.weight", "embed_tokens.weight")):
        return 0.25  # tied to the output too: logits of a few units, not tens
    # nn.Linear stores (out, in); GPT-2's Conv1D stores (in, out)
    fan_in = parameter.shape[0] if ".attn.c_" in name or ".mlp.c_" in name else parameter.shape[1]
    return 1.5 / fan_in**0.5


def _is_norm_gain(name: str) -> bool:
    return name.endswith("norm.weight") or (".ln_" in name and name.endswith(".weight"))


def _randomise(model: transformers.PreTrainedModel) -> None:
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            parameter.normal_(0.0, _init_std(name, parameter))
            if _is_norm_gain(name):
                parameter.add_(1.0)


@cache
def tiny_checkpoint(architecture: str, tied: bool | None = None) -> TinyCheckpoint:
    """The tiny random ``architecture`` decoder (seeded), tied or not (default: as its family).

    Built once per argument pair; do not change the returned model.
    """
    build_config, tied_by_default, pre = ARCHITECTURES[architecture]
    tokenizer = tiny_tokenizer(pre)
    config = build_config(tokenizer.get_vocab_size(), tied_by_default if tied is None else tied)
    config._attn_implementation = "eager"  # attention weights come out of eager attention only
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    _randomise(model)
    return TinyCheckpoint(architecture, model.eval(), tokenizer, pre)
