"""Every run's first message carries the theme as the config says it, read once per process.

Streamlit 1.67 begins the messages of every script run with a ``new_session`` message and
fills its six theme sections (``theme``, ``theme.light``, ``theme.dark`` and their
sidebars) through ``_populate_theme_msg``, which reads each section by scanning every
config option (``config.get_options_for_section``). In a class of 100 followers that was
a fortieth of the server's time (a py-spy profile of benchmarks/class_lesson.py), for the
same answer on every run.

The theme does not change while the server runs: ``st.set_option`` sets ``client.*``
options only, and the server watches no files (.streamlit/config.toml). So each
section's message is filled once, kept, and merged into each new message, which is what
filling it did (it only sets fields). A new parse of the config (Streamlit's
``on_config_parsed``) forgets them. tests/ui/test_theme_message.py compares every
section with Streamlit's own.

These are Streamlit's internals (it is pinned, requirements.txt).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

_filled: dict[str, Any] = {}  #: section -> the theme message Streamlit filled for it
_lock = threading.Lock()


def forget() -> None:
    """Drop the kept sections (the config was parsed again)."""
    with _lock:
        _filled.clear()


def kept(original: Callable[..., None]) -> Callable[..., None]:
    """``original(msg, section)`` filling ``msg`` from the config, once per section."""

    @functools.wraps(original)
    def populate(msg: Any, section: str = "theme") -> None:
        with _lock:
            filled = _filled.get(section)
        if filled is None:
            filled = type(msg)()
            original(filled, section)
            with _lock:
                _filled[section] = filled
        msg.MergeFrom(filled)

    return populate


@functools.cache
def install() -> None:
    """Fill each theme section once per process (see the module doc)."""
    from streamlit import config
    from streamlit.runtime import app_session

    app_session._populate_theme_msg = kept(app_session._populate_theme_msg)  # type: ignore[attr-defined]
    config.on_config_parsed(forget, force_connect=True)
