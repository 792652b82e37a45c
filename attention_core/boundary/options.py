r"""Every choice a user makes about a run, registered once in a :class:`Registry` per kind.

Each entry (an :class:`Option`: label, help, builder, formula, plain words, the
inputs it needs, what it changes beyond its own stage) is read by the widgets,
the stage texts and the core alike. The file is longer than 300 lines because it
is one table of every choice, an entry each; split by kind, a reader would look
for them in six places.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from attention_core.boundary.limits import MAX_D_MODEL, MAX_POSITIONS
from attention_core.boundary.registry import GRID, PADDING, TEMPERATURE, WINDOW, Option, Registry
from attention_core.boundary.text import one_hot_embeddings, random_embeddings
from attention_core.boundary.validation import check_positive_int
from attention_core.maths import attention, head_combinations, masks
from attention_core.maths.positional import learned_encoding, rotate, sinusoidal_encoding
from attention_core.maths.projections import Projections

# --- Token vectors: build(tokens, d_model, seed) -> X (T, d_model) ----------------------


def _one_hot(tokens: tuple[str, ...], d_model: int, seed: int) -> np.ndarray:
    return one_hot_embeddings(tokens, d_model)


EMBEDDINGS = Registry("embedding", "Embedding", "How each word becomes a vector.")
EMBEDDINGS.register(
    "onehot",
    Option(
        "one-hot", "A 1 in the word's own column, 0 elsewhere.", _one_hot, (one_hot_embeddings,)
    ),
)
EMBEDDINGS.register(
    "random", Option("random", "A random vector, the same for the same word.", random_embeddings)
)


# --- Positions: build(length, d_model, seed) -> P (length, d_model) -----------------------


def _no_positions(length: int, d_model: int, seed: int) -> np.ndarray:
    length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    return np.zeros((length, d_model))


def _sinusoidal(length: int, d_model: int, seed: int) -> np.ndarray:
    return sinusoidal_encoding(length, d_model)


POSITIONAL_ENCODINGS = Registry(
    "positional encoding", "Positional encoding", "How each token's position is added."
)
POSITIONAL_ENCODINGS.register(
    "none",
    Option(
        "none",
        "No position: word order is invisible.",
        _no_positions,
        formula=r"P = 0",
        words="No position is added, so the model cannot tell word order. Shuffle the words "
        "and every weight below is shuffled the same way, nothing else changes.",
    ),
)
POSITIONAL_ENCODINGS.register(
    "sinusoidal",
    Option(
        "sinusoidal",
        "Waves of many speeds (Vaswani et al. 2017).",
        _sinusoidal,
        (sinusoidal_encoding,),
        formula=r"P_{p,2i} = \sin\!\big(p / 10000^{2i/d}\big),\quad "
        r"P_{p,2i+1} = \cos\!\big(p / 10000^{2i/d}\big)",
        words="Row p holds waves of many speeds read at position p, so every position gets its "
        "own pattern. Nearby positions get similar patterns, which lets attention tell "
        "close words from distant ones.",
    ),
)
POSITIONAL_ENCODINGS.register(
    "learned",
    Option(
        "learned",
        "A table of vectors training would learn.",
        learned_encoding,
        formula=r"P_{p,:} = E_{\text{pos}}[p] \sim \mathcal{N}(0, 1)",
        words="Each position has its own row in a table that training would adjust; here it is "
        "still random, as at the start of training. The model must learn what these rows mean.",
    ),
)
POSITIONAL_ENCODINGS.register(
    "rotary",
    Option(
        "rotary",
        "Rotate queries and keys by position (RoPE); adds nothing.",
        _no_positions,
        formula=r"P = 0,\quad q_p, k_p \mapsto R_{\theta p}\, q_p,\; R_{\theta p}\, k_p",
        words="Rotary encoding adds nothing here: it turns each query and key by an angle that "
        "grows with its position. The score of two tokens then depends on how far apart they "
        "are, not on where they sit.",
        rotary_base=10_000.0,  # θ of Su et al. (2021), as in the maths' rotate()
        formulas={
            "q": r"Q_h = \mathrm{RoPE}\big(\tilde X\, W^Q_h\big) \in \mathbb{R}^{T \times d_k}",
            "k": r"K_h = \mathrm{RoPE}\big(\tilde X_{kv}\, W^K_h\big) "
            r"\in \mathbb{R}^{S \times d_k}",
        },
        more_code={"q": (rotate,), "k": (rotate,)},
    ),
)

# --- Masks: build(n_q, n_k, window, key_is_padding, custom) -> (n_q, n_k) bool or None ----


def masked_where(allowed: str, forbidden: str) -> str:
    r"""The masked-score formula of a mask: :math:`\tilde S_{ij}` where ``allowed``, else −∞."""
    return (
        rf"\hat S_{{ij}} = \begin{{cases}} \tilde S_{{ij}} & {allowed} \\ -\infty & {forbidden} "
        r"\end{cases}"
    )


MASKS = Registry("mask", "Mask", "Which keys each query may look at.")
MASKS.register(
    "none",
    Option(
        "none",
        "Every query sees every key.",
        masks.no_mask,
        formula=r"\hat S_h = \tilde S_h \quad (\text{every } M_{ij} = 1)",
        words="No mask: every query may look at every key. This is the encoder's view of a "
        "sentence.",
    ),
)
MASKS.register(
    "causal",
    Option(
        "causal",
        "Only itself and earlier tokens.",
        masks.causal_choice,
        (masks.causal_mask,),
        formula=masked_where(r"j \le i", r"j > i"),
        words="A token may only look at itself and the tokens before it, as when text is "
        "generated word by word. Grey cells are set to −∞ and get weight 0 in the next step.",
    ),
)
MASKS.register(
    "sliding",
    Option(
        "sliding",
        "Only the last few tokens.",
        masks.sliding_choice,
        (masks.sliding_window_mask,),
        formula=masked_where(r"0 \le i - j < w", r"\text{otherwise}"),
        words="Each token sees only itself and the w − 1 tokens just before it. Long texts stay "
        "cheap, and information still travels further through stacked layers.",
        needs=frozenset({WINDOW}),
    ),
)
MASKS.register(
    "padding",
    Option(
        "padding",
        "Every key except <pad> tokens.",
        masks.padding_choice,
        (masks.padding_choice, masks.padding_mask),
        formula=masked_where(r"t_j \ne \texttt{<pad>}", r"t_j = \texttt{<pad>}"),
        words="Padding tokens only fill short sentences up to the length of a batch; no query "
        "may look at them. Their columns are grey and get weight 0.",
        needs=frozenset({PADDING}),
    ),
)
MASKS.register(
    "custom",
    Option(
        "custom",
        "Your own grid of allowed pairs.",
        masks.custom_choice,
        formula=masked_where(r"M_{ij} = 1", r"M_{ij} = 0"),
        words="You chose which pairs are allowed in the grid above. An unticked cell becomes −∞ "
        "and gets weight 0; a row with no ticks gets no weights at all.",
        needs=frozenset({GRID}),
    ),
)

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


SCALINGS = Registry("scaling", "Scaling", "What the scores are divided by.")
SCALINGS.register(
    "sqrt_dk",
    Option(
        "÷ √dₖ",
        "Divide the scores by √dₖ (standard).",
        inverse_sqrt_dk,
        formula=r"\tilde S_h = \frac{S_h}{\sqrt{d_k}}",
        words="Dot products of long vectors grow with their length d_k; dividing by its square "
        "root keeps them around the same size for any width. Without it softmax would put "
        "almost all weight on one key.",
    ),
)
SCALINGS.register(
    "none",
    Option(
        "none",
        "Leave the scores raw.",
        no_scaling,
        formula=r"\tilde S_h = S_h",
        words="The scores are left as they are. With wide heads they get large and softmax turns "
        "almost one-hot; compare with sqrt_dk scaling.",
    ),
)
SCALINGS.register(
    "temperature",
    Option(
        "÷ τ√dₖ",
        "Divide further by a temperature τ.",
        with_temperature_scaling,
        formula=r"\tilde S_h = \frac{S_h}{\tau \sqrt{d_k}}",
        words="Besides the usual √d_k, the scores are divided by a temperature τ. A small τ makes "
        "the weights sharper, a large τ makes them more even.",
        needs=frozenset({TEMPERATURE}),
    ),
)

# --- Scores to weights: build(masked) -> weights --------------------------------------------

NORMALISERS = Registry("normaliser", "Normaliser", "How each row of scores becomes weights.")
NORMALISERS.register(
    "softmax",
    Option(
        "softmax",
        "Soft weights that sum to 1.",
        attention.softmax,
        formula=r"A_{ij} = \frac{e^{\hat S_{ij}}}{\sum_{k} e^{\hat S_{ik}}}",
        words="Softmax turns each row of scores into positive weights that add up to 1: how much "
        "each key counts for this query. A masked cell (−∞) becomes exactly 0.",
    ),
)
NORMALISERS.register(
    "hardmax",
    Option(
        "hardmax",
        "All weight on the best key.",
        attention.hardmax,
        formula=r"A_{ij} = [\, j = \arg\max_k \hat S_{ik} \,]",
        words="Hard attention gives all the weight to the single best key of each row. The "
        "result is easy to read, but a tiny change of scores can jump to another key.",
    ),
)

# --- Heads to one output: build(context, projections) -> output ----------------------------


def head_weights_caption(projections: Projections) -> str:
    """``"Head weights: w1 = 0.345, w2 = 0.655"``: the weights ``w_h (H,)`` of the learned sum."""
    weights = cast(np.ndarray, projections.head_weights)  # (H,), as for the learned sum
    return "Head weights: " + ", ".join(f"w{h + 1} = {w:.3f}" for h, w in enumerate(weights))


COMBINATIONS = Registry("head combination", "Combine heads", "How the heads become one output.")
COMBINATIONS.register(
    "concat",
    Option(
        "concat + W_O",
        "Side by side, then mixed by W_O.",
        attention.output_projection,
        formula=r"O = [\,C_1 \;\cdots\; C_H\,]\, W^O",
        words="The concatenated heads are mixed by one more learned matrix, W_O, back to width "
        "d_model. Every output column can now combine what all heads found.",
        shows=("concat",),
    ),
)
COMBINATIONS.register(
    "mean",
    Option(
        "mean",
        "The heads' average.",
        head_combinations.mean_of_heads,
        formula=r"O = \frac{1}{H} \sum_{h=1}^{H} C_h",
        words="The heads' context vectors are averaged entry by entry. Simple, but a head that "
        "found something rare gets diluted by the others.",
    ),
)
COMBINATIONS.register(
    "max",
    Option(
        "max",
        "The largest value of any head.",
        head_combinations.max_of_heads,
        formula=r"O_{tc} = \max_{h} \, (C_h)_{tc}",
        words="Each entry keeps the largest value any head produced there. Strong signals "
        "survive, but which head they came from is lost.",
    ),
)
COMBINATIONS.register(
    "learned",
    Option(
        "learned weights",
        "One weight per head.",
        head_combinations.weighted_sum_of_heads,
        formula=r"O = \sum_{h=1}^{H} w_h\, C_h",
        words="Each head gets one weight w_h (here near 1/H, before any training) and the heads "
        "are added with those weights. Training would learn which heads matter more.",
        caption=head_weights_caption,
    ),
)
