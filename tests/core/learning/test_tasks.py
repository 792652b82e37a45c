"""Toy tasks: their data, their target patterns, head scores and typed probes (NumPy only)."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.learning import patterns, tasks
from attention_core.learning.tasks import IGNORE, TASKS, get_task


def test_reverse_targets_are_the_inputs_reversed() -> None:
    batch = tasks.reverse_batch(np.random.default_rng(0), 5)
    assert batch.tokens.shape == (5, 8)
    np.testing.assert_array_equal(batch.targets, batch.tokens[:, ::-1])


def test_sort_is_mingpts_layout_input_then_sorted_next_tokens() -> None:
    batch = get_task("sort").expand(np.array([2, 1, 0, 2, 0, 1]))
    np.testing.assert_array_equal(batch.tokens[0], [2, 1, 0, 2, 0, 1, 0, 0, 1, 1, 2])
    np.testing.assert_array_equal(batch.targets[0], [-1, -1, -1, -1, -1, 0, 0, 1, 1, 2, 2])


def test_induction_rows_repeat_their_last_tokens_and_ask_only_the_determined_ones() -> None:
    batch = tasks.induction_batch(np.random.default_rng(1), 50)
    for tokens, targets in zip(batch.tokens, batch.targets, strict=True):
        asked = np.flatnonzero(targets != IGNORE)
        n = len(asked) + 1  # the repeat's length: its first token is not determined
        assert tasks.INDUCTION_MIN_REPEAT <= n <= tasks.INDUCTION_MAX_REPEAT
        np.testing.assert_array_equal(tokens[-n:], tokens[-2 * n : -n])
        assert len(set(tokens[-n:].tolist())) == n  # distinct: each has one latest earlier copy
        # every asked target is what the induction rule says
        np.testing.assert_array_equal(targets[asked], tasks.induction_targets(tokens)[asked])


def test_patterns_follow_the_head_detector_definitions() -> None:
    np.testing.assert_array_equal(
        patterns.anti_diagonal_pattern(3), [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    )
    np.testing.assert_array_equal(
        patterns.previous_token_pattern(3), [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    )
    tokens = np.array([5, 7, 5, 7])  # a b a b
    np.testing.assert_array_equal(
        patterns.induction_pattern(tokens),
        [[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]],  # after the earlier copy
    )
    np.testing.assert_array_equal(
        patterns.sort_pattern(np.array([2, 1, 0, 2, 0, 1, 0, 0, 1, 1, 2]))[5:, :6],
        [
            [0, 0, 1, 0, 1, 0],  # writes 0: the input's 0s
            [0, 0, 1, 0, 1, 0],
            [0, 1, 0, 0, 0, 1],  # writes 1
            [0, 1, 0, 0, 0, 1],
            [1, 0, 0, 1, 0, 0],  # writes 2
            [1, 0, 0, 1, 0, 0],
        ],
    )


def test_score_is_the_mean_weight_on_the_pattern_over_the_rows_it_covers() -> None:
    pattern = patterns.previous_token_pattern(3)  # rows 1 and 2 covered
    weights = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.1, 0.5, 0.4]])
    assert patterns.pattern_score(weights, pattern) == pytest.approx((0.25 + 0.5) / 2)
    perfect = np.stack([np.eye(3, k=-1) + np.eye(3) * [1, 0, 0], np.eye(3)])  # (2, 3, 3)
    np.testing.assert_allclose(patterns.pattern_score(perfect, pattern), [1.0, 0.0])
    assert np.isnan(patterns.pattern_score(weights, np.zeros((3, 3))))  # nothing to look for


def test_held_out_sequences_are_a_fixed_fifth_of_all_sort_inputs() -> None:
    every_input = np.array(np.meshgrid(*[range(3)] * 6)).reshape(6, -1).T  # all 729
    sequences = tasks.sort_sequences(every_input).tokens
    held = tasks.is_held_out(sequences)
    assert 0.15 < held.mean() < 0.25
    np.testing.assert_array_equal(held, tasks.is_held_out(sequences.copy()))  # by content only


@pytest.mark.parametrize(
    ("task", "typed", "words"),
    [
        ("reverse", "1234567", "Type exactly 8 symbols"),
        ("reverse", "123456789", "Type exactly 8 symbols"),
        ("reverse", "1234a678", "'a' is not in this task's alphabet; type only 0–9"),
        ("sort", "012345", "'3' '4' '5' are not in this task's alphabet; type only 0, 1, 2"),
        ("induction", "ABCDEFGHabcdefgh", "type only a–h"),
        ("induction", "", "Type exactly 16 symbols"),
        ("sort", "<img src=x>", "not in this task's alphabet"),
    ],
)
def test_bad_probes_say_what_to_type(task: str, typed: str, words: str) -> None:
    with pytest.raises(ac.InputError, match=words.replace("(", r"\(")):
        get_task(task).parse(typed)


def test_probes_ignore_spaces_and_commas_and_default_probes_parse() -> None:
    np.testing.assert_array_equal(get_task("sort").parse("2 1, 0 2 0 1"), [2, 1, 0, 2, 0, 1])
    for task in TASKS.values():
        assert len(task.parse(task.default_probe)) == task.probe_length


def test_unknown_task_lists_the_tasks() -> None:
    with pytest.raises(ac.InputError, match="reverse, sort, induction"):
        get_task("copy")


def test_a_typed_induction_sequence_is_asked_where_training_asks() -> None:
    task = get_task("induction")
    probe = task.parse("cahbgcdbfeadbfea")  # filler "cahbgc", then "dbfea" twice
    assert tasks.repeated_tail(probe) == 5
    targets = task.expand(probe).targets[0]
    np.testing.assert_array_equal(np.flatnonzero(targets != IGNORE), [11, 12, 13, 14])
    np.testing.assert_array_equal(targets[11:15], [task.alphabet.index(c) for c in "bfea"])
    # no repeated tail: every position the induction rule answers is asked
    other = task.parse("abcabcdefghabcde")
    assert tasks.repeated_tail(other) == 0
    np.testing.assert_array_equal(task.expand(other).targets[0], tasks.induction_targets(other))
