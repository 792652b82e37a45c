r"""Every choice a user makes about a run, defined once: its label, help and function.

Each table maps the name stored in a config (and in a link) to an
:class:`Option`. Widgets offer the table's names with its labels and help;
the core dispatches through ``table[name].build``. Adding a choice means adding
one row here (and its formula in ``ui.shared.stages``; a test checks both agree).
"""

from __future__ import annotations

import math

import numpy as np

from attention_core.boundary.limits import MAX_D_MODEL, MAX_POSITIONS
from attention_core.boundary.registry import Option
from attention_core.boundary.text import one_hot_embeddings, random_embeddings
from attention_core.boundary.validation import check_positive_int
from attention_core.maths import attention, head_combinations, masks
from attention_core.maths.positional import learned_encoding, sinusoidal_encoding

# --- Token vectors: build(tokens, d_model, seed) -> X (T, d_model) ----------------------


def _one_hot(tokens: tuple[str, ...], d_model: int, seed: int) -> np.ndarray:
    return one_hot_embeddings(tokens, d_model)


EMBEDDINGS = {
    "onehot": Option(
        "one-hot", "A 1 in the word's own column, 0 elsewhere.", _one_hot, (one_hot_embeddings,)
    ),
    "random": Option("random", "A random vector, the same for the same word.", random_embeddings),
}


# --- Positions: build(length, d_model, seed) -> P (length, d_model) -----------------------


def _no_positions(length: int, d_model: int, seed: int) -> np.ndarray:
    length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    return np.zeros((length, d_model))


def _sinusoidal(length: int, d_model: int, seed: int) -> np.ndarray:
    return sinusoidal_encoding(length, d_model)


POSITIONAL_ENCODINGS = {
    "none": Option("none", "No position: word order is invisible.", _no_positions),
    "sinusoidal": Option(
        "sinusoidal",
        "Waves of many speeds (Vaswani et al. 2017).",
        _sinusoidal,
        (sinusoidal_encoding,),
    ),
    "learned": Option("learned", "A table of vectors training would learn.", learned_encoding),
    "rotary": Option(
        "rotary", "Rotate queries and keys by position (RoPE); adds nothing.", _no_positions
    ),
}

# --- Masks: build(n_q, n_k, window, key_is_padding, custom) -> (n_q, n_k) bool or None ----

MASKS = {
    "none": Option("none", "Every query sees every key.", masks.no_mask),
    "causal": Option(
        "causal", "Only itself and earlier tokens.", masks.causal_choice, (masks.causal_mask,)
    ),
    "sliding": Option(
        "sliding", "Only the last few tokens.", masks.sliding_choice, (masks.sliding_window_mask,)
    ),
    "padding": Option(
        "padding",
        "Every key except <pad> tokens.",
        masks.padding_choice,
        (masks.padding_choice, masks.padding_mask),
    ),
    "custom": Option("custom", "Your own grid of allowed pairs.", masks.custom_choice),
}

# --- Scaling: build(d_k, temperature) -> the factor s on Q K^T ----------------------------


def inverse_sqrt_dk(d_k: int, temperature: float) -> float:
    r""":math:`s = 1/\sqrt{d_k}` (the standard)."""
    return 1.0 / math.sqrt(d_k)


def no_scaling(d_k: int, temperature: float) -> float:
    r""":math:`s = 1`: raw dot products."""
    return 1.0


def with_temperature_scaling(d_k: int, temperature: float) -> float:
    r""":math:`s = 1/(\tau \sqrt{d_k})`."""
    return 1.0 / (temperature * math.sqrt(d_k))


SCALINGS = {
    "sqrt_dk": Option("÷ √dₖ", "Divide the scores by √dₖ (standard).", inverse_sqrt_dk),
    "none": Option("none", "Leave the scores raw.", no_scaling),
    "temperature": Option("÷ τ√dₖ", "Divide further by a temperature τ.", with_temperature_scaling),
}

# --- Scores to weights: build(masked) -> weights --------------------------------------------

ACTIVATIONS = {
    "softmax": Option("softmax", "Soft weights that sum to 1.", attention.softmax),
    "hardmax": Option("hardmax", "All weight on the best key.", attention.hardmax),
}

# --- Heads to one output: build(context, projections) -> output ----------------------------

COMBINATIONS = {
    "concat": Option(
        "concat + W_O", "Side by side, then mixed by W_O.", attention.output_projection
    ),
    "mean": Option("mean", "The heads' average.", head_combinations.mean_of_heads),
    "max": Option("max", "The largest value of any head.", head_combinations.max_of_heads),
    "learned": Option(
        "learned weights", "One weight per head.", head_combinations.weighted_sum_of_heads
    ),
}
