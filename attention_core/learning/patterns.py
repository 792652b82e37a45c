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
