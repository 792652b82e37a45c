"""The classic public series a course uses: statsmodels' datasets, as the series reader's corpus.

The statsmodels wheel ships about forty CSV files under ``statsmodels/datasets/``
(sunspots, the Nile, Mauna Loa CO₂, US macro data, …). ``make test`` fetches them
first (``make series``: ``python -m harness.series_files``): pip downloads the
pinned wheel without its dependencies, and every ``statsmodels/datasets/**/*.csv``
in it is extracted into ``ATTENTION_DATA_DIR``/series (``data/series``, ignored by
git; kept when already there). Nothing of the wheel is committed. Without the files
the corpus tests fail, saying how to get them: a real corpus is part of every run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from hosting.settings import data_dir

STATSMODELS = "statsmodels==0.15.0"
DATASETS = "statsmodels/datasets/"
#: Written last, so that an interrupted extraction is done again, not kept.
COMPLETE = ".complete"


def series_dir() -> Path:
    """Where the corpus is kept: ``ATTENTION_DATA_DIR``/series."""
    return data_dir() / "series"


def _extract(wheel: Path, folder: Path) -> int:
    """Every CSV under ``statsmodels/datasets/`` in ``wheel`` into ``folder``; how many."""
    with zipfile.ZipFile(wheel) as archive:
        members = [
            name
            for name in archive.namelist()
            if name.startswith(DATASETS) and name.endswith(".csv")
        ]
        for name in members:
            archive.extract(name, folder)
    return len(members)


def _complete(folder: Path) -> bool:
    """Whether ``folder`` holds every CSV of the pinned wheel."""
    marker = folder / COMPLETE
    return marker.is_file() and marker.read_text(encoding="utf-8").strip() == STATSMODELS


def fetch(folder: Path) -> Path:
    """The corpus in ``folder`` (downloaded and extracted unless already there): its
    ``statsmodels/datasets`` folder."""
    datasets = folder / DATASETS
    if _complete(folder):
        return datasets
    with tempfile.TemporaryDirectory() as download:
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        subprocess.run([*pip, "--quiet", "--dest", download, STATSMODELS], check=True)
        (wheel,) = Path(download).glob("statsmodels-*.whl")
        shutil.rmtree(folder / "statsmodels", ignore_errors=True)
        count = _extract(wheel, folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COMPLETE).write_text(STATSMODELS + "\n", encoding="utf-8")
    print(f"{count} CSV files of {STATSMODELS} in {datasets}")
    return datasets


def real_series_dir() -> Path:
    """The folder of statsmodels' CSV files; the test fails (never skips) when it is missing."""
    import pytest  # here: `make series` runs this module without the test tools

    folder = series_dir()
    if not _complete(folder):
        pytest.fail(
            f"statsmodels' datasets are not in {folder}: `make test` fetches them "
            "(`make series`, python -m harness.series_files)."
        )
    return folder / DATASETS


if __name__ == "__main__":
    fetch(series_dir())
