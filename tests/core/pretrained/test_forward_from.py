"""An ablated pass that reuses the intact pass below its first ablated layer
(:func:`~attention_core.pretrained.slim.forward_from`) equals the whole ablated pass bit for
bit, and the induction experiment counts copying as its formula says.

Tiny random checkpoints (tiny_checkpoints.py) and the bundled all-MiniLM-L6-v2; the real
SmolLM2 is checked in tests/real/test_real_heads_off.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.maths.ablation import Ablation
from attention_core.pretrained import Checkpoint, load_checkpoint, loading
from attention_core.pretrained.induction_experiment import (
    RANDOM_SEEDS,
    SIZES,
    copying_accuracy,
    induction_experiment,
    random_heads,
    single_head_drops,
    sizes_for,
    top_heads,
)
from attention_core.pretrained.slim import (
    SlimTrace,
    ablated_pass,
    first_ablated_layer,
    forward_from,
    slim_forward,
)
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, save_model

FIELDS = ("weights", "inputs", "final_output", "mask", "top_ids", "top_probs", "ranks")


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Checkpoint]:
    root = tmp_path_factory.mktemp("forward_from")
    found = {}
    for name in ("gpt2", "llama"):
        save_model(CONFIGS[name], root / name)
        found[name] = load_checkpoint(root / name)
    found["bert"] = load_checkpoint(loading.model_directory())
    return found


def assert_same_pass(got: SlimTrace, expected: SlimTrace) -> None:
    for field in (*FIELDS, "rank_probs", "token_embeddings", "position_embeddings"):
        left, right = getattr(got, field), getattr(expected, field)
        if right is None:
            assert left is None, field
        else:
            np.testing.assert_array_equal(left, right, err_msg=field)
    assert got.ablation == expected.ablation


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_a_pass_from_the_first_ablated_layer_equals_the_whole_ablated_pass(
    models: dict[str, Checkpoint], name: str, kind: str
) -> None:
    checkpoint = models[name]
    vocab = 30_000 if name == "bert" else VOCAB_SIZE
    ids = np.random.default_rng(3).integers(1, vocab, 13)
    intact = slim_forward(checkpoint.model, ids)
    last = checkpoint.info.n_layers - 1
    for heads in ([(0, 1)], [(last, 0)], [(last, 1), (1, 0)]):
        ablation = Ablation.of(heads, kind)  # type: ignore[arg-type]
        expected = slim_forward(checkpoint.model, ids, ablation=ablation)
        assert_same_pass(ablated_pass(checkpoint.model, intact, ablation), expected)
        assert first_ablated_layer(ablation) == min(layer for layer, _ in heads)


def test_every_head_on_is_the_intact_pass_itself(models: dict[str, Checkpoint]) -> None:
    model = models["llama"].model
    intact = slim_forward(model, np.arange(1, 9))
    assert ablated_pass(model, intact, None) is intact
    assert ablated_pass(model, intact, Ablation.of([])) is intact
    assert first_ablated_layer(None) is None


def test_starting_above_an_ablated_layer_is_a_programming_error(models) -> None:
    model = models["gpt2"].model
    intact = slim_forward(model, np.arange(1, 9))
    with pytest.raises(ValueError, match="first ablated layer"):
        forward_from(model, intact, 1, Ablation.of([(0, 0)]))


def test_copying_accuracy_counts_the_second_copys_first_guesses() -> None:
    n = 4  # [bos] a b c d a b c d: T = 9, ranks of tokens 1 .. 8
    ranks = np.array([5, 9, 9, 9, 7, 1, 2, 1])
    # The second copy's predictable positions: t = 5, 6, 7 (predicting b, c, d) -> 1, 2, 1.
    assert copying_accuracy(ranks, n) == 2 / 3


def test_the_experiment_turns_off_the_top_heads_and_nested_random_draws() -> None:
    scores = np.zeros((4, 5))
    scores[2, 1], scores[3, 4], scores[0, 0] = 0.9, 0.8, 0.7
    calls: list[Ablation] = []

    def accuracy(ablation: Ablation) -> float:
        calls.append(ablation)
        return 1.0 - len(ablation.heads) / 20

    experiment = induction_experiment(accuracy, scores, 1.0, sizes=(1, 3))
    assert top_heads(scores, 3) == ((2, 1), (3, 4), (0, 0))
    first, second = experiment.rows
    assert first.top == ((2, 1),) and first.top_accuracy == 0.95
    assert second.top_accuracy == 0.85 and second.random_accuracies == (0.85,) * 3
    assert len(calls) == 2 * (1 + len(RANDOM_SEEDS))
    draws = [random_heads(scores, seed, 3) for seed in RANDOM_SEEDS]
    assert all(not set(draw) & set(top_heads(scores, 3)) for draw in draws)
    assert calls[1].heads == frozenset(draws[0][:1])
    assert random_heads(scores, 0, 3) == draws[0]  # the same seed, the same heads


def test_a_small_model_is_tested_at_the_sizes_it_fits() -> None:
    assert sizes_for(270) == SIZES == (1, 3, 10)
    assert sizes_for(12) == (1, 3)  # the tiny Llama: 3 layers x 4 heads
    assert sizes_for(1) == ()


def test_single_head_drops_try_the_top_candidates_alone() -> None:
    scores = np.arange(12.0).reshape(3, 4)
    drops = single_head_drops(lambda a: 0.5 if (2, 3) in a.heads else 0.75, scores, 0.75)
    assert drops == (((2, 3), 0.25), ((2, 2), 0.0), ((2, 1), 0.0), ((2, 0), 0.0))
