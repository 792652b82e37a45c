"""Our NumPy forward pass equals transformers' BertModel on the same weights (eager attention).

The reference runs offline from the weights package's own folder; it is only
imported here, never by the page.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

import numpy as np
import pytest
import torch  # the weights package installs transformers; no skip if missing
import transformers

from attention_core.pretrained import bert, loading

LONG = " ".join(["The quick brown fox jumps over the lazy dog near the riverbank."] * 20)
INPUTS: list[tuple[str, str | None]] = [
    ("The animal didn't cross the street because it was too tired.", None),
    ("Hello", None),
    ("a", None),
    ("Attention is all you need.", None),
    ("the the the the the the the the", None),
    ("Wait... what?! (Really?) Yes: no; maybe - perhaps.", None),
    ("Café naïve façade — déjà vu.", None),
    ("I love pizza 🍕🍕 and 🎉 parties!", None),
    ("東京は日本の首都です。", None),
    ("مرحبا بالعالم", None),
    ("Привет, мир! Как дела?", None),
    ("unbelievably antidisestablishmentarianism", None),
    ("The cat sat on the mat.", "The dog lay on the rug."),
    ("Where is the bank?", "I sat by the river bank."),
    ("Is it raining?", "Yes."),
    ("numbers 1234 5678 and 3.14159", None),
    ("<b>markup</b> & [brackets] {braces}", None),
    (LONG, None),
    (LONG, LONG),
    ("Short question?", LONG),
    ("repeat " * 200, None),
    ("She said: \"it's fine\", but it wasn't.", "He didn't believe her."),
]


@pytest.fixture(scope="module")
def model() -> loading.PretrainedModel:
    return loading.load_model()


@pytest.fixture(scope="module")
def reference(model: loading.PretrainedModel):
    bert_model = transformers.BertModel.from_pretrained(
        str(model.directory), attn_implementation="eager", local_files_only=True
    )
    return bert_model.eval()


@pytest.mark.parametrize(("text", "pair"), INPUTS, ids=range(len(INPUTS)))
def test_every_attention_matrix_and_the_last_hidden_state_match_bert_model(
    model: loading.PretrainedModel, reference, text: str, pair: str | None
) -> None:
    encoded = loading.encode(model.tokenizer, text, pair)
    ours = bert.forward(model.weights, encoded.ids, encoded.type_ids)
    with torch.no_grad():
        theirs = reference(
            input_ids=torch.tensor(encoded.ids[None]),
            token_type_ids=torch.tensor(encoded.type_ids[None]),
            attention_mask=torch.ones(1, len(encoded), dtype=torch.long),
            output_attentions=True,
        )
    assert len(theirs.attentions) == 6
    for layer, their_weights in enumerate(theirs.attentions):
        np.testing.assert_allclose(ours.weights[layer], their_weights[0].numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(
        ours.last_hidden_state, theirs.last_hidden_state[0].numpy(), rtol=0, atol=1e-5
    )


def test_long_inputs_reach_exactly_128_tokens(model: loading.PretrainedModel) -> None:
    assert len(loading.encode(model.tokenizer, LONG)) == 128
    assert len(loading.encode(model.tokenizer, LONG, LONG)) == 128
