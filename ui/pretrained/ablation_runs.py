"""The pretrained page's runs with heads turned off, each computed once per server.

An ablated pass reuses the intact pass below its first ablated layer
(:func:`~attention_core.pretrained.slim.ablated_pass`): the sentence's intact pass is the
page's own (``PageModel.trace``), the repeated sequence's is :func:`copy_run`'s. The heads
go into a key as a sorted tuple of ``(layer, head)`` pairs and the kind's name, so every
session that turns the same heads off reads one result. Decoder passes queue behind the
page's pass lock (:func:`~ui.pretrained.passes.one_at_a_time`).

Bounds: an ablated sentence pass is a slim pass (≤ 25 MB at 128 tokens for SmolLM2) in
the page's byte-bounded trace cache; a copying accuracy is one number; an experiment a few
numbers, 13 passes of the 81-token repeated sequence (benchmarks/real_decoder.py).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attention_core.maths.ablation import Ablation, AblationKind
from attention_core.pretrained.induction_experiment import (
    Experiment,
    Head,
    copying_accuracy,
    copying_on,
    induction_experiment,
    single_head_drops,
)
from attention_core.pretrained.slim import SlimTrace, ablated_pass
from ui.pretrained.passes import COPY_LENGTH, PageModel, copy_run, one_at_a_time, traces

Heads = tuple[Head, ...]
ACCURACIES = 64  #: copying accuracies kept (one float each): a lecture's choices of heads


def heads_of(ablation: Ablation) -> Heads:
    """The ablation's heads as a sorted tuple, a cache key."""
    return tuple(sorted(ablation.heads))


def ablated_sentence(model: PageModel, trace: SlimTrace, ablation: Ablation) -> SlimTrace:
    """The sentence of ``trace`` (its intact pass) with ``ablation``'s heads off, cached by the
    model, the input and the heads like any pass."""
    key = ("off", model.key, trace.ids.tobytes(), _type_ids(trace), heads_of(ablation))
    key += (ablation.kind,)

    def compute() -> SlimTrace:
        return ablated_pass(model.checkpoint.model, trace, ablation)

    return traces().get(key, compute if model.bundled else lambda: one_at_a_time(compute))


def _type_ids(trace: SlimTrace) -> bytes:
    return b"" if trace.type_ids is None else trace.type_ids.tobytes()


def _accuracy(model: PageModel) -> Callable[[Ablation], float]:
    """``accuracy(ablation)`` on the repeated sequence, each pass behind the pass lock."""
    run = copy_run(model.key, model.folder)
    accuracy = copying_on(model.checkpoint.model, run, COPY_LENGTH)

    def locked(ablation: Ablation) -> float:
        return one_at_a_time(lambda: accuracy(ablation))

    return locked


def intact_copying(model: PageModel) -> float:
    """The copying accuracy with every head on (the repeated sequence's intact pass)."""
    ranks = copy_run(model.key, model.folder).ranks
    assert ranks is not None, "copying accuracy is a decoder's"
    return copying_accuracy(ranks, COPY_LENGTH)


@st.cache_resource(max_entries=ACCURACIES, show_spinner=False)
def _copying_with(key: str, folder: str | None, heads: Heads, kind: AblationKind) -> float:
    model = PageModel(key, folder)
    return _accuracy(model)(Ablation.of(heads, kind))


def copying_with(model: PageModel, ablation: Ablation) -> float:
    """The copying accuracy with ``ablation``'s heads off."""
    return _copying_with(model.key, model.folder, heads_of(ablation), ablation.kind)


@st.cache_resource(max_entries=4, show_spinner="Turning the strongest induction heads off …")
def _experiment(key: str, folder: str | None, kind: AblationKind) -> Experiment:
    model = PageModel(key, folder)
    scores = model.copying_scores()["induction"]
    return induction_experiment(_accuracy(model), scores, intact_copying(model), kind)


def experiment(model: PageModel, kind: AblationKind = "zero") -> Experiment:
    """The induction experiment on the page's decoder (top 1, 3, 10 against random heads)."""
    return _experiment(model.key, model.folder, kind)


@st.cache_resource(max_entries=4, show_spinner=False)
def _single_drops(key: str, folder: str | None) -> tuple[tuple[Head, float], ...]:
    model = PageModel(key, folder)
    scores = model.copying_scores()["induction"]
    return single_head_drops(_accuracy(model), scores, intact_copying(model))


def single_drops(model: PageModel) -> tuple[tuple[Head, float], ...]:
    """Each top induction candidate zeroed alone, and how much copying accuracy drops."""
    return _single_drops(model.key, model.folder)
