"""Turning heads off in the text page's multi-head attention (attention_core.maths.ablation):
nothing off changes nothing, a zeroed head is its W_O rows deleted, a mean-ablated head is its
positional mean, and the output is linear in which heads stay on. Plus the edge's refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import attention_core as ac
from attention_core.boundary.limits import MAX_ABLATED_HEADS
from attention_core.maths import attention
from attention_core.maths.ablation import (
    ABLATION_KINDS,
    Ablation,
    ablate_heads,
    check_ablation,
    checked_ablation,
)
from attention_core.maths.projections import Projections

T, D, H = 5, 12, 3
DV = D // H


def layer(seed: int = 0, bias: bool = True) -> tuple[np.ndarray, Projections]:
    """``x (T, d)`` and random projections of ``H`` heads, with biases (as BERT's)."""
    rng = np.random.default_rng(seed)
    w_q, w_k, w_v, w_o = (rng.normal(size=(D, D)) for _ in range(4))
    b_q, b_k, b_v, b_o = (rng.normal(size=D) if bias else None for _ in range(4))
    x = rng.normal(size=(T, D))
    return x, Projections(w_q, w_k, w_v, w_o, b_q=b_q, b_k=b_k, b_v=b_v, b_o=b_o)


def run(
    x: np.ndarray, projections: Projections, ablation: Ablation | None = None
) -> attention.MultiHeadTrace:
    mask = ac.causal_mask(T)
    return attention.multi_head_attention(x, x, projections, H, D**-0.5, mask, ablation=ablation)


def without_rows(projections: Projections, heads: list[int]) -> Projections:
    """W^O with head h's rows ``h*dv:(h+1)*dv`` set to zero, by hand."""
    w_o = np.array(projections.w_o)
    for head in heads:
        w_o[head * DV : (head + 1) * DV] = 0.0
    return Projections(**{**vars(projections), "w_o": w_o})


@pytest.mark.parametrize("kind", list(ABLATION_KINDS))
def test_turning_no_head_off_changes_nothing_bit_for_bit(kind: str) -> None:
    x, projections = layer()
    intact = run(x, projections)
    for ablation in (None, Ablation(frozenset(), kind), Ablation.of([(1, 0)], kind)):
        ablated = run(x, projections, ablation)  # (1, 0) is in another layer: none of these
        for name in ("weights", "context", "concat", "output"):
            assert np.array_equal(getattr(ablated, name), getattr(intact, name)), name


@pytest.mark.parametrize("heads", [[0], [2], [0, 2], [1, 2]])
def test_zeroing_a_head_equals_deleting_its_rows_of_w_o_by_hand(heads: list[int]) -> None:
    x, projections = layer()
    ablated = run(x, projections, Ablation.of([(0, h) for h in heads]))
    by_hand = run(x, without_rows(projections, heads))
    np.testing.assert_allclose(ablated.output, by_hand.output, rtol=0, atol=1e-12)
    assert not np.allclose(ablated.output, run(x, projections).output)


def test_a_zeroed_head_still_shows_what_it_computed_but_adds_nothing() -> None:
    x, projections = layer()
    intact, ablated = run(x, projections), run(x, projections, Ablation.of([(0, 1)]))
    assert np.array_equal(ablated.context, intact.context)  # the head's own attention, kept
    assert np.array_equal(ablated.weights, intact.weights)
    assert np.all(ablated.concat[:, DV : 2 * DV] == 0.0)  # what W^O received
    assert np.array_equal(ablated.concat[:, :DV], intact.concat[:, :DV])


def test_mean_ablation_replaces_the_heads_output_by_its_mean_over_positions() -> None:
    x, projections = layer(seed=1)
    intact = run(x, projections)
    ablated = run(x, projections, Ablation.of([(0, 1)], "mean"))
    context = intact.context.copy()  # (H, T, dv)
    context[1] = context[1].mean(axis=0)  # every position: the head's mean over positions
    by_hand = context.transpose(1, 0, 2).reshape(T, D) @ projections.w_o + projections.b_o
    np.testing.assert_allclose(ablated.output, by_hand, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ablated.concat[:, DV : 2 * DV], np.tile(context[1][0], (T, 1)))


def test_ablate_heads_returns_the_same_array_when_no_head_of_the_layer_is_off() -> None:
    context = np.arange(2 * 3 * 4.0).reshape(2, 3, 4)  # (H, T, dv)
    assert ablate_heads(context, None) is context
    assert ablate_heads(context, Ablation.of([(1, 0)]), layer_index=0) is context
    zeroed = ablate_heads(context, Ablation.of([(1, 0)]), layer_index=1)
    assert np.array_equal(zeroed[0], np.zeros((3, 4))) and np.array_equal(zeroed[1], context[1])
    meaned = ablate_heads(context, Ablation.of([(0, 1)], "mean"))
    np.testing.assert_allclose(meaned[1], np.tile([16.0, 17.0, 18.0, 19.0], (3, 1)), atol=1e-12)


@given(kept=st.lists(st.booleans(), min_size=H, max_size=H), seed=st.integers(0, 2**16))
def test_the_output_is_the_bias_plus_the_w_o_share_of_each_head_kept(
    kept: list[bool], seed: int
) -> None:
    r""":math:`O = b^O + \sum_{h \text{ kept}} C_h W^O_h`, whichever heads are off."""
    x, projections = layer(seed)
    off = [head for head in range(H) if not kept[head]]
    ablated = run(x, projections, Ablation.of([(0, head) for head in off]))
    context = run(x, projections).context  # (H, T, dv), what each head computed
    shares = [
        context[head] @ projections.w_o[head * DV : (head + 1) * DV] for head in range(H)
    ]  # H x (T, d)
    expected = projections.b_o + sum(
        (share for share, on in zip(shares, kept, strict=True) if on), np.zeros((T, D))
    )
    np.testing.assert_allclose(ablated.output, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("combination", ["concat", "mean", "max", "learned"])
def test_every_head_combination_of_the_text_page_combines_the_ablated_heads(
    combination: str,
) -> None:
    config = ac.AttentionConfig(d_model=D, n_heads=H, combine=combination, seed=4)
    x = np.random.default_rng(0).normal(size=(T, D))
    intact = ac.run_attention(x, config)
    assert np.array_equal(
        ac.run_attention(x, config, ablation=None).trace.output, intact.trace.output
    )
    ablated = ac.run_attention(x, config, ablation=Ablation.of([(0, 0)]))
    combine = config.combine_heads
    context = intact.trace.context.copy()
    context[0] = 0.0
    np.testing.assert_allclose(
        ablated.trace.output, combine(context, intact.projections), rtol=0, atol=1e-12
    )


def test_the_public_multi_head_attention_takes_an_ablation() -> None:
    x, projections = layer(bias=False)
    intact = ac.multi_head_attention(x, projections.w_q, projections.w_k, projections.w_v,
                                     w_o=projections.w_o, n_heads=H)  # fmt: skip
    ablated = ac.multi_head_attention(x, projections.w_q, projections.w_k, projections.w_v,
                                      w_o=projections.w_o, n_heads=H,
                                      ablation=Ablation.of([(0, 2)]))  # fmt: skip
    w_o = without_rows(projections, [2]).w_o
    by_hand = ac.multi_head_attention(x, projections.w_q, projections.w_k, projections.w_v,
                                      w_o=w_o, n_heads=H)  # fmt: skip
    np.testing.assert_allclose(ablated.output, by_hand.output, rtol=0, atol=1e-12)
    assert not np.allclose(ablated.output, intact.output)


# --- The edge: a user's choice of heads, checked once -------------------------------------


def test_a_checked_ablation_is_built_from_plain_pairs() -> None:
    ablation = checked_ablation([[0, 1], (2, 3), (0, 1)], "mean", n_layers=3, n_heads=4)
    assert ablation == Ablation(frozenset({(0, 1), (2, 3)}), "mean")
    assert ablation.heads_in(0) == [1] and ablation.heads_in(1) == []
    assert check_ablation(None, 3, 4) is None
    assert check_ablation(ablation, 3, 4) == ablation


@pytest.mark.parametrize(
    ("heads", "kind", "message"),
    [
        ([(3, 0)], "zero", "There is no layer 3: this model has layers 0 to 2."),
        ([(0, 4)], "zero", "Layer 0 has no head 4: each layer has heads 0 to 3."),
        ([(-1, 0)], "zero", "There is no layer -1"),
        ([(0, 1.5)], "zero", "two whole numbers such as (0, 1); got (0, 1.5)"),
        ([(0, True)], "zero", "two whole numbers"),
        ([(0, 1, 2)], "zero", "two whole numbers"),
        (["0.1"], "zero", "two whole numbers"),
        ("0.1", "zero", "a list of (layer, head) pairs"),
        ([(0, 1)], "half", "Unknown way to turn heads off 'half'; choose one of: zero, mean."),
        ([(layer, head) for layer in range(3) for head in range(4)], "zero",
         "That turns off all 12 heads"),
        ([(0, 0)] * (MAX_ABLATED_HEADS + 1), "zero",
         f"At most {MAX_ABLATED_HEADS} heads can be turned off at once"),
    ],
)  # fmt: skip
def test_a_bad_choice_of_heads_is_refused_in_words(heads: object, kind: str, message: str) -> None:
    with pytest.raises(ac.InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        checked_ablation(heads, kind, n_layers=3, n_heads=4)


def test_every_head_off_is_computed_by_the_core_but_refused_at_the_edge() -> None:
    x, projections = layer()
    every = Ablation.of([(0, head) for head in range(H)])
    trace = run(x, projections, every)
    np.testing.assert_array_equal(trace.output, np.tile(projections.b_o, (T, 1)))
    with pytest.raises(ac.InputError, match="keep at least one head on"):
        ac.run_attention(x, ac.AttentionConfig(d_model=D, n_heads=H), ablation=every)


def test_the_text_pages_entry_points_refuse_a_head_that_does_not_exist() -> None:
    config = ac.AttentionConfig(d_model=D, n_heads=H)
    with pytest.raises(ac.InputError, match="Layer 0 has no head 3"):
        ac.run_text_attention(("a", "b"), config, ablation=Ablation.of([(0, 3)]))
    with pytest.raises(ac.InputError, match="There is no layer 1: this model has layers 0 to 0"):
        ac.run_text_attention(("a", "b"), config, ablation=Ablation.of([(1, 0)]))


def test_each_kind_is_explained_in_words_beside_its_definition() -> None:
    assert list(ABLATION_KINDS) == ["zero", "mean"]
    for info in ABLATION_KINDS.values():
        assert info.label and info.formula and len(info.help.split()) >= 10
    np.testing.assert_array_equal(ABLATION_KINDS["zero"].mix(3), np.zeros((3, 3)))
    np.testing.assert_array_equal(ABLATION_KINDS["mean"].mix(4) @ np.ones(4), np.ones(4))
