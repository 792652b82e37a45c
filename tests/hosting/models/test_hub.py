"""Downloading from the Hub, through huggingface_hub's real client, against a loopback fake Hub.

The files are a few kB of stand-in bytes: these tests prove transport (progress,
cap, checksums, cache, offline), not the model's maths.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import constants

# Private, but it is the code that reports a Xet download's progress to our class.
from huggingface_hub.utils._xet_progress_reporting import XetDownloadProgressReporter

from harness.local_server import ROOT
from hosting.models.catalogue import BUNDLED, CatalogueEntry
from hosting.models.errors import ModelSourceError
from hosting.models.hub import _ByteCounter, cached_folder, download
from tests.hosting.models.fake_hub import FakeHub, FakeRepo, git_blob_id

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CONFIG = json.dumps({"model_type": "gpt2", "n_layer": 1}).encode()
WEIGHTS = bytes(range(256)) * 16  # 4,096 bytes
TOKENIZER = json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}}}).encode()
FILES = ("config.json", "model.safetensors", "tokenizer.json")
TOTAL = len(CONFIG) + len(WEIGHTS) + len(TOKENIZER)
OFFLINE = (
    "This server cannot reach the Hugging Face Hub, so tests/tiny-gpt2 cannot be downloaded. "
    "The bundled model still works."
)


def ignore_progress(done: int, total: int) -> None:
    """A progress callback for tests that do not look at progress."""


def tiny_entry(repo_id: str = "tests/tiny-gpt2", revision: str = COMMIT) -> CatalogueEntry:
    return CatalogueEntry(
        repo_id=repo_id,
        label="tiny GPT-2",
        source="hub",
        family="gpt2",
        revision=revision,
        parameters=1_000,
        size_mb=0.004,
        files=FILES,
    )


def tiny_repo(**extra_files: bytes) -> FakeRepo:
    """The tiny checkpoint as the Hub would hold it: the weights in LFS, the JSON in git."""
    files = {"config.json": CONFIG, "model.safetensors": WEIGHTS, "tokenizer.json": TOKENIZER}
    return FakeRepo("tests/tiny-gpt2", COMMIT, files | extra_files, lfs=frozenset(FILES[1:2]))


def test_download_lands_every_file_and_reports_bytes_up_to_the_total(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.add(tiny_repo())
    reports: list[tuple[int, int]] = []
    folder = download(
        tiny_entry(),
        tmp_path,
        lambda done, total: reports.append((done, total)),
        endpoint=fake_hub.endpoint,
    )
    assert sorted(path.name for path in folder.iterdir()) == sorted(FILES)
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS
    assert (folder / "config.json").read_bytes() == CONFIG
    assert folder.name == COMMIT
    assert reports == [
        (0, TOTAL),
        (len(CONFIG), TOTAL),
        (len(CONFIG) + len(WEIGHTS), TOTAL),
        (TOTAL, TOTAL),
    ]


def test_second_call_uses_the_cache_with_the_server_stopped(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.add(tiny_repo())
    first = download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    fake_hub.stop()
    requests_before = len(fake_hub.requests)
    assert download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint) == first
    assert len(fake_hub.requests) == requests_before


def test_the_cache_serves_a_downloaded_model_in_offline_mode(
    fake_hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hub.add(tiny_repo())
    first = download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint) == first


def test_size_cap_refuses_before_any_file_is_requested(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add(tiny_repo())
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, max_mb=0.004, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        f"tests/tiny-gpt2 is {TOTAL / 1000:.1f} kB, over this server's cap of 4.0 kB, "
        "so it is not downloaded."
    )
    assert fake_hub.resolved() == []
    assert cached_folder(tiny_entry(), tmp_path) is None


def test_a_corrupted_lfs_file_is_refused_and_not_left_in_the_cache(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    repo = fake_hub.add(tiny_repo())
    repo.corrupt.add("model.safetensors")
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        "The downloaded model.safetensors of tests/tiny-gpt2 does not match the Hub's checksum, "
        "so it was deleted. Try again later; the bundled model still works."
    )
    stored = tmp_path / "models--tests--tiny-gpt2"
    # config.json came first and stays; the weights' blob and its snapshot link are gone.
    assert sorted(path.name for path in (stored / "blobs").iterdir()) == [git_blob_id(CONFIG)]
    assert sorted(path.name for path in (stored / "snapshots" / COMMIT).iterdir()) == [
        "config.json"
    ]
    repo.corrupt.clear()  # the next attempt downloads the weights again, and succeeds
    folder = download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS


def test_a_corrupted_git_file_is_refused_by_its_blob_id(fake_hub: FakeHub, tmp_path: Path) -> None:
    repo = fake_hub.add(tiny_repo())
    repo.corrupt.add("config.json")
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value).startswith("The downloaded config.json of tests/tiny-gpt2 does not")
    assert list((tmp_path / "models--tests--tiny-gpt2" / "blobs").iterdir()) == []
    assert cached_folder(tiny_entry(), tmp_path) is None


def test_a_short_download_is_refused_and_leaves_no_partial_file(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    repo = fake_hub.add(tiny_repo())
    repo.short.add("model.safetensors")
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        "tests/tiny-gpt2 could not be downloaded completely or saved on this server. "
        "Try again later; the bundled model still works."
    )
    blobs = tmp_path / "models--tests--tiny-gpt2" / "blobs"
    assert sorted(path.name for path in blobs.iterdir()) == [git_blob_id(CONFIG)]


def test_a_hub_error_is_a_plain_message(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add(tiny_repo()).api_status = 503
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        "The Hugging Face Hub answered 503 for tests/tiny-gpt2. "
        "Try again later; the bundled model still works."
    )


def test_a_stopped_server_means_the_plain_offline_message(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.stop()
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == OFFLINE


def test_hf_hub_offline_refuses_without_a_request(
    fake_hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hub.add(tiny_repo())
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == OFFLINE
    assert fake_hub.requests == []


def test_offline_mode_set_when_the_client_loaded_gives_the_same_message(
    fake_hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hub.add(tiny_repo())
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == OFFLINE
    assert fake_hub.requests == []


@pytest.mark.parametrize(
    ("repo_id", "revision"),
    [("tests/no-such-model", COMMIT), ("tests/tiny-gpt2", "f" * 40)],
    ids=["unknown repository", "unknown revision"],
)
def test_a_missing_repository_or_revision_is_a_plain_message(
    fake_hub: FakeHub, tmp_path: Path, repo_id: str, revision: str
) -> None:
    fake_hub.add(tiny_repo())
    with pytest.raises(ModelSourceError) as refused:
        download(
            tiny_entry(repo_id, revision), tmp_path, ignore_progress, endpoint=fake_hub.endpoint
        )
    assert str(refused.value) == (
        f"The Hub has no {repo_id} at revision {revision}. The bundled model still works."
    )
    assert fake_hub.resolved() == []


def test_a_revision_without_the_tokenizer_is_refused_before_downloading(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    repo = fake_hub.add(tiny_repo())
    del repo.files["tokenizer.json"]
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        f"The Hub's tests/tiny-gpt2 at revision {COMMIT} does not hold tokenizer.json. "
        "The bundled model still works."
    )
    assert fake_hub.resolved() == []


@pytest.mark.parametrize("name", ["config.json", "model.safetensors"])
def test_a_file_listed_without_a_checksum_is_refused_before_downloading(
    fake_hub: FakeHub, tmp_path: Path, name: str
) -> None:
    repo = fake_hub.add(tiny_repo())
    repo.bare.add(name)
    with pytest.raises(ModelSourceError) as refused:
        download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    assert str(refused.value) == (
        f"The Hub lists no size or checksum for {name} of tests/tiny-gpt2, so it is not "
        "downloaded. The bundled model still works."
    )
    assert fake_hub.resolved() == []


def test_the_bundled_model_is_not_downloaded(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is bundled, not on the Hub"):
        download(BUNDLED, tmp_path, ignore_progress)


def test_pickles_and_code_are_never_requested_even_when_listed(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.add(tiny_repo(**{"pytorch_model.bin": b"pickle", "modeling_tiny.py": b"import os"}))
    folder = download(tiny_entry(), tmp_path, ignore_progress, endpoint=fake_hub.endpoint)
    asked = {path.rsplit("/", 1)[-1] for path in fake_hub.resolved()}
    assert asked == set(FILES)
    assert sorted(path.name for path in folder.iterdir()) == sorted(FILES)


def test_hf_endpoint_in_the_environment_points_the_client_at_a_mirror(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    """``HF_ENDPOINT`` is read when huggingface_hub is imported, so a fresh process proves it."""
    fake_hub.add(tiny_repo())
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from hosting.models.hub import download\n"
        "from tests.hosting.models.test_hub import tiny_entry, ignore_progress\n"
        "print(download(tiny_entry(), Path(sys.argv[1]), ignore_progress))\n"
    )
    environment = os.environ | {"HF_ENDPOINT": fake_hub.endpoint, "PYTHONPATH": str(ROOT)}
    environment.pop("HF_HUB_OFFLINE", None)
    finished = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        env=environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    folder = Path(finished.stdout.strip())
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS
    assert len(fake_hub.resolved()) == len(FILES) * 2  # a HEAD and a GET each


def test_xet_downloads_count_bytes_written_once_not_bytes_received_too() -> None:
    """The real Hub serves most weights through Xet, which a loopback server cannot imitate.

    Its progress reporter (``huggingface_hub``'s own) drives our progress class directly
    here, with the reports hf_xet sends: bytes written and bytes received, growing.
    """
    reports: list[tuple[int, int]] = []
    counter = _ByteCounter(1_000, lambda done, total: reports.append((done, total)))
    reporter = XetDownloadProgressReporter(
        reconstruction_desc="model.safetensors",
        total=1_000,
        log_level=logging.WARNING,
        tqdm_class=counter.bar_class(),
    )
    with reporter:
        for written, received in [(0, 300), (400, 600), (1_000, 900)]:
            reporter.update_progress(
                SimpleNamespace(
                    total_bytes_completed=written,
                    total_transfer_bytes_completed=received,
                    total_bytes_completion_rate=None,
                    total_transfer_bytes_completion_rate=None,
                    total_bytes=1_000,
                )
            )
    assert reports == [(0, 1_000), (400, 1_000), (1_000, 1_000)]
