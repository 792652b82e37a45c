"""Each walkable matrix carries a few lines that load the shared code, never the code itself."""

from __future__ import annotations

import tomllib
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.shared import walkable_matrix

ROOT = Path(__file__).resolve().parents[2]


def test_every_matrix_on_a_page_carries_the_loader_of_the_current_code() -> None:
    at = AppTest.from_file(str(ROOT / "views" / "text.py"), default_timeout=120)
    at.query_params.update({"text": "The cat sat on the mat.", "view": "4 Weights"})
    at.run()
    assert not at.exception
    mounts = [element.proto for element in at.get("bidi_component")]
    assert mounts
    code = walkable_matrix.CODE.read_text(encoding="utf-8")
    for mount in mounts:
        assert mount.js_content == walkable_matrix.LOADER
        assert mount.css_content == ""  # the code links static/walkable_matrix.css
        assert "export function render" not in mount.js_content
        assert len(mount.js_content) < len(code) // 20
    assert f"walkable_matrix.js?v={walkable_matrix.CODE_VERSION}" in walkable_matrix.LOADER


def test_the_server_serves_the_code_it_names() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["enableStaticServing"] is True
    assert walkable_matrix.CODE == ROOT / "static" / "walkable_matrix.js"
    code = walkable_matrix.CODE.read_text(encoding="utf-8")
    assert "export function render(component)" in code
    assert "walkable_matrix.css" in code and walkable_matrix.STYLE.exists()
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY --chown=app:app static ./static" in dockerfile
