r"""Target patterns of the toy tasks, and head scores (TransformerLens's head-detector definitions).

A pattern ``P (T, T)`` is 1 where a head that solves the task should look. The
score of a head is the weight it puts on the pattern's cells (TransformerLens's
``mul`` measure), averaged over the rows the pattern covers, so a perfect head
scores 1 and the score reads as "mean weight on the relevant diagonal".
"""

from __future__ import annotations

import numpy as np

from attention_core.learning.tasks import SORT_N, Task, sort_sequences


def anti_diagonal_pattern(length: int) -> np.ndarray:
    """``P_ij = [j = T-1-i]`` (reverse)."""
    return np.fliplr(np.eye(length))


def previous_token_pattern(length: int) -> np.ndarray:
    """``P_ij = [j = i-1]``: each token looks at the one before it."""
    return np.eye(length, k=-1)


def duplicate_token_pattern(tokens: np.ndarray) -> np.ndarray:
    """``P_ij = [x_j = x_i, j < i]``: earlier copies of the same token."""
    tokens = np.asarray(tokens)
    return np.tril(tokens[:, None] == tokens[None, :], k=-1).astype(float)


def induction_pattern(tokens: np.ndarray) -> np.ndarray:
    """``P_ij = [x_{j-1} = x_i, j-1 < i]``: the token after an earlier copy of this one.

    TransformerLens: the duplicate-token pattern shifted one column right.
    """
    duplicate = duplicate_token_pattern(tokens)
    shifted = np.zeros_like(duplicate)
    shifted[:, 1:] = duplicate[:, :-1]
    return np.tril(shifted)


def sort_pattern(tokens: np.ndarray) -> np.ndarray:
    """Query ``i`` writing output symbol ``y_i`` looks at the input positions holding ``y_i``.

    ``tokens (2n-1,)``; rows before the output half stay empty.
    """
    tokens = np.asarray(tokens)
    pattern = np.zeros((len(tokens), len(tokens)))
    targets = sort_sequences(tokens[None, :SORT_N]).targets[0]
    for i in range(SORT_N - 1, len(tokens)):
        pattern[i, :SORT_N] = tokens[:SORT_N] == targets[i]
    return pattern


def pattern_score(weights: np.ndarray, pattern: np.ndarray) -> np.ndarray:
    r"""Mean weight on the pattern over the rows it covers: ``(..., T, T) -> (...)``.

    .. math:: s = \frac{1}{|R|} \sum_{i \in R} \sum_j A_{ij} P_{ij},
              \quad R = \{ i : \textstyle\sum_j P_{ij} > 0 \}
    """
    rows = pattern.sum(axis=-1) > 0  # (T,)
    on_pattern = (weights * pattern).sum(axis=-1)  # (..., T)
    if not rows.any():  # nothing to look for (e.g. no token repeats): no score
        return np.full(on_pattern.shape[:-1], np.nan)
    return on_pattern[..., rows].mean(axis=-1)


def target_pattern(task: Task, tokens: np.ndarray, score: str | None = None) -> np.ndarray:
    """The ``(T, T)`` pattern named ``score`` (the task's first by default) on ``tokens``."""
    name = score or task.score_names[0]
    length = len(tokens)
    if name == "anti-diagonal":
        return anti_diagonal_pattern(length)
    if name == "previous token":
        return previous_token_pattern(length)
    if name == "induction":
        return induction_pattern(tokens)
    if name == "sorted symbol":
        return sort_pattern(tokens)
    raise ValueError(f"unknown score {name!r}")


def head_scores(task: Task, tokens: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Every score of the task for every head: ``weights (..., L, H, T, T)`` -> ``(..., L, H)``."""
    return {
        name: pattern_score(weights, target_pattern(task, tokens, name))
        for name in task.score_names
    }


def pattern_lines(task: Task, tokens: np.ndarray, i: int, j: int) -> tuple[str, ...]:
    """Why entry ``(i, j)`` of the task's target pattern on ``tokens (T,)`` is 1 or 0, in
    words, naming rows and columns by their labels (``symbol·position``)."""
    name, labels = task.score_names[0], task.labels(tokens)
    value = target_pattern(task, tokens)[i, j]
    query, key = labels[i], labels[j]
    verdict = f"So {query} → {key} is {value:g}: " + (
        "a place a head that solves the task looks." if value else "not a place to look."
    )
    return (_pattern_reason(name, task, tokens, i, j), verdict)


def _pattern_reason(name: str, task: Task, tokens: np.ndarray, i: int, j: int) -> str:
    """The task's rule for query ``i`` and key ``j``, with their symbols."""
    labels = task.labels(tokens)
    if name == "anti-diagonal":
        wanted = len(tokens) - 1 - i
        return (
            f"Reversing {len(tokens)} symbols, output {labels[i]} reads input position "
            f"{len(tokens)} − 1 − {i} = {wanted} ({labels[wanted]})."
        )
    if name == "previous token":
        return f"Each token looks at the one just before it: position {i} − 1 = {i - 1}."
    if name == "induction":
        if not 0 < j <= i:
            return f"Key {labels[j]} does not follow an earlier token before query {labels[i]}."
        same = "the same symbol" if tokens[j - 1] == tokens[i] else "another symbol"
        return (
            f"Query {labels[i]} looks for what followed its symbol last time: key "
            f"{labels[j]} follows {labels[j - 1]}, {same}."
        )
    if i < SORT_N - 1:
        return f"Position {i} reads the input: it writes no output yet, so its row is empty."
    symbol = task.alphabet[int(sort_sequences(tokens[None, :SORT_N]).targets[0][i])]
    where = f"holds {task.alphabet[int(tokens[j])]}" if j < SORT_N else "is not an input"
    return (
        f"Output {labels[i]} is followed by {symbol}, the next symbol in sorted order: the "
        f"head should read the input positions holding {symbol}; key {labels[j]} {where}."
    )
