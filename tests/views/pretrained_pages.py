"""Driving the pretrained page in AppTest: open it with a link, read what it shows as text."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.plotly_specs import walkable_matrices
from ui.figures.style import PRESENTATION, FigureStyle
from ui.shared.safe import unescape_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "views" / "pretrained.py")
#: The expander under a walkable matrix holding its plotly heatmap (ui/shared/plotly_parts.py).
PLOTLY = "Plotly heatmap (hover, zoom, PNG)"
#: The expander under a grid of heatmaps that walks one of them (ui/shared/walk_chart.py).
WALK_ONE = "Walk a matrix cell by cell"


def page(**params: str) -> AppTest:
    """The page opened with ``params`` as its link's query, run once without an exception."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def markdown(at: AppTest) -> str:
    """Every Markdown block and caption of the run, joined."""
    return " ".join(block.value for block in [*at.markdown, *at.caption])


def unescaped(text: str) -> str:
    """A message as shown: the Markdown escapes of user text removed."""
    return unescape_markdown(text)


def fresh_model_menu() -> None:
    """Forget the server's model settings and menu (cached), so a test's settings count."""
    from ui.pretrained import models

    models.choices.clear()
    models.model_settings.clear()


def drawn_sizes(at: AppTest) -> set[tuple[str, int]]:
    """How large the run draws its charts: ``("title", px)`` of each plotly figure sent, and
    ``("font", px)``, ``("cell", px)``, ``("decimals", n)`` of each walkable matrix."""
    plotly = {
        ("title", json.loads(chart.proto.spec)["layout"]["title"]["font"]["size"])
        for chart in at.get("plotly_chart")
    }
    walked = {
        (name, spec["walkable"][field])
        for spec in walkable_matrices(at)
        for name, field in (("font", "font_px"), ("cell", "cell_px"), ("decimals", "decimals"))
    }
    return plotly | walked


def sizes_of(style: FigureStyle) -> set[tuple[str, int]]:
    """What :func:`drawn_sizes` finds when every chart is drawn in ``style``."""
    return {
        ("title", style.title_size),
        ("font", style.font_size),
        ("cell", style.cell_px),
        ("decimals", style.decimals),
    }


PRESENTED = sizes_of(PRESENTATION)
