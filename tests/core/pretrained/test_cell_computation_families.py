"""How one cell was computed, on every model family: the recomputed numbers equal the trace.

The tiny random GPT-2, Llama (grouped K/V heads, RoPE) and Qwen2 checkpoints of
test_families.py, and the bundled BERT: for the last layer's every head, each score (from
the rotated queries and keys), scaled, masked, weight and context entry; RoPE's turned
column pairs equal the trace's rotated rows; the K/V head named is the one whose keys the
query head holds.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.pretrained import loading
from attention_core.pretrained.checkpoint import load_checkpoint
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTrace
from attention_core.teaching.cell_computation import (
    context_cell,
    masked_cell,
    scaled_cell,
    score_cell,
    weight_cell,
)
from attention_core.teaching.model_cells import kv_head_line, rotated_pairs
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model

IDS = np.array([3, 9, 4, 9, 4, 7, 1, 3, 9, 4, 2])


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ModelInfo, ModelTrace]]:
    """Each family's facts and its trace of :data:`IDS`."""
    root = tmp_path_factory.mktemp("checkpoints")
    folders = {name: root / name for name in CONFIGS} | {"bert": loading.model_directory()}
    for name, config in CONFIGS.items():
        save_model(config, folders[name])
    checkpoints = {name: load_checkpoint(folder) for name, folder in folders.items()}
    return {name: (model.info, model.forward(IDS)) for name, model in checkpoints.items()}


def matches(layer: BlockTrace, head: int, scale: float) -> None:
    heads = layer.heads
    q, k, v = layer.q_rotated[head], layer.k_rotated[head], layer.v[head]
    length = q.shape[0]
    for i in range(length):
        for j in range(length):
            for cell, entry in (
                (score_cell(q, k, i, j), heads.scores[head, i, j]),
                (scaled_cell(heads.scores[head], scale, i, j), heads.scaled[head, i, j]),
                (masked_cell(heads.scaled[head], heads.mask, i, j), heads.masked[head, i, j]),
                (weight_cell(heads.masked[head], i, j), heads.weights[head, i, j]),
            ):
                assert cell.value == pytest.approx(float(entry), rel=1e-4, abs=1e-5), cell.text
        for d in range(v.shape[1]):
            cell = context_cell(heads.weights[head], v, i, d)
            assert cell.value == pytest.approx(float(heads.context[head, i, d]), rel=1e-4, abs=1e-5)


@pytest.mark.parametrize("name", [*CONFIGS, "bert"])
def test_every_cell_of_the_last_layer_equals_the_trace(traces: dict, name: str) -> None:
    info, trace = traces[name]
    for head in range(info.n_heads):
        matches(trace.layers[-1], head, info.d_head**-0.5)


@pytest.mark.parametrize("name", ["llama", "qwen2"])
def test_ropes_turned_pairs_are_the_traces_rotated_columns(traces: dict, name: str) -> None:
    layer = traces[name][1].layers[0]
    assert layer.angles is not None
    for position in (0, 4, len(IDS) - 1):
        for turned in rotated_pairs(layer.q[1], layer.angles, position, shown=4):
            columns = slice(2 * turned.pair, 2 * turned.pair + 2)
            np.testing.assert_allclose(turned.after, layer.q_rotated[1, position, columns],
                                       rtol=1e-5, atol=1e-6)  # fmt: skip
            np.testing.assert_allclose(turned.angle, layer.angles[position, turned.pair])


def test_the_kv_head_named_is_the_one_whose_keys_the_query_head_holds(traces: dict) -> None:
    info, trace = traces["qwen2"]
    layer = trace.layers[0]  # 6 query heads, 3 K/V heads
    assert kv_head_line(3, info.n_heads, info.n_kv_heads) == (
        "Query head 4 reads keys and values from K/V head 2, which query heads 3 to 4 share "
        "(6 query heads, 3 K/V heads)."
    )
    np.testing.assert_array_equal(layer.k[2], layer.k[3])
    assert not np.array_equal(layer.k[3], layer.k[4])
