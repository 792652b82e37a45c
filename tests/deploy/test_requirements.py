"""requirements.txt resolves with uv (Community Cloud's first installer) to the CPU torch.

pip installs the same file in every `make` target, so pip is checked by the
virtualenv itself. PyTorch's wheel page is unreachable from the development
machines and CI; there, the same torch wheel lies in the directory that pip's
own configuration names in PIP_FIND_LINKS, and the test points uv at it in its
place. Everything else resolves against PyPI as Community Cloud's would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TORCH_PAGE = "https://download.pytorch.org/whl/cpu/torch/"


def _requirement_lines() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent))
    assert found, "uv is in requirements-dev.txt; run `make test` to install it"
    return found


def test_no_extra_index_for_uv_to_prefer_over_pypi() -> None:
    options = [line.split()[0] for line in _requirement_lines() if line.startswith("-")]
    assert options == ["--find-links"]
    assert f"--find-links {TORCH_PAGE}" in _requirement_lines()


def test_uv_resolves_pinned_versions_and_the_cpu_torch(tmp_path: Path) -> None:
    text = (ROOT / "requirements.txt").read_text()
    local = os.environ.get("PIP_FIND_LINKS", "").split()
    if local:
        text = text.replace(TORCH_PAGE, local[0])
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(text)
    completed = subprocess.run(
        [
            _uv(),
            "pip",
            "compile",
            str(requirements),
            "--python-version",
            "3.11",
            "--python-platform",
            "x86_64-manylinux_2_28",
            "--no-header",
            "--quiet",
            "--no-config",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("UV_")},
    )
    assert completed.returncode == 0, completed.stderr
    resolved = {
        line.split("==")[0]: line.split("==")[1]
        for line in completed.stdout.splitlines()
        if "==" in line and not line.startswith(" ")
    }
    pins = dict(line.split("==") for line in _requirement_lines() if "==" in line)
    for name, version in pins.items():
        assert resolved[name] == version
    assert not [name for name in resolved if name.startswith("nvidia")]
