"""The positional encodings the page offers, and what the page says about each."""

from __future__ import annotations

KINDS = ("sinusoidal", "learned", "rotary", "none")

KIND_TEXT = {
    "sinusoidal": (
        "Every position gets a fixed pattern of waves, one sine and one cosine per pair of "
        "dimensions, from fast to slow. Like the hands of a clock, together they give each "
        "position its own reading, and neighbouring positions have similar readings.",
        (
            r"PE_{p,\,2i} = \sin\!\left(\frac{p}{b^{2i/d}}\right)",
            r"PE_{p,\,2i+1} = \cos\!\left(\frac{p}{b^{2i/d}}\right)",
        ),
    ),
    "learned": (
        "Every position gets its own row in a table that is learned during training, just "
        "like a word embedding but looked up by position. Shown here as training starts: "
        "random numbers, with no pattern yet.",
        (r"P_{p,:} \sim \mathcal{N}(0, 1) \quad \text{(then trained)}",),
    ),
    "rotary": (
        "Rotary encoding (RoPE) adds nothing to the words: it turns each pair of numbers in "
        "the queries and keys by an angle that grows with the position. The matrix shows "
        "where the point (1, 0) lands after the turn, for every position and pair.",
        (
            r"\theta = \theta_{p,i} = p\, b^{-2i/d}",
            r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
            r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
            r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}",
        ),
    ),
    "none": (
        "Without an encoding every position adds the same vector: zero. Attention then sees "
        "a bag of words and cannot tell where a word stands.",
        (r"P = 0",),
    ),
}
