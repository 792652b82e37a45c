"""The worked examples of the course documents, as data, and how to recompute them.

Each example keeps the document's own inputs (its seed and its matrices) and the
numbers the document printed, so pages can show "the notes say / we compute"
side by side and tests can check them. NumPy's legacy ``RandomState`` stream,
used by ``np.random.seed``, is frozen by NumPy's compatibility policy, so seed 42
still gives the documents' matrices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.api import scaled_dot_product_attention
from attention_core.maths.attention import AttentionTrace

# --- Five days of two variables (time-series notes), seed 42 ----------------

#: Attention weights the notes print (rounded to 3 decimals), without a mask.
FIVE_DAY_PRINTED_WEIGHTS = np.array(
    [
        [0.174, 0.252, 0.136, 0.290, 0.148],
        [0.263, 0.089, 0.118, 0.481, 0.049],
        [0.181, 0.200, 0.221, 0.144, 0.253],
        [0.134, 0.144, 0.044, 0.651, 0.028],
        [0.248, 0.119, 0.278, 0.151, 0.204],
    ]
)
#: ... and with the causal mask.
FIVE_DAY_PRINTED_MASKED_WEIGHTS = np.array(
    [
        [1.000, 0.000, 0.000, 0.000, 0.000],
        [0.748, 0.252, 0.000, 0.000, 0.000],
        [0.301, 0.332, 0.367, 0.000, 0.000],
        [0.138, 0.148, 0.045, 0.669, 0.000],
        [0.248, 0.119, 0.278, 0.151, 0.204],
    ]
)
#: The values V = X W^V the notes print.
FIVE_DAY_PRINTED_VALUES = np.array(
    [
        [-0.65367531, -0.67029443],
        [1.64411005, -1.25859697],
        [-0.13054564, 0.38355825],
        [-0.30917349, -2.40359668],
        [1.22149651, 0.54054321],
    ]
)
#: The outputs the notes print. They are (rounded weights) @ V: the notes round
#: the weights to 3 decimals *before* multiplying, so they differ from the exact
#: context vectors in the third decimal.
FIVE_DAY_PRINTED_OUTPUT = np.array(
    [
        [0.37394319, -0.99867639],
        [-0.12985432, -1.37268608],
        [0.44617382, -0.4976368],
        [-0.02365469, -1.80378708],
        [0.19974602, -0.46204915],
    ]
)
FIVE_DAY_PRINTED_MASKED_OUTPUT = np.array(
    [
        [-0.65367531, -0.67029443],
        [-0.0746334, -0.81854667],
        [0.30117802, -0.47884694],
        [-0.05959053, -1.86951904],
        [0.19974602, -0.46204915],
    ]
)


@dataclass(frozen=True)
class FiveDayInputs:
    """``x (5, 2)``: five days of two variables; ``w_q, w_k, w_v (2, 2)``."""

    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray


def five_day_inputs() -> FiveDayInputs:
    """The notes' inputs: ``np.random.seed(42)``, then ``randn(5, 2)`` and three ``randn(2, 2)``."""
    rng = np.random.RandomState(42)
    x = rng.randn(5, 2)
    w_q, w_k, w_v = rng.randn(2, 2), rng.randn(2, 2), rng.randn(2, 2)
    return FiveDayInputs(x, w_q, w_k, w_v)


def five_day_attention(masked: bool) -> AttentionTrace:
    r"""The notes' single-head self-attention over five days, scale :math:`1/\sqrt{2}`."""
    inputs = five_day_inputs()
    q, k, v = inputs.x @ inputs.w_q, inputs.x @ inputs.w_k, inputs.x @ inputs.w_v
    mask = np.tri(5, dtype=bool) if masked else None
    return scaled_dot_product_attention(q, k, v, mask=mask)


# --- Four one-hot words with integer weights (NLP lecture notes) ------------

FOUR_WORDS = ("word_1", "word_2", "word_3", "word_4")
#: The four word vectors of the notes (``word_3`` is [1, 1, 0], not one-hot).
FOUR_WORD_VECTORS = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=float)
#: The twelve numbers the notes print.
FOUR_WORDS_PRINTED_OUTPUT = np.array(
    [
        [0.98522025, 1.74174051, 0.75652026],
        [0.90965265, 1.40965265, 0.5],
        [0.99851226, 1.75849334, 0.75998108],
        [0.99560386, 1.90407309, 0.90846923],
    ]
)


def four_word_weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``W_Q, W_K, W_V (3, 3)``: ``np.random.seed(42)`` then three ``randint(3, size=(3, 3))``."""
    rng = np.random.RandomState(42)
    w_q = rng.randint(3, size=(3, 3)).astype(float)
    w_k = rng.randint(3, size=(3, 3)).astype(float)
    w_v = rng.randint(3, size=(3, 3)).astype(float)
    return w_q, w_k, w_v


def four_words_attention() -> AttentionTrace:
    r"""The notes' example: :math:`\mathrm{softmax}(QK^\top/\sqrt{3})\,V` for the four words."""
    w_q, w_k, w_v = four_word_weights()
    x = FOUR_WORD_VECTORS
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)


# --- "attention is cool": context vectors from given weights ----------------

COOL_TOKENS = ("attention", "is", "cool")
#: The masked attention weights the slides give.
COOL_WEIGHTS = np.array([[1.0, 0.0, 0.0], [0.6, 0.4, 0.0], [0.2, 0.5, 0.3]])
#: The values (D_v = 4) the slides give.
COOL_VALUES = np.array(
    [
        [0.1, 0.2, 0.3, 0.3],
        [0.4, 0.24, 0.90, 0.3],
        [0.1, 0.8, 0.3, 0.3],
    ]
)
#: The slides work out C_00 = 1.0*0.1 + 0*0.4 + 0*0.1 = 0.1.
COOL_PRINTED_C00 = 0.1


def cool_context() -> np.ndarray:
    r"""Context vectors :math:`C = W V`, shape ``(3, 4)``."""
    return COOL_WEIGHTS @ COOL_VALUES


def dot_product_terms(
    weights_row: np.ndarray, values_column: np.ndarray
) -> list[tuple[float, float]]:
    """The (weight, value) pairs whose products sum to one context entry."""
    weights, values = np.asarray(weights_row).tolist(), np.asarray(values_column).tolist()
    return list(zip(weights, values, strict=True))


# --- A soft dictionary lookup (painter / playwright / writer) ---------------

LOOKUP_KEYS = ("Vincent van Gogh", "William Shakespeare", "Charles Dickens")
LOOKUP_VALUES = ("painter", "playwright", "writer")
#: Toy 2-d key vectors: axis 0 ~ "visual arts", axis 1 ~ "stage vs page".
LOOKUP_KEY_VECTORS = np.array([[2.0, 0.0], [-1.0, 2.0], [-1.0, -2.0]])
#: Values as one-hot vectors over the three professions, so the output reads as
#: "how much of each profession the query retrieves".
LOOKUP_VALUE_VECTORS = np.eye(3)
