"""Heads turned off in the real SmolLM2-135M-Instruct (30 layers × 9 heads, the 4-bit GGUF):
the pass that reuses the intact layers equals the whole ablated pass bit for bit at 128 tokens,
and "Turn heads off" draws the core's numbers for a link with heads off, the induction
experiment's and Check yourself's answer too (AppTest)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core.maths.ablation import Ablation
from attention_core.pretrained import Checkpoint, circuits, load_checkpoint
from attention_core.pretrained.induction_experiment import (
    COPY_LENGTH,
    copying_accuracy,
    copying_on,
    single_head_drops,
    top_heads,
)
from attention_core.pretrained.slim import SlimTrace, ablated_pass, slim_forward
from attention_core.teaching.model_questions import ablation_copying_question
from tests.real.model_file import real_decoder_file
from tests.real.test_real_decoder import LONG
from tests.views.pretrained_pages import PAGE, fresh_model_menu, markdown
from tests.views.test_pretrained_heads_off import copy_run

MODEL = "SmolLM2-135M-Instruct"
SLOW = 900  #: s: a busy machine of two cores shared by other jobs


@pytest.fixture(scope="module")
def ours() -> Checkpoint:
    fresh_model_menu()
    return load_checkpoint(real_decoder_file())


@pytest.fixture(scope="module")
def repeated(ours: Checkpoint) -> SlimTrace:
    return copy_run(ours)


def test_the_pass_from_the_first_ablated_layer_is_the_whole_ablated_pass_at_128_tokens(
    ours: Checkpoint,
) -> None:
    ids = ours.tokenize(LONG).ids
    assert len(ids) == 128 and ours.info.n_layers == 30 and ours.info.n_heads == 9
    intact = slim_forward(ours.model, ids)
    ablation = Ablation.of([(17, 3), (18, 6), (29, 8)])
    whole = slim_forward(ours.model, ids, ablation=ablation)
    reused = ablated_pass(ours.model, intact, ablation)
    for field in ("weights", "inputs", "final_output", "top_ids", "top_probs", "ranks"):
        np.testing.assert_array_equal(getattr(reused, field), getattr(whole, field), field)


def test_a_link_with_the_top_induction_heads_off_draws_the_cores_numbers(
    ours: Checkpoint, repeated: SlimTrace
) -> None:
    scores = circuits.detect_heads(repeated.weights, COPY_LENGTH)["induction"]
    top = top_heads(scores, 3)
    labels = [f"L{layer + 1} H{head + 1}" for layer, head in top]
    at = AppTest.from_file(PAGE, default_timeout=SLOW)  # 13 + 3 passes of 81 tokens, first
    for key, value in {
        "model": MODEL,
        "view": "Turn heads off",
        "text": LONG,
        "off": labels,
    }.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    accuracy = copying_on(ours.model, repeated, COPY_LENGTH)
    on, off = copying_accuracy(repeated.ranks, COPY_LENGTH), accuracy(Ablation.of(top))
    said = f"at {round(on * 39)} of them ({on:.0%}); with these heads off, at {round(off * 39)} "
    assert said + f"({off:.0%})" in markdown(at)
    table = at.dataframe[1].value
    assert list(table["heads off"]) == [1, 3, 10]
    assert table["top induction heads"][1] == ", ".join(labels)
    assert table["accuracy, top heads off"][1] == round(off, 3)
    assert table["accuracy, top heads off"][2] == round(
        accuracy(Ablation.of(top_heads(scores, 10))), 3
    )
    assert table["accuracy, random (mean)"][2] > table["accuracy, top heads off"][2]
    # Check yourself: which top induction head, zeroed alone, breaks copying most.
    expected = ablation_copying_question(single_head_drops(accuracy, scores, on), on, MODEL)
    asked = next(box for box in at.selectbox if box.key and "ablation-copying" in box.key)
    assert set(asked.options) == set(expected.choices)
    asked.set_value(expected.correct[0])
    at.button(key=asked.key.removesuffix("_answer") + "_check").click().run()
    verdicts = [verdict.value for verdict in (*at.success, *at.error)]
    assert any("Copying accuracy with every head on" in right.value for right in at.success), (
        verdicts,
        expected,
    )
