"""The walkthrough's shared views: one object per view for every session, read-only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attention_core as ac
from attention_core.teaching import score_scaling, soft_lookup, walkthrough_steps
from ui.figures.style import NORMAL, PRESENTATION
from ui.shared import worked_examples
from ui.shared.worked_examples import DAYS
from ui.walkthrough import cache, examples
from ui.walkthrough import figures as wf


@pytest.mark.parametrize(
    ("build", "key", "other"),
    [
        (cache.lookup_view, (0.0, 1.0, NORMAL), (0.1, 1.0, NORMAL)),
        (cache.scaling_view, (8, NORMAL), (8, PRESENTATION)),
        (cache.masking_view, (NORMAL,), (PRESENTATION,)),
        (cache.multi_head, (4,), (6,)),
        (cache.head_weights_figure, (4, NORMAL), (3, NORMAL)),
        (cache.head_output_figure, (4, "concat", NORMAL), (4, "max", NORMAL)),
        (examples.four_words_view, (NORMAL,), (PRESENTATION,)),
        (examples.cool_figures, (NORMAL,), (PRESENTATION,)),
        (worked_examples.five_day_view, (False, NORMAL), (True, NORMAL)),
    ],
)
def test_a_view_is_built_once_and_shared_per_key(build, key: tuple, other: tuple) -> None:
    first = build(*key)
    assert build(*key) is first  # every session draws the very same object
    assert build(*other) is not first


def test_shared_arrays_refuse_a_write() -> None:
    arrays = (
        cache.lookup_view(0.0, 1.0, NORMAL).trace.weights,
        cache.scaling_view(8, NORMAL).table.max_weight_unscaled,
        cache.masking_view(NORMAL).result.right,
        cache.multi_head(4).trace.weights,
        cache.multi_head(4).combined["concat"],
        worked_examples.five_day_view(True, NORMAL).result.trace.weights,
    )
    for array in arrays:
        assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        arrays[0][0] = 1.0


def test_shared_tables_hold_the_frames_the_page_built_before() -> None:
    keys = ac.examples
    trace = soft_lookup.soft_lookup((2.0, -1.3), keys.LOOKUP_KEY_VECTORS, keys.LOOKUP_VALUE_VECTORS)
    lookup = wf.lookup_frame(
        keys.LOOKUP_KEYS,
        keys.LOOKUP_VALUES,
        keys.LOOKUP_KEY_VECTORS,
        trace.scores,
        trace.weights,
        PRESENTATION.decimals,
    )
    shared = cache.lookup_view(2.0, -1.3, PRESENTATION).table.to_pandas()
    pd.testing.assert_frame_equal(shared, lookup)
    table = score_scaling.softmax_saturation(n_keys=16)
    view = cache.scaling_view(16, NORMAL)
    np.testing.assert_array_equal(
        view.frame.to_pandas()["largest weight, scaled"], np.round(table.max_weight_scaled, 3)
    )
    result = walkthrough_steps.five_day_masking()
    masking = cache.masking_view(NORMAL).table.to_pandas()
    assert list(masking.index) == DAYS and masking.index.name == "query"
    np.testing.assert_array_equal(
        masking["row sum, wrong axis"], np.round(result.row_sums(result.wrong_axis), 3)
    )
