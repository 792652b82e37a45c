"""Selecting a cell of a walkable matrix of the pretrained page in AppTest, and reading "This
cell": what the walkable matrix sends, the sentence it says, the lines written beside it."""

from __future__ import annotations

import re

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.plotly_specs import walkable_matrices
from ui.shared.safe import unescape_markdown
from ui.shared.walkable_data import cell_announcement, values_of

#: The last number of an explanation's last line: the entry it computed ("… = 0.123.").
LAST_NUMBER = re.compile(r"(−?\d+\.\d+)\.$")


def select(at: AppTest, walk_key: str, cell: tuple[int, int]) -> AppTest:
    """``cell`` of the walkable matrix kept under ``walk_key`` selected (as Enter does), rerun."""
    at.session_state[walk_key] = {"cell": {"row": cell[0], "col": cell[1]}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def select_panel(at: AppTest, key: str, panel: int, cell: tuple[int, int]) -> AppTest:
    """``cell`` of panel ``panel`` of the grid drawn under ``key`` selected: "Walk a matrix cell
    by cell" opened, the panel picked and the cell selected at once (one rerun)."""
    at.session_state[f"walkpanel_{key}"] = True
    at.session_state[f"walkpick_{key}"] = panel
    return select(at, f"walk_{key}_{panel}", cell)


def walkable(at: AppTest, title: str) -> dict:
    """The data of the one walkable matrix titled ``title``."""
    (data,) = [s["walkable"] for s in walkable_matrices(at) if s["walkable"]["title"] == title]
    return data


def shown_lines(at: AppTest) -> list[str]:
    """Every Markdown block of the run, as read (user text unescaped)."""
    return [unescape_markdown(block.value) for block in at.markdown]


def entry(data: dict, cell: tuple[int, int]) -> float:
    """The matrix entry ``cell`` as the walkable matrix draws it (float32, NaN = masked)."""
    return float(values_of(data)[cell])


def assert_explained(at: AppTest, data: dict, cell: tuple[int, int], lines: tuple[str, ...]) -> str:
    """ "This cell" says ``cell`` of ``data`` as the browser does, then ``lines`` in order, the
    last of them ending on the matrix's entry to the explanation's 3 decimals; that number."""
    shown = shown_lines(at)
    said = cell_announcement(data, cell)
    assert said in shown
    start = shown.index(said) + 1
    assert shown[start : start + len(lines)] == list(lines)
    found = LAST_NUMBER.search(lines[-1])
    assert found, lines[-1]
    value = entry(data, cell)
    assert np.isfinite(value)
    assert found.group(1) == f"{value:.3f}".replace("-", "−")
    return found.group(1)
