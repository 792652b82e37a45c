"""Every chart on every page and tab carries a text alternative written from its numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

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
