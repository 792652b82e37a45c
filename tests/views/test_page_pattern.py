"""The pages share one pattern: controls read into one frozen state, sections drawn from it.

Each page keeps, in ``ui/<page>/state.py``, its ``URL_KEYS``, one frozen
``<Page>State`` and ``read_state()``; its script in ``views/`` only reads top to
bottom; and every widget binds to the link through ``ui.shared.url.BIND``.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = (
    "text",
    "time_series",
    "walkthrough",
    "positional_encoding",
    "pretrained",
    "learning",
    "classroom",
    "lessons",
)
#: Pages that bind no widget to the link: a lesson being written is not a view to share.
NO_LINK = ("lessons",)


@pytest.mark.parametrize("page", PAGES)
def test_each_page_has_url_keys_one_frozen_state_and_read_state(page: str) -> None:
    state = importlib.import_module(f"ui.{page}.state")
    assert state.URL_KEYS or page in NO_LINK
    assert callable(state.read_state)
    states = [
        value
        for value in vars(state).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == state.__name__
    ]
    assert len(states) == 1
    assert states[0].__name__.endswith("State")
    assert states[0].__dataclass_params__.frozen


@pytest.mark.parametrize("page", PAGES)
def test_each_page_script_is_a_short_table_of_contents(page: str) -> None:
    script = (ROOT / "views" / f"{page}.py").read_text(encoding="utf-8")
    assert len(script.splitlines()) < 60
    assert "read_state()" in script
    assert "@st.cache" not in script  # caches live in ui/<page>/, built once per process


@pytest.mark.parametrize("page", PAGES)
def test_a_page_prefix_is_defined_only_in_its_state_module(page: str) -> None:
    defined_in = [
        path.name
        for path in (ROOT / "ui" / page).glob("*.py")
        if re.search(r"^PREFIX\b.*=", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert defined_in in ([], ["state.py"])


def test_every_widget_binds_through_the_one_bind_constant() -> None:
    # every page script and every ui/ module, the shared controls included
    sources = [*(ROOT / "views").glob("*.py"), *(ROOT / "ui").rglob("*.py")]
    literal = [
        str(path.relative_to(ROOT))
        for path in sources
        if path != ROOT / "ui" / "shared" / "url.py"
        and re.search(r"bind\s*=\s*[\"']query-params", path.read_text(encoding="utf-8"))
    ]
    assert literal == []


def test_the_pattern_is_checked_for_every_page_script() -> None:
    scripts = {path.stem for path in (ROOT / "views").glob("*.py")} - {"__init__"}
    assert scripts == set(PAGES)
