"""The core asks a choice's entry what it does beyond its own stage (RoPE on Q and K); a table
holds one entry per name."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import attention_core as ac
from attention_core.boundary.registry import Table


def test_a_registered_encoding_with_a_rotary_base_rotates_queries_and_keys_by_it() -> None:
    slow = replace(ac.POSITIONAL_ENCODINGS["rotary"], label="slow rotary", rotary_base=100.0)
    ac.POSITIONAL_ENCODINGS.register("slow_rotary", slow)
    try:
        tokens = ("a", "b", "c", "d")
        plain = ac.run_text_attention(tokens, ac.AttentionConfig(d_model=4, positional="none"))
        config = ac.AttentionConfig(d_model=4, positional="slow_rotary")
        rotated = ac.run_text_attention(tokens, config)
        np.testing.assert_array_equal(rotated.trace.v, plain.trace.v)
        np.testing.assert_allclose(rotated.trace.q, ac.rotary_embedding(plain.trace.q, 100.0))
        np.testing.assert_allclose(rotated.trace.k, ac.rotary_embedding(plain.trace.k, 100.0))
    finally:
        ac.POSITIONAL_ENCODINGS.unregister("slow_rotary")


def test_a_table_keeps_its_entries_in_order_and_refuses_a_name_twice() -> None:
    table: Table[int] = Table("family")
    table.register("bert", 1)
    table.register("gpt2", 2)
    assert list(table.items()) == [("bert", 1), ("gpt2", 2)]
    with pytest.raises(ValueError, match="A family called 'bert' is already registered"):
        table.register("bert", 3)
    table.unregister("bert")
    assert list(table) == ["gpt2"]
    assert isinstance(ac.MASKS, Table)  # a Registry is a Table of options
