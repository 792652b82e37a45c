"""The text page's shared runs: read-only once cached, named by a digest of every input."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from attention_core.boundary.arrays import read_only_fields
from ui.text.cache import RunInputs

SENTENCE = ac.tokenize("The cat sat on the mat.")
OTHER = ac.tokenize("The cat sat on the rug.")


def test_every_array_of_a_shared_run_refuses_a_write() -> None:
    run = read_only_fields(ac.run_text_attention(SENTENCE.tokens, ac.AttentionConfig()))
    for array in (run.x, run.p, run.trace.weights, run.trace.q, run.projections.w_q):
        assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        run.trace.weights[0, 0, 0] = 1.0
    # Reading and copying still work; the numbers are those of a fresh run.
    fresh = ac.run_text_attention(SENTENCE.tokens, ac.AttentionConfig())
    np.testing.assert_array_equal(np.array(run.trace.weights), fresh.trace.weights)


def test_a_run_key_digest_changes_with_every_input_and_only_with_them() -> None:
    config = ac.AttentionConfig()
    base = RunInputs(SENTENCE, None, config, None)
    assert (
        base.digest == RunInputs(ac.tokenize("The cat sat on the mat."), None, config, None).digest
    )
    others = [
        RunInputs(OTHER, None, config, None),
        RunInputs(SENTENCE, OTHER, config, None),
        RunInputs(SENTENCE, None, ac.AttentionConfig(seed=1), None),
        RunInputs(SENTENCE, None, ac.AttentionConfig(mask="causal"), None),
        RunInputs(SENTENCE, None, config, "1-0"),
    ]
    digests = {key.digest for key in others} | {base.digest}
    assert len(digests) == len(others) + 1
