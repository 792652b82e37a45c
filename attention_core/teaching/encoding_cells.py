r"""How one entry of a positional encoding, or of the token vectors it is added to, was
computed, written out with its own numbers.

For position ``p`` (row) and dimension ``j`` (column) of a ``(T, d)`` encoding, each function
recomputes the entry from the formula that made it and says how, in plain text:

* **sinusoidal** :math:`P_{p,2i} = \sin(p / b^{2i/d})`, :math:`P_{p,2i+1} = \cos(p / b^{2i/d})`
  (:func:`sinusoidal_cell`, as :func:`attention_core.maths.positional.sinusoidal_encoding`);
* **rotary**, the angle :math:`\theta_{p,i} = p\, b^{-2i/d}` a pair of a query's or key's
  columns is turned by (:func:`angle_cell`), and the point :math:`(1, 0)` turned by it to
  :math:`(\cos\theta, \sin\theta)` (:func:`rotary_cell`, as
  :func:`attention_core.teaching.word_order.rotary_reference` draws it);
* **learned**, a row of a random table as training starts (:func:`learned_cell`);
* **none**, zero (:func:`zero_cell`);
* an input entry :math:`\tilde x_{pj} = x_{pj} + P_{pj}` (:func:`sum_cell`), where the token
  vector :math:`x_p` is one-hot or a random vector of the word (:func:`token_cell`).

:func:`encoding_cell` picks by the encoding's name, as the positional-encoding page draws it;
:func:`added_cell` as a run adds it to the token vectors (rotary adds nothing there).
Positions and dimensions count from 0, as both pages label them. Each returns a
:class:`~attention_core.teaching.cell_computation.CellComputation` whose ``value`` equals
the matrix's entry (tests/core/teaching/test_encoding_cells.py).
"""

from __future__ import annotations

import math

from attention_core.boundary.text import token_vector, vocabulary
from attention_core.maths.positional import learned_encoding
from attention_core.teaching.cell_computation import CellComputation, number

ROTARY_ADDS_NOTHING = (
    "Rotary encoding adds nothing to the token vectors, so this entry of P is 0: RoPE turns "
    "the queries and keys by their positions instead (the Q and K steps)."
)


def wavelength(two_i: int, d_model: int, base: float) -> float:
    r""":math:`b^{2i/d}`, what the position is divided by in pair ``2i``'s angle, computed as
    :func:`attention_core.maths.positional.sinusoidal_encoding` computes it."""
    return base ** (two_i / d_model)


def amount(value: float) -> str:
    """A base, a divisor or a period (1 or more): 4 significant digits below 1000, else whole
    with spaced thousands (``10 000``), as the pages write the base."""
    if value >= 1000:
        return f"{round(value):,}".replace(",", " ")
    return f"{value:.4g}"


def sinusoidal_cell(p: int, j: int, d_model: int, base: float = 10_000.0) -> CellComputation:
    r"""Entry ``(p, j)`` of the sinusoidal encoding ``(T, d_model)``: with ``2i`` = ``j``
    rounded down to even, :math:`\sin(p / b^{2i/d})` for an even ``j``, :math:`\cos` for an
    odd one (an odd ``d_model``'s last column is a lone sine)."""
    two_i = j - j % 2
    divisor = wavelength(two_i, d_model, base)
    angle = p / divisor
    wave, value = ("cosine", math.cos(angle)) if j % 2 else ("sine", math.sin(angle))
    pair = (
        f"the {wave} of pair {two_i // 2} (dimensions {two_i} and {two_i + 1})"
        if two_i + 1 < d_model
        else f"a lone sine: d = {d_model} is odd, so the last pair has no cosine"
    )
    lines = (
        f"Position {p}, dimension {j}: {pair}.",
        f"The angle: the position divided by b^(2i/d) = {amount(base)}^({two_i}/{d_model}) = "
        f"{amount(divisor)}, so {p} / {amount(divisor)} = {number(angle)} radians. This "
        f"wave repeats every 2π × {amount(divisor)} = {amount(2 * math.pi * divisor)} "
        "positions.",
        f"{wave[:3]}({number(angle)}) = {number(value)}.",
    )
    return CellComputation("sinusoidal", p, j, value, lines)


def angle_line(p: int, pair: int, width: int, base: float) -> tuple[float, str]:
    r"""RoPE's angle :math:`\theta_{p,i} = p\, b^{-2i/d}` for position ``p`` and column pair
    ``pair`` of rows ``width`` wide, as :func:`attention_core.maths.positional.rotary_angles`
    computes it, and the line that works it out."""
    angle = p * base ** (-2.0 * pair / width)
    line = (
        f"The angle θ in radians: p × b^(−2i/d) = {p} × {amount(base)}^(−{2 * pair}/{width}) "
        f"= {p} / {amount(wavelength(2 * pair, width, base))} = {number(angle)}."
    )
    return angle, line


def angle_cell(p: int, pair: int, width: int, base: float = 10_000.0) -> CellComputation:
    r"""Entry ``(p, pair)`` of RoPE's angles ``(T, width/2)``: :math:`\theta_{p,i} = p\,
    b^{-2i/d}`, the turn of columns ``2 pair`` and ``2 pair + 1`` of every query and key of
    width ``width`` (a head's d_k) at position ``p``."""
    angle, line = angle_line(p, pair, width, base)
    lines = (
        f"Position {p}, pair {pair}: RoPE turns columns {2 * pair} and {2 * pair + 1} of every "
        f"query and key at position {p} by this angle, which grows with the position and "
        "shrinks along the pairs.",
        line,
    )
    return CellComputation("angles", p, pair, angle, lines)


def rotary_cell(p: int, j: int, d_model: int, base: float = 10_000.0) -> CellComputation:
    r"""Entry ``(p, j)`` of RoPE's picture ``(T, d_model)``: pair :math:`i = \lfloor j/2
    \rfloor` holds :math:`(1, 0)` turned by :math:`\theta_{p,i} = p\, b^{-2i/d}`, that is
    :math:`(\cos\theta, \sin\theta)`; an odd ``d_model``'s last column is not turned (1)."""
    pair = j // 2
    if 2 * pair + 1 >= d_model:
        alone = (
            f"Position {p}, dimension {j}: d = {d_model} is odd, so the last dimension has no "
            "partner to turn with; RoPE leaves it as it is. Value: 1.000."
        )
        return CellComputation("rotary", p, j, 1.0, (alone,))
    angle, line = angle_line(p, pair, d_model, base)
    part, turn, value = (
        ("y, the sine", "sin", math.sin(angle))
        if j % 2
        else ("x, the cosine", "cos", math.cos(angle))
    )
    lines = (
        f"Position {p}, dimension {j}: pair {pair} (dimensions {2 * pair} and {2 * pair + 1}) "
        f"holds the point (1, 0) turned by the angle θ for i = {pair}.",
        line,
        f"Turned by θ, (1, 0) lands on (cos θ, sin θ); dimension {j} is its {part}: "
        f"{turn}({number(angle)}) = {number(value)}.",
    )
    return CellComputation("rotary", p, j, value, lines)


def learned_cell(p: int, j: int, d_model: int, seed: int = 0) -> CellComputation:
    r"""Entry ``(p, j)`` of the learned encoding as training starts, :math:`P_{p,:} \sim
    \mathcal N(0, 1)`: read from the table
    :func:`~attention_core.maths.positional.learned_encoding` draws from ``seed``."""
    value = float(learned_encoding(p + 1, d_model, seed)[p, j])
    lines = (
        f"Position {p}, dimension {j}: an entry of a table with one row of {d_model} numbers per "
        f"position, each drawn at random from a normal distribution with mean 0 and spread 1 "
        f"(seed {seed}), as training starts.",
        "Nothing is computed from the position: the model looks row "
        f"{p} up, and training would change its numbers like any other weight. Value: "
        f"{number(value)}.",
    )
    return CellComputation("learned", p, j, value, lines)


def zero_cell(p: int, j: int, why: str) -> CellComputation:
    """Entry ``(p, j)`` of an encoding that adds nothing: 0, for the reason ``why``."""
    return CellComputation(
        "none", p, j, 0.0, (f"Position {p}, dimension {j}: {why} Value: 0.000.",)
    )


def encoding_cell(
    kind: str, p: int, j: int, d_model: int, base: float = 10_000.0, seed: int = 0
) -> CellComputation:
    """Entry ``(p, j)`` of the matrix that shows encoding ``kind`` (``(T, d_model)``, as
    :func:`attention_core.teaching.word_order.position_matrix` makes it, base ``base``)."""
    if kind == "sinusoidal":
        return sinusoidal_cell(p, j, d_model, base)
    if kind == "rotary":
        return rotary_cell(p, j, d_model, base)
    if kind == "learned":
        return learned_cell(p, j, d_model, seed)
    return zero_cell(p, j, "no encoding: every entry of P is 0, so every position looks the same.")


def added_cell(kind: str, p: int, j: int, d_model: int, seed: int = 0) -> CellComputation:
    """Entry ``(p, j)`` of the encoding ``P (T, d_model)`` a run adds to its token vectors
    (:func:`attention_core.boundary.pipeline.positional_encoding`: base 10 000; rotary adds
    nothing)."""
    if kind == "rotary":
        return zero_cell(p, j, ROTARY_ADDS_NOTHING)
    return encoding_cell(kind, p, j, d_model, seed=seed)


def sum_cell(token: float, position: CellComputation) -> CellComputation:
    r"""Entry ``(p, j)`` of :math:`\tilde X = X + P`: the token vector's entry ``token`` plus
    the encoding's, ``position`` (its computation, written first)."""
    p, j = position.row, position.column
    value = token + position.value
    lines = (
        *position.lines,
        f"Input of position {p}, dimension {j}: the token vector's {number(token)} plus the "
        f"position's {number(position.value)} = {number(value)}.",
    )
    return CellComputation("x_plus_p", p, j, value, lines)


def token_cell(
    kind: str, tokens: tuple[str, ...], t: int, j: int, d_model: int, seed: int = 0
) -> CellComputation:
    """Entry ``(t, j)`` of the token vectors ``X (T, d_model)`` of embedding ``kind`` (onehot or
    random; :data:`attention_core.boundary.options.EMBEDDINGS`): ``tokens`` every token
    embedded together (a cross-attention run's two sentences), ``t`` an index into them."""
    word = tokens[t].casefold()
    if kind == "onehot":
        words = vocabulary(tokens)
        column = words.index(word)
        value = 1.0 if j == column else 0.0
        line = (
            f"Token “{tokens[t]}” is distinct word number {column + 1} of the {len(words)} in "
            f"the text, so its one-hot vector has 1 in dimension {column} and 0 everywhere "
            f"else. Dimension {j}: {number(value)}."
        )
        return CellComputation("x", t, j, value, (line,))
    value = float(token_vector(word, d_model, seed)[j])
    lines = (
        f"Token “{tokens[t]}”: {d_model} random numbers drawn from a normal distribution (mean "
        f"0, spread 1) by a generator seeded with the word itself and the seed {seed}, so the "
        "same word always gets the same vector.",
        f"Nothing is computed: dimension {j} is read. Value: {number(value)}.",
    )
    return CellComputation("x", t, j, value, lines)
