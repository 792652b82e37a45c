""" "Turn heads off" on "Inside a real model" (AppTest): the bundled encoder and a tiny random
Llama checkpoint (3 layers × 4 heads) from this server's models folder. A link with heads off
draws the numbers the core computes with those heads off; bad links get words, never a
traceback. The real SmolLM2 (30 × 9) is tested in tests/real/test_real_heads_off.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_core.maths.ablation import Ablation
from attention_core.pretrained import circuits, load_checkpoint, loading
from attention_core.pretrained.induction_experiment import (
    COPY_LENGTH,
    copy_test_ids,
    copying_accuracy,
    copying_on,
    induction_experiment,
    sentence_similarity,
    top_heads,
)
from attention_core.pretrained.slim import slim_forward
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model
from tests.views.pretrained_pages import fresh_model_menu, markdown, page, unescaped

VIEW = "Turn heads off"
TEXT = "w1 w2 w3 w4 w5 w1 w2 w3 w4"


@pytest.fixture(scope="module", autouse=True)
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    save_model(CONFIGS["llama"], root / "llama")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_MODELS_DIR", str(root))
        patch.setenv("ATTENTION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        fresh_model_menu()
        yield root
        fresh_model_menu()


def copy_run(checkpoint):
    added = checkpoint.tokenizer.whole.get_added_tokens_decoder()
    special = [int(i) for i, token in added.items() if token.special]
    first = int(checkpoint.tokenize("a").ids[0])
    ids = copy_test_ids(checkpoint.info.vocab_size, special, first if first in special else None)
    return slim_forward(checkpoint.model, ids)


def test_the_encoder_says_why_nothing_is_copied_and_shows_its_embedding_moving() -> None:
    text = "The cat sat on the mat."
    at = page(view=VIEW, text=text, off=["L1 H1", "L6 H12"])
    words = unescaped(markdown(at) + " ".join(info.value for info in at.info))
    assert "is an encoder: it has no next-token head" in words
    model = loading.load_model()
    from attention_core.pretrained import bert

    core = bert.from_weights(model.weights)
    ids = loading.encode(model.tokenizer, text).ids
    intact = slim_forward(core, ids)
    ablated = slim_forward(core, ids, ablation=Ablation.of([(0, 0), (5, 11)]))
    similarity = sentence_similarity(intact.final_output, ablated.final_output)
    assert f"cosine similarity **{similarity:.4f}**" in words
    assert "so the induction experiment does not apply" in words
    assert at.multiselect(key="off").value == ["L1 H1", "L6 H12"]


def test_a_link_with_heads_off_draws_the_decoders_numbers_with_them_off(models_dir: Path) -> None:
    at = page(model="local:llama", view=VIEW, text=TEXT, off=["L2 H1", "L3 H4"], off_kind="mean")
    checkpoint = load_checkpoint(models_dir / "llama")
    ids = checkpoint.tokenize(TEXT).ids
    ablation = Ablation.of([(1, 0), (2, 3)], "mean")
    intact, ablated = (
        slim_forward(checkpoint.model, ids),
        slim_forward(checkpoint.model, ids, ablation=ablation),
    )
    guesses = at.dataframe[0].value
    assert list(guesses["heads off"]) == checkpoint.token_names(ablated.top_ids[-1])
    np.testing.assert_allclose(guesses["probability (off)"], ablated.top_probs[-1].round(4))
    np.testing.assert_allclose(guesses["probability (on)"], intact.top_probs[-1].round(4))
    run = copy_run(checkpoint)
    on = copying_accuracy(run.ranks, COPY_LENGTH)
    off = copying_accuracy(
        slim_forward(checkpoint.model, run.ids, ablation=ablation).ranks, COPY_LENGTH
    )
    said = f"at {round(on * 39)} of them ({on:.0%}); with these heads off, at {round(off * 39)} "
    assert said + f"({off:.0%})" in markdown(at)
    scores = circuits.detect_heads(run.weights, COPY_LENGTH)["induction"]
    found = induction_experiment(copying_on(checkpoint.model, run, COPY_LENGTH), scores, on)
    table = at.dataframe[1].value
    assert list(table["heads off"]) == [1, 3]  # 12 heads: 10 and 10 others do not fit
    np.testing.assert_allclose(
        table["accuracy, top heads off"], [round(r.top_accuracy, 3) for r in found.rows]
    )
    np.testing.assert_allclose(
        table["accuracy, random (mean)"], [round(r.random_mean, 3) for r in found.rows]
    )
    assert not at.warning


def test_a_button_turns_the_strongest_induction_heads_off(models_dir: Path) -> None:
    at = page(model="local:llama", view=VIEW, text=TEXT)
    assert "Every head is on" in markdown(at)
    at.button(key="off_top_3").click().run()
    checkpoint = load_checkpoint(models_dir / "llama")
    scores = circuits.detect_heads(copy_run(checkpoint).weights, COPY_LENGTH)["induction"]
    expected = sorted(f"L{layer + 1} H{head + 1}" for layer, head in top_heads(scores, 3))
    assert at.multiselect(key="off").value == expected
    assert at.query_params["off"] == expected
    at.button(key="off_none").click().run()
    assert at.multiselect(key="off").value == []


def test_a_head_the_model_does_not_have_is_named_in_a_warning() -> None:
    at = page(model="local:llama", view=VIEW, text=TEXT, off=["L9 H1"])
    assert any("off=" in warning.value for warning in at.warning)
    assert "Every head is on" in markdown(at)


def test_every_head_off_is_refused_in_words() -> None:
    every = [f"L{layer} H{head}" for layer in range(1, 4) for head in range(1, 5)]
    at = page(model="local:llama", view=VIEW, text=TEXT, off=every)
    assert any("keep at least one head on" in warning.value for warning in at.warning)


def test_a_huge_list_in_the_link_gets_a_message_not_a_traceback() -> None:
    at = page(model="local:llama", view=VIEW, text=TEXT, off=["L1 H1"] * 600 + ["L99 H3"])
    assert any("off=L99 H3" in warning.value for warning in at.warning)
    assert "Turned off (zero): L1 H1." in markdown(at)  # the heads it has, once
