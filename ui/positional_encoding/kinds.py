"""The positional encodings the page offers, and what the page says about each.

One table, :data:`ENCODINGS`: the radio offers its keys, and every view reads
its words from it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EncodingKind:
    """One encoding: what it is (words, formulas) and how its curves and ``P Pᵀ`` read."""

    words: str
    formulas: tuple[str, ...]
    #: Its columns are waves (sines or rotations), so ``P Pᵀ`` depends only on distance.
    waves: bool
    curves_words: str
    similarity_words: str


WAVE_CURVES = (
    "Each column of the matrix, read down the positions, is a wave. Low dimensions "
    "wiggle fast and high ones slowly, so near and far differences both show up."
)
WAVE_SIMILARITY = (
    "Each cell compares the vectors of two positions. For sine waves and rotations "
    "the number depends only on how far apart the positions are, so every diagonal "
    "stripe is constant and neighbours are most alike."
)

ENCODINGS: dict[str, EncodingKind] = {
    "sinusoidal": EncodingKind(
        "Every position gets a fixed pattern of waves, one sine and one cosine per pair of "
        "dimensions, from fast to slow. Like the hands of a clock, together they give each "
        "position its own reading, and neighbouring positions have similar readings.",
        (
            r"PE_{p,\,2i} = \sin\!\left(\frac{p}{b^{2i/d}}\right)",
            r"PE_{p,\,2i+1} = \cos\!\left(\frac{p}{b^{2i/d}}\right)",
        ),
        waves=True,
        curves_words=WAVE_CURVES,
        similarity_words=WAVE_SIMILARITY,
    ),
    "learned": EncodingKind(
        "Every position gets its own row in a table that is learned during training, just "
        "like a word embedding but looked up by position. Shown here as training starts: "
        "random numbers, with no pattern yet.",
        (r"P_{p,:} \sim \mathcal{N}(0, 1) \quad \text{(then trained)}",),
        waves=False,
        curves_words=(
            "A learned table starts as noise: no wave, no order, until training shapes it."
        ),
        similarity_words=(
            "A random table has no notion of distance: each position is like itself and "
            "unlike all others, near or far."
        ),
    ),
    "rotary": EncodingKind(
        "Rotary encoding (RoPE) adds nothing to the words: it turns each pair of numbers in "
        "the queries and keys by an angle that grows with the position. The matrix shows "
        "where the point (1, 0) lands after the turn, for every position and pair.",
        (
            r"\theta = \theta_{p,i} = p\, b^{-2i/d}",
            r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
            r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
            r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}",
        ),
        waves=True,
        curves_words=WAVE_CURVES,
        similarity_words=WAVE_SIMILARITY,
    ),
    "none": EncodingKind(
        "Without an encoding every position adds the same vector: zero. Attention then sees "
        "a bag of words and cannot tell where a word stands.",
        (r"P = 0",),
        waves=False,
        curves_words="Every curve is flat at zero.",
        similarity_words="All zero: no position is different from any other.",
    ),
}

KINDS = tuple(ENCODINGS)
