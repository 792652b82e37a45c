"""Every chart on every page and tab carries a text alternative written from its numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.views.expanders import TABLE, expander_keys

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = sorted(p.stem for p in (ROOT / "views").glob("*.py") if p.stem != "__init__")
TEXT_TABS = ("1 Tokens", "2 Positions", "3 Q K V", "4 Weights", "5 Head view", "6 Output")
PRETRAINED_TABS = (
    "Guided example",
    "Model view",
    "Head view",
    "Every step",
    "Head summary",
    "Rollout",
)
VIEWS = [
    *((page, {}) for page in PAGES),
    *(("text", {"view": tab}) for tab in TEXT_TABS),
    *(("pretrained", {"view": tab}) for tab in PRETRAINED_TABS),
    ("text", {"view": "4 Weights", "present": "1"}),
    ("walkthrough", {"step": "5"}),
]


def open_view(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(f"views/{page}.py").run()


def test_every_page_script_is_scanned() -> None:
    assert {"text", "time_series", "positional_encoding", "walkthrough"} <= set(PAGES)


@pytest.mark.parametrize(
    ("page", "params"), VIEWS, ids=[f"{p}-{'-'.join(q.values()) or 'default'}" for p, q in VIEWS]
)
def test_every_chart_has_a_text_alternative(page: str, params: dict[str, str]) -> None:
    at = open_view(page, params)
    assert not at.exception, [e.value for e in at.exception]
    charts = at.get("plotly_chart")
    missing = [c.proto.id or i for i, c in enumerate(charts) if not c.proto.alt.strip()]
    assert not missing, (page, params)
    for chart in charts:
        assert len(chart.proto.alt) > 20  # says what the chart is, not just "chart"


def test_a_table_is_built_only_when_its_expander_opens_and_holds_the_drawn_weights() -> None:
    sentence = "The cat sat on the mat because it was warm."
    at = AppTest.from_file(str(ROOT / "views" / "text.py"), default_timeout=120)
    at.query_params.update({"text": sentence, "view": "4 Weights"})
    at.run()
    keys = expander_keys(at, TABLE)
    assert "table_chart_weights_head1" in keys and "table_grid_weights" in keys
    assert len(at.table) == 0  # nothing built while every expander is closed
    at.session_state["table_chart_weights_head1"] = True
    at.run()
    assert not at.exception
    (table,) = at.table
    frame = table.value
    labels = list(ac.tokenize(sentence).labels)
    assert list(frame.index) == labels and list(frame.columns) == labels
    run = ac.run_text_attention(ac.tokenize(sentence).tokens, ac.AttentionConfig())
    expected = np.char.mod("%.2f", run.trace.weights[0])
    np.testing.assert_array_equal(frame.to_numpy(), expected)
