"""A target pattern's cell says the task's rule in words, and its verdict is the entry."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.learning.patterns import pattern_lines, target_pattern
from attention_core.learning.tasks import SORT_N, get_task

TASKS = ("reverse", "sort", "induction")


def drawn_tokens(name: str) -> np.ndarray:
    """The task's default probe as the model reads it (and the page draws its target)."""
    task = get_task(name)
    return task.expand(task.parse(task.default_probe)).tokens[0]


def verdict_value(line: str) -> float:
    """``"So 3·5 → 7·2 is 1: ..."`` -> 1.0."""
    return float(line.split(" is ", 1)[1].split(":", 1)[0])


@pytest.mark.parametrize("name", TASKS)
def test_every_cells_verdict_is_the_patterns_entry(name: str) -> None:
    task, tokens = get_task(name), drawn_tokens(name)
    pattern = target_pattern(task, tokens)
    labels = task.labels(tokens)
    for i, j in np.ndindex(pattern.shape):
        reason, verdict = pattern_lines(task, tokens, i, j)
        assert verdict_value(verdict) == pattern[i, j]
        assert verdict.startswith(f"So {labels[i]} → {labels[j]} is ")
        assert reason  # the rule, in words


def test_reverse_names_the_input_position_an_output_reads() -> None:
    task, tokens = get_task("reverse"), drawn_tokens("reverse")
    reason, verdict = pattern_lines(task, tokens, 2, 5)
    labels = task.labels(tokens)
    assert f"position {len(tokens)} − 1 − 2 = 5 ({labels[5]})" in reason
    assert verdict.endswith("a place a head that solves the task looks.")


def test_sort_names_the_symbol_the_output_step_writes() -> None:
    task, tokens = get_task("sort"), drawn_tokens("sort")
    i = SORT_N  # an output step: it is followed by the second smallest input
    wanted = np.sort(tokens[:SORT_N])[1]
    holding = int(np.flatnonzero(tokens[:SORT_N] == wanted)[0])
    reason, verdict = pattern_lines(task, tokens, i, holding)
    symbol = task.alphabet[int(wanted)]
    assert f"followed by {symbol}" in reason and f"holds {symbol}" in reason
    assert verdict_value(verdict) == 1.0
    early, _ = pattern_lines(task, tokens, 0, 0)
    assert "writes no output" in early


def test_induction_says_what_the_key_follows() -> None:
    task, tokens = get_task("induction"), drawn_tokens("induction")
    pattern = target_pattern(task, tokens)
    i, j = (int(a[0]) for a in np.nonzero(pattern))  # the first place to look
    reason, _ = pattern_lines(task, tokens, i, j)
    labels = task.labels(tokens)
    assert f"key {labels[j]} follows {labels[j - 1]}, the same symbol" in reason
