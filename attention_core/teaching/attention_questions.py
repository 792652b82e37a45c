r"""Questions computed from one attention run: a head's weights, scores and mask.

Each generator is a pure function of the numbers of a view (a row of weights,
scores, a mask; ``head`` is the head's name as the page says it, "head 2") and
returns a :class:`Question`, or None when the view cannot ask it (a fully masked
row has no strongest key). :func:`text_questions` asks them all for one head and
query of an :class:`AttentionRun`.

Ties: every key whose weight is within :data:`TIE` of the largest counts as the
strongest, since the page shows weights to two decimals.
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.options import GRID, MASKS
from attention_core.boundary.pipeline import PAD_TOKENS, AttentionRun
from attention_core.maths.attention import softmax
from attention_core.teaching import examples
from attention_core.teaching.questions import (
    CHOICE,
    NUMBER,
    Question,
    number,
    offered,
    quoted,
    slug,
    view_rng,
)

TIE = 0.005  #: weights closer than this to the largest are tied (they round alike to 0.01)
WEIGHT_TOLERANCE = 0.01  #: "to ±0.01"
WALKTHROUGH_WINDOW = 3  #: the sliding window offered beside the causal mask (AttentionConfig's)
MAX_CHOICES = 4  #: keys offered (ties can add more): enough to think, short enough to read
SHARPER = "Sharper: the largest weight grows"
FLATTER = "Flatter: the largest weight shrinks"
SAME = "The same weights"


def strongest_key_question(
    weights_row: np.ndarray, query_label: str, key_labels: list[str], head: str, query: int
) -> Question | None:
    r"""Which key gets the largest weight :math:`\arg\max_j A_{ij}` of row ``weights_row (S,)``?

    Every key within :data:`TIE` of the largest is correct; None for a fully masked row.
    """
    largest = float(np.max(weights_row))
    if largest == 0.0:
        return None
    tied = [j for j in range(weights_row.size) if largest - weights_row[j] <= TIE]
    rng = view_rng("strongest", head, query, key_labels)
    choices_at = offered(tied, list(range(weights_row.size)), rng, MAX_CHOICES)
    choices = tuple(key_labels[j] for j in choices_at)
    quotes = ", ".join(f"{quoted(key_labels[j])} {number(weights_row[j])}" for j in choices_at)
    tie_words = (
        f" Within {TIE} of the largest they count as tied: each is right." if len(tied) > 1 else ""
    )
    return Question(
        id=f"strongest-key/{slug(head)}/query{query}",
        prompt=f"Which key does {quoted(query_label)} attend to most in {head}?",
        kind=CHOICE,
        choices=choices,
        correct=tuple(key_labels[j] for j in tied),
        explanation=f"The weights of {quoted(query_label)}'s row: {quotes}.{tie_words}",
    )


def weight_question(
    weights_row: np.ndarray, query_label: str, key_labels: list[str], head: str, query: int
) -> Question:
    r"""What is the weight :math:`A_{ij}` from the query to one key (drawn from the view), ±0.01?

    A key the query may attend to is asked when there is one (weight > 0).
    """
    allowed = [j for j in range(weights_row.size) if weights_row[j] > 0] or [0]
    key = int(view_rng("weight", head, query, key_labels).choice(allowed))
    value = float(weights_row[key])
    masked = " It is masked: its score is −∞ and its weight 0." if value == 0.0 else ""
    return Question(
        id=f"weight/{slug(head)}/query{query}/key{key}",
        prompt=f"What is the weight from {quoted(query_label)} to {quoted(key_labels[key])} "
        f"in {head} (to ±0.01)?",
        kind=NUMBER,
        value=value,
        tolerance=WEIGHT_TOLERANCE,
        explanation=f"Row {quoted(query_label)}, column {quoted(key_labels[key])} of the weights "
        f"A = softmax(masked scores) holds {number(value)}.{masked}",
    )


def softmax_question(vector: np.ndarray, position: int, id: str) -> Question:
    r""":math:`\mathrm{softmax}(z)_p = e^{z_p} / \sum_k e^{z_k}` of a short vector ``z (n,)``."""
    exps = np.exp(vector - np.max(vector))  # (n,)
    value = float(exps[position] / exps.sum())
    shown = ", ".join(f"{v:g}" for v in vector)
    terms = " + ".join(f"e^{v:g}" for v in vector)
    return Question(
        id=id,
        prompt=f"What is softmax([{shown}]) at position {position + 1} (to ±0.01)?",
        kind=NUMBER,
        value=value,
        tolerance=WEIGHT_TOLERANCE,
        explanation=f"e^{vector[position]:g} / ({terms}) = {number(value)}.",
    )


def doubling_question(masked_row: np.ndarray, query_label: str, head: str, query: int) -> Question:
    r"""How :math:`\mathrm{softmax}(2 \hat s)` compares with :math:`\mathrm{softmax}(\hat s)`.

    ``masked_row (S,)``: the row's masked scores (−∞ where masked). Computed, not
    assumed: equal allowed scores (or one key, or none) keep the same weights.
    """
    before, after = softmax(masked_row), softmax(2 * masked_row)  # (S,) each
    top_before, top_after = float(np.max(before)), float(np.max(after))
    if top_after > top_before + 1e-12:
        correct = SHARPER
    elif top_after < top_before - 1e-12:
        correct = FLATTER
    else:
        correct = SAME
    return Question(
        id=f"doubling/{slug(head)}/query{query}",
        prompt=f"If every score in {quoted(query_label)}'s row of {head} were doubled "
        "before the softmax, what would its weights be?",
        kind=CHOICE,
        choices=(SHARPER, FLATTER, SAME),
        correct=(correct,),
        explanation=f"The largest weight is {number(top_before)} now and would be "
        f"{number(top_after)} with doubled scores: doubling widens every gap between scores, "
        "and the softmax turns wider gaps into a more one-sided row.",
    )


def mask_question(
    mask: np.ndarray | None, n_q: int, key_is_padding: np.ndarray, window: int
) -> Question | None:
    """Which registered mask gives this ``(T, S)`` pattern (None: every pair allowed)?

    ``key_is_padding (S,)`` flags the padding keys. Every mask whose pattern is the
    same counts (no padding tokens: padding looks like none). A drawn grid no
    registered mask gives asks nothing (None).
    """
    n_k = len(key_is_padding)
    pattern = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    names = [name for name, option in MASKS.items() if GRID not in option.needs]
    built = {name: MASKS[name].build(n_q, n_k, window, key_is_padding, None) for name in names}
    correct = tuple(
        name
        for name in names
        if np.array_equal(pattern, np.ones_like(pattern) if built[name] is None else built[name])
    )
    if not correct:
        return None
    allowed = ", ".join(str(int(n)) for n in pattern.sum(axis=1))
    return Question(
        id=f"mask/{n_q}x{n_k}",
        prompt="Which mask produced the pattern of the weights (grey cells get weight 0)?",
        kind=CHOICE,
        choices=tuple(names),
        correct=correct,
        explanation=f"Each query's row allows this many keys, first to last: {allowed}. "
        + " ".join(f"{name}: {MASKS[name].help}" for name in correct),
    )


def row_questions(
    weights_row: np.ndarray,
    masked_row: np.ndarray,
    query_label: str,
    key_labels: list[str],
    head: str,
    query: int,
    softmax_weights: bool = True,
) -> list[Question]:
    """The questions on one query's row: ``weights_row (S,)`` and ``masked_row (S,)`` (−∞ masked).

    The softmax question takes the row's first three allowed scores, to one decimal.
    The doubling question quotes the row's softmax weights, so it is asked only when
    the weights on screen are softmax weights (``softmax_weights``; not under hardmax).
    """
    allowed = masked_row[np.isfinite(masked_row)][:3]  # (≤ 3,)
    vector = np.round(allowed, 1) if allowed.size else np.array([1.0, 2.0, 3.0])
    questions = (
        strongest_key_question(weights_row, query_label, key_labels, head, query),
        weight_question(weights_row, query_label, key_labels, head, query),
        softmax_question(vector, vector.size - 1, f"softmax/{slug(head)}/query{query}"),
        doubling_question(masked_row, query_label, head, query) if softmax_weights else None,
    )
    return [question for question in questions if question is not None]


def text_questions(
    run: AttentionRun,
    query_labels: list[str],
    key_tokens: tuple[str, ...],
    key_labels: list[str],
    head: int,
    query: int,
) -> tuple[Question, ...]:
    """Every question the text page asks about ``head`` (0-based) and ``query`` (row index).

    ``key_tokens`` tell the padding keys (``PAD_TOKENS``); the labels name them.
    """
    weights = run.trace.weights[head, query]  # (S,)
    masked = run.trace.masked[head, query]  # (S,)
    asked = row_questions(
        weights,
        masked,
        query_labels[query],
        key_labels,
        f"head {head + 1}",
        query,
        softmax_weights=run.config.normaliser == "softmax",
    )
    is_padding = np.array([token in PAD_TOKENS for token in key_tokens], dtype=bool)  # (S,)
    mask = mask_question(run.mask, len(query_labels), is_padding, run.config.window)
    return tuple(asked if mask is None else [*asked, mask])


def walkthrough_questions(day_labels: list[str], query: int = 3) -> tuple[Question, ...]:
    """The notes' five days with the causal mask (lecture step 4), asked for day ``query + 1``.

    The row's own softmax question gives way to the notes' softmax([1, 2, 3]).
    """
    trace = examples.five_day_attention(masked=True)  # weights (5, 5)
    n_days = len(day_labels)
    label = day_labels[query]
    asked = row_questions(
        trace.weights[query], trace.masked[query], label, day_labels, "the five-day example", query
    )
    softmax_123 = softmax_question(np.array([1.0, 2.0, 3.0]), 2, "softmax/1-2-3")
    mask = mask_question(trace.mask, n_days, np.zeros(n_days, dtype=bool), WALKTHROUGH_WINDOW)
    row = [question for question in asked if not question.id.startswith("softmax/")]
    return tuple(q for q in (*row, softmax_123, mask) if q is not None)
