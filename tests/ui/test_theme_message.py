"""ui.theme_message: each theme section of a run's first message is Streamlit's own, filled once."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from streamlit import config
from streamlit.proto.NewSession_pb2 import CustomThemeConfig
from streamlit.runtime import app_session

from ui import theme_message

#: The sections AppSession._create_new_session_message fills, in its order.
SECTIONS = (
    "theme",
    "theme.light",
    "theme.dark",
    "theme.sidebar",
    "theme.light.sidebar",
    "theme.dark.sidebar",
)
#: A theme that sets fields of every kind: plain, the base enum, a font with its source,
#: font faces, a list of colours, each sub-section.
THEME = {
    "theme.base": "dark",
    "theme.primaryColor": "#3b5ba9",
    "theme.font": "Inter:https://fonts.example/inter.css",
    "theme.fontFaces": [{"family": "Inter", "url": "https://fonts.example/inter.woff2"}],
    "theme.chartCategoricalColors": ["#112233", "#445566"],
    "theme.light.primaryColor": "#abcdef",
    "theme.dark.textColor": "#fafafa",
    "theme.sidebar.backgroundColor": "#101010",
    "theme.light.sidebar.textColor": "#202020",
    "theme.dark.sidebar.primaryColor": "#303030",
}


def streamlits_own() -> Callable[..., None]:
    populate = app_session._populate_theme_msg
    return getattr(populate, "__wrapped__", populate)


@pytest.fixture
def own_config(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A copy of the config for this test (restored after it), and no kept sections."""
    monkeypatch.setattr(config, "_config_options", copy.deepcopy(config.get_config_options()))
    theme_message.forget()
    yield
    theme_message.forget()


def filled(populate: Callable[..., None], section: str) -> CustomThemeConfig:
    msg = CustomThemeConfig()
    populate(msg, section)
    return msg


@pytest.mark.parametrize("theme", [{}, THEME], ids=["app's config", "every kind of field"])
def test_each_section_is_streamlits_own_on_every_run(
    own_config: None, theme: dict[str, Any]
) -> None:
    for key, value in theme.items():
        config.set_option(key, value)
    original = streamlits_own()
    kept = theme_message.kept(original)
    for section in SECTIONS:
        expected = filled(original, section)
        for _ in range(3):  # the first fills it, the next runs merge what was kept
            assert filled(kept, section) == expected
    if theme:
        assert filled(kept, "theme").primary_color == "#3b5ba9"
        assert filled(kept, "theme.dark.sidebar").primary_color == "#303030"


def test_a_section_is_read_from_the_config_once(own_config: None) -> None:
    calls: list[str] = []

    def counting(msg: CustomThemeConfig, section: str = "theme") -> None:
        calls.append(section)
        streamlits_own()(msg, section)

    kept = theme_message.kept(counting)
    for _ in range(5):
        for section in SECTIONS:
            filled(kept, section)
    assert sorted(calls) == sorted(SECTIONS)


def test_merging_into_the_new_message_keeps_what_it_already_holds(own_config: None) -> None:
    """Each section goes into its own part of one message: the top-level one first."""
    config.set_option("theme.primaryColor", "#3b5ba9")
    config.set_option("theme.sidebar.backgroundColor", "#101010")
    kept = theme_message.kept(streamlits_own())
    msg = CustomThemeConfig()
    kept(msg, "theme")
    kept(msg.sidebar, "theme.sidebar")
    kept(msg, "theme")  # again: nothing is lost or doubled
    assert msg.primary_color == "#3b5ba9"
    assert msg.sidebar.background_color == "#101010"


def test_a_new_parse_of_the_config_forgets_the_kept_sections(own_config: None) -> None:
    theme_message.install()
    kept = theme_message.kept(streamlits_own())
    filled(kept, "theme")
    assert theme_message._filled
    config.get_config_options(force_reparse=True)  # the module's hook, as a reload runs it
    assert not theme_message._filled


def test_streamlit_still_fills_the_theme_through_the_patched_name() -> None:
    """A Streamlit upgrade that fills the theme another way fails here (see docs/deploying)."""
    theme_message.install()
    source = inspect.getsource(app_session.AppSession._create_new_session_message)
    assert source.count("_populate_theme_msg(") == len(SECTIONS)
    assert app_session._populate_theme_msg.__wrapped__ is streamlits_own()
    assert sorted(f"theme.{part.value}" for part in config.CustomThemeCategories) == sorted(
        SECTIONS[1:]
    )
