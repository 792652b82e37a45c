r"""Toy tasks a tiny transformer learns in seconds, each with the attention it needs.

A task makes batches of token sequences ``(B, T)`` and their targets ``(B, T)``
(``IGNORE`` where no answer is asked), parses a probe the student types, and
draws its *target pattern*: the ``(T, T)`` 0/1 matrix of where a head that
solves the task should look.

* **reverse** (no mask): ``y_i = x_{n-1-i}``, the anti-diagonal.
* **sort** (minGPT's demo): 6 symbols of 3 kinds, then their sorted copy,
  causal, next token; a query that writes output ``k`` looks at the input
  positions holding that symbol.
* **induction** (causal, next token): random letters, then ``n`` distinct
  letters twice; the token after the latest earlier copy of the current token.

The patterns and head scores are in :mod:`.patterns`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.errors import InputError

IGNORE = -1  #: target value where no answer is asked (not in the loss or the accuracy)
DIGITS = "0123456789"
LETTERS = "abcdefgh"  # induction: few letters, so a letter alone does not tell where it is


@dataclass(frozen=True)
class Batch:
    """Token sequences and their targets, ``(B, T)`` ints; targets are ``IGNORE`` off the loss."""

    tokens: np.ndarray
    targets: np.ndarray


@dataclass(frozen=True)
class Task:
    """One toy task: its alphabet, lengths, mask, data and the pattern it needs."""

    name: str
    title: str
    alphabet: str  #: one character per token id
    probe_length: int  #: symbols the student types
    length: int  #: T, tokens the model sees
    causal: bool
    pattern_name: str  #: what the target pattern is, in words
    score_names: tuple[str, ...]  #: head scores drawn over training
    default_probe: str
    make: Callable[[np.random.Generator, int], Batch]  #: rng, batch size -> batch
    expand: Callable[[np.ndarray], Batch]  #: typed probe ids (n,) -> one sequence (1, T)

    @property
    def vocab_size(self) -> int:
        return len(self.alphabet)

    def parse(self, text: str) -> np.ndarray:
        """The typed probe as token ids ``(n,)``; spaces and commas are ignored."""
        symbols = [c for c in str(text) if c not in " ,"]
        wrong = sorted({c for c in symbols if c not in self.alphabet})
        if wrong:
            shown = " ".join(repr(c) for c in wrong[:5])
            raise InputError(
                f"{shown} {'is' if len(wrong) == 1 else 'are'} not in this task's alphabet; "
                f"type only {alphabet_words(self.alphabet)}."
            )
        if len(symbols) != self.probe_length:
            raise InputError(
                f"Type exactly {self.probe_length} symbols for {self.title.lower()} "
                f"(you typed {len(symbols)}), e.g. {self.default_probe}."
            )
        return np.array([self.alphabet.index(c) for c in symbols], dtype=np.int64)

    def labels(self, tokens: np.ndarray) -> list[str]:
        """Unique axis labels ``symbol·position`` (plotly merges repeated category labels)."""
        return [f"{self.alphabet[t]}·{i}" for i, t in enumerate(np.asarray(tokens).tolist())]


HELD_OUT_EVERY = 5  # one sequence in five is never trained on (minGPT splits sort this way)
_HASH_BASE = 31
_HASH_MODULUS = 1_000_003


def is_held_out(tokens: np.ndarray) -> np.ndarray:
    """``(B, T) -> (B,)`` bool: a fixed fifth of all sequences, kept out of training.

    A hash of the whole sequence, so held-out accuracy is measured on sequences
    the model never saw (it matters for sort: there are only 3**6 inputs).
    """
    powers = np.array([pow(_HASH_BASE, i, _HASH_MODULUS) for i in range(tokens.shape[1])])
    return (tokens.astype(np.int64) @ powers) % _HASH_MODULUS % HELD_OUT_EVERY == 0


def alphabet_words(alphabet: str) -> str:
    return f"{alphabet[0]}–{alphabet[-1]}" if len(alphabet) > 3 else ", ".join(alphabet)


# --- reverse -----------------------------------------------------------------------

REVERSE_N = 8


def reverse_batch(rng: np.random.Generator, batch_size: int) -> Batch:
    """Random digits ``(B, n)``; targets: the same rows reversed."""
    tokens = rng.integers(0, len(DIGITS), size=(batch_size, REVERSE_N))
    return Batch(tokens, tokens[:, ::-1].copy())


def reverse_expand(probe: np.ndarray) -> Batch:
    return Batch(probe[None, :], probe[None, ::-1].copy())


# --- sort (minGPT's demo) ----------------------------------------------------------

SORT_N, SORT_SYMBOLS = 6, 3


def sort_sequences(inputs: np.ndarray) -> Batch:
    """``[x, sorted(x)]`` without its last token; targets: the next token, output half only.

    minGPT's ``SortDataset``: ``(B, 2n-1)`` tokens, the first ``n-1`` targets ignored.
    """
    full = np.concatenate([inputs, np.sort(inputs, axis=1)], axis=1)  # (B, 2n)
    tokens, targets = full[:, :-1].copy(), full[:, 1:].copy()
    targets[:, : SORT_N - 1] = IGNORE
    return Batch(tokens, targets)


def sort_batch(rng: np.random.Generator, batch_size: int) -> Batch:
    return sort_sequences(rng.integers(0, SORT_SYMBOLS, size=(batch_size, SORT_N)))


def sort_expand(probe: np.ndarray) -> Batch:
    return sort_sequences(probe[None, :])


# --- induction ---------------------------------------------------------------------

INDUCTION_T, INDUCTION_MIN_REPEAT, INDUCTION_MAX_REPEAT = 16, 4, 7


def induction_batch(rng: np.random.Generator, batch_size: int) -> Batch:
    """Random letters, then ``n`` distinct letters twice (``n`` random per row).

    The letters before the repeated part are drawn with replacement, so a letter
    may occur there too, followed by something else: only "find the *latest*
    earlier occurrence of this letter and copy what followed it" predicts the
    repeat, and no position or fixed offset does. Targets: the repeat's next letters.
    Built without a Python loop over rows (it runs once per training step).
    """
    t, vocab = INDUCTION_T, len(LETTERS)
    repeats = rng.integers(INDUCTION_MIN_REPEAT, INDUCTION_MAX_REPEAT + 1, size=(batch_size, 1))
    tokens = rng.integers(0, vocab, size=(batch_size, t))
    # each row's distinct letters: a random permutation of the alphabet, first n used
    segments = rng.permuted(np.tile(np.arange(vocab), (batch_size, 1)), axis=1)  # (B, V)
    position = np.arange(t)[None, :]  # (1, T)
    in_second = position >= t - repeats  # (B, T) the repeat
    in_first = (position >= t - 2 * repeats) & ~in_second
    index = np.where(in_second, position - (t - repeats), position - (t - 2 * repeats))
    letters = np.take_along_axis(segments, np.clip(index, 0, vocab - 1), axis=1)
    tokens = np.where(in_first | in_second, letters, tokens)
    following = np.take_along_axis(segments, np.clip(index + 1, 0, vocab - 1), axis=1)
    targets = np.where(in_second & (position < t - 1), following, IGNORE)
    return Batch(tokens, targets.astype(np.int64))


def induction_expand(probe: np.ndarray) -> Batch:
    """A typed sequence as it is, asked where training asks: inside a repeated tail.

    When the sequence ends with ``n >= 2`` distinct tokens twice, the targets are
    those of training (the repeat's next tokens); otherwise every position where
    the induction rule has an answer is asked.
    """
    targets = induction_targets(probe)
    n = repeated_tail(probe)
    if n:
        asked = np.full(len(probe), IGNORE, dtype=np.int64)
        asked[len(probe) - n : -1] = targets[len(probe) - n : -1]
        targets = asked
    return Batch(probe[None, :], targets[None, :])


def repeated_tail(tokens: np.ndarray) -> int:
    """The longest ``n >= 2`` with ``n`` distinct tokens ending the sequence twice, else 0."""
    for n in range(len(tokens) // 2, 1, -1):
        tail = tokens[len(tokens) - n :]
        before = tokens[len(tokens) - 2 * n : len(tokens) - n]
        if np.array_equal(tail, before) and len(set(tail.tolist())) == n:
            return n
    return 0


def induction_targets(tokens: np.ndarray) -> np.ndarray:
    """``(T,)``: the token after the latest earlier occurrence of token t, else ``IGNORE``."""
    targets = np.full(len(tokens), IGNORE, dtype=np.int64)
    for t in range(len(tokens)):
        earlier = np.flatnonzero(tokens[:t] == tokens[t])
        if earlier.size:
            targets[t] = tokens[earlier[-1] + 1]
    return targets


TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task(
            name="reverse",
            title="Reverse",
            alphabet=DIGITS,
            probe_length=REVERSE_N,
            length=REVERSE_N,
            causal=False,
            pattern_name="the anti-diagonal: output position i reads input position n−1−i",
            score_names=("anti-diagonal",),
            default_probe="31415926",
            make=reverse_batch,
            expand=reverse_expand,
        ),
        Task(
            name="sort",
            title="Sort",
            alphabet=DIGITS[:SORT_SYMBOLS],
            probe_length=SORT_N,
            length=2 * SORT_N - 1,
            causal=True,
            pattern_name="each output step looks at the input positions holding the symbol "
            "it writes next",
            score_names=("sorted symbol",),
            default_probe="210201",
            make=sort_batch,
            expand=sort_expand,
        ),
        Task(
            name="induction",
            title="Induction",
            alphabet=LETTERS,
            probe_length=INDUCTION_T,
            length=INDUCTION_T,
            causal=True,
            pattern_name="the token after the latest earlier occurrence of the current token "
            "(layer 2), helped by a previous-token head (layer 1)",
            score_names=("induction", "previous token"),
            default_probe="cahbgcdbfeadbfea",
            make=induction_batch,
            expand=induction_expand,
        ),
    )
}


def get_task(name: str) -> Task:
    """The task called ``name``, or an InputError listing the tasks."""
    if name not in TASKS:
        raise InputError(f"Unknown task {name!r}; choose one of: {', '.join(TASKS)}.")
    return TASKS[name]


N_HELD_OUT = 512
HELD_OUT_SEED = 20_240_601  # the same held-out sequences for every seed


def held_out_batch(task_name: str) -> Batch:
    """``N_HELD_OUT`` fixed sequences ``(N, T)`` that training never draws (same for every seed).

    Training measures its held-out accuracy on them; so does turning heads off
    (:mod:`.ablation`), without PyTorch.
    """
    task = get_task(task_name)
    candidates = task.make(np.random.default_rng(HELD_OUT_SEED), 8 * N_HELD_OUT)
    keep = np.flatnonzero(is_held_out(candidates.tokens))[:N_HELD_OUT]
    return Batch(candidates.tokens[keep], candidates.targets[keep])
