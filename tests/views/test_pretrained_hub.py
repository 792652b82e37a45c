"""The pretrained page's Hub path (AppTest), against a loopback server that answers like the Hub.

The server (tests/hosting/models/fake_hub.py) serves a real tiny random GPT-2 checkpoint
under distilgpt2's repository id and pinned commit, so ``huggingface_hub``'s real client
downloads it when the page's button is pressed, and the page runs it. The page reaches the
server through the ``ATTENTION_HUB_ENDPOINT`` setting; the cache is ``ATTENTION_DATA_DIR``/hub.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from huggingface_hub import constants
from streamlit.testing.v1 import AppTest

from hosting.models.catalogue import DISTILGPT2
from tests.core.pretrained.test_families import CONFIGS
from tests.core.pretrained.tiny_checkpoints import save_model
from tests.hosting.models import fake_hub as fakes
from tests.hosting.models.fake_hub import FakeHub, repo_from_folder
from tests.views.pretrained_pages import fresh_model_menu, markdown, page, unescaped

REPO = DISTILGPT2.repo_id
TEXT = "w1 w2 w3 w4 w5 w1 w2 w3 w4"
FILES = ["config.json", "model.safetensors", "tokenizer.json"]
UNREACHABLE = (
    "This server cannot reach the Hugging Face Hub, so distilbert/distilgpt2 cannot be "
    "downloaded. The bundled model still works."
)

fake_hub = fakes.fake_hub  # the fixture, shared with tests/hosting/models


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random GPT-2 (3 layers x 4 heads, 32 numbers per token) saved as the Hub serves it."""
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    save_model(CONFIGS["gpt2"], folder)
    return folder


@pytest.fixture
def data_dir(tmp_path: Path, fake_hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The page's settings: distilgpt2 offered from the fake Hub, a fresh cache, online."""
    monkeypatch.setenv("ATTENTION_HUB_MODELS", REPO)
    monkeypatch.setenv("ATTENTION_HUB_ENDPOINT", fake_hub.endpoint)
    monkeypatch.setenv("ATTENTION_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ATTENTION_MODELS_DIR", raising=False)
    monkeypatch.delenv("ATTENTION_MODEL_MAX_MB", raising=False)
    # tiny_checkpoints sets HF_HUB_OFFLINE before transformers loads the Hub client.
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    fresh_model_menu()
    yield tmp_path
    fresh_model_menu()


def download(at: AppTest) -> AppTest:
    at.button(key="model_download").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def model_loaded(at: AppTest) -> bool:
    """Whether the page ran a model: its layer control is drawn only then."""
    return "layer" in [box.key for box in at.selectbox]


def cached_files(data_dir: Path) -> dict[str, bytes]:
    """Every file in the page's Hub cache (blobs, snapshot links, unfinished downloads)."""
    cache = data_dir / "hub"
    files = [path for path in cache.rglob("*") if path.is_file()] if cache.exists() else []
    return {str(path.relative_to(cache)): path.read_bytes() for path in files}


def test_a_hub_model_not_downloaded_shows_its_size_and_a_button_and_loads_nothing(
    data_dir: Path, fake_hub: FakeHub
) -> None:
    assert page().selectbox(key="model").options == ["all-MiniLM-L6-v2", REPO]
    at = page(model=REPO)
    assert unescaped(at.info[0].value) == (
        "distilbert/distilgpt2 is not on this server yet. It is 353 MB from the Hugging Face "
        "Hub, downloaded once for everybody."
    )
    assert at.button(key="model_download").label == "Download distilbert/distilgpt2"
    assert not model_loaded(at)
    assert fake_hub.requests == []  # nothing is asked of the Hub before the button
    assert cached_files(data_dir) == {}


def test_download_runs_the_model_and_the_next_visit_finds_it_without_asking_the_hub(
    data_dir: Path, fake_hub: FakeHub, tiny_gpt2: Path
) -> None:
    fake_hub.add(repo_from_folder(REPO, str(DISTILGPT2.revision), tiny_gpt2))
    at = download(page(model=REPO, text=TEXT))
    assert "**distilbert/distilgpt2**, a GPT-2 decoder" in unescaped(markdown(at))  # not a commit
    assert "3 layers × 4 heads" in unescaped(markdown(at))
    assert model_loaded(at) and not at.error
    total = sum((tiny_gpt2 / name).stat().st_size for name in FILES)
    bar = at.get("progress")[0].proto
    assert bar.value == 100
    assert bar.text == f"{total / 1e6:.1f} of {total / 1e6:.1f} MB"  # 0.2 MB: ~190 kB
    fetched = sorted({path.rsplit("/", 1)[1] for path in fake_hub.resolved()})
    assert fetched == FILES  # only the checkpoint's files, not generation_config.json
    asked = len(fake_hub.requests)

    again = page(model=REPO, text=TEXT)
    assert "a GPT-2 decoder" in markdown(again) and model_loaded(again)
    assert "model_download" not in [button.key for button in again.button]
    assert len(fake_hub.requests) == asked
    snapshot = data_dir / "hub" / "models--distilbert--distilgpt2" / "snapshots"
    for name in FILES:
        cached = snapshot / str(DISTILGPT2.revision) / name
        assert cached.read_bytes() == (tiny_gpt2 / name).read_bytes()


def test_a_corrupted_weights_file_is_refused_with_a_message_and_not_kept(
    data_dir: Path, fake_hub: FakeHub, tiny_gpt2: Path
) -> None:
    fake_hub.add(
        repo_from_folder(
            REPO, str(DISTILGPT2.revision), tiny_gpt2, corrupt=frozenset({"model.safetensors"})
        )
    )
    at = download(page(model=REPO, text=TEXT))
    assert [unescaped(error.value) for error in at.error] == [
        "The downloaded model.safetensors of distilbert/distilgpt2 does not match the Hub's "
        "checksum, so it was deleted. Try again later; the bundled model still works."
    ]
    assert not model_loaded(at)
    assert at.button(key="model_download")  # the student can try again
    # Files come in the catalogue's order: config.json arrived whole and stays; the weights'
    # blob was deleted, and tokenizer.json was never asked for.
    in_repo = {name: data for name, data in cached_files(data_dir).items() if "models--" in name}
    config = (tiny_gpt2 / "config.json").read_bytes()
    assert {data for data in in_repo.values() if data} == {config}  # the rest: empty lock files
    assert not any(name.endswith(("model.safetensors", ".incomplete")) for name in in_repo)


@pytest.mark.parametrize("how", ["HF_HUB_OFFLINE=1", "server stopped"])
def test_offline_the_page_says_so_and_the_bundled_model_still_runs(
    data_dir: Path, fake_hub: FakeHub, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "server stopped":
        fake_hub.stop()
    else:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = download(page(model=REPO, text=TEXT))
    assert [unescaped(error.value) for error in at.error] == [UNREACHABLE]
    assert not model_loaded(at)
    at.selectbox(key="model").set_value("all-MiniLM-L6-v2").run()
    assert not at.exception and not at.error
    assert "BERT-style encoder" in unescaped(markdown(at)) and model_loaded(at)


def test_a_model_over_the_size_cap_is_not_offered_and_a_warning_names_the_cap(
    data_dir: Path, fake_hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTENTION_MODEL_MAX_MB", "1")
    at = page(model=REPO)
    assert "model" not in [box.key for box in at.selectbox]  # only the bundled model is left
    assert [unescaped(warning.value) for warning in at.warning] == [
        "distilbert/distilgpt2 (353 MB) is larger than the 1 MB cap (ATTENTION_MODEL_MAX_MB), "
        "so it is not offered."
    ]
    assert "BERT-style encoder" in unescaped(markdown(at))
    assert fake_hub.requests == []


def test_a_bad_hub_endpoint_setting_is_a_warning(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTENTION_HUB_ENDPOINT", "ftp://mirror.example")
    at = page()
    assert [unescaped(warning.value) for warning in at.warning] == [
        "ATTENTION_HUB_ENDPOINT must be an http(s) address such as https://huggingface.co, "
        "not 'ftp://mirror.example'; downloads use the default Hub address."
    ]
    assert at.selectbox(key="model").options == ["all-MiniLM-L6-v2", REPO]


def test_progress_reported_from_another_thread_reaches_the_bar(
    data_dir: Path, tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Xet transfers report progress from their own threads, not the page's."""
    from hosting.models import hub

    def download_elsewhere(entry, cache_dir, progress, **settings) -> Path:
        worker = threading.Thread(target=progress, args=(50, 100))
        worker.start()
        worker.join()
        return tiny_gpt2

    monkeypatch.setattr(hub, "download", download_elsewhere)
    at = download(page(model=REPO, text=TEXT))
    assert at.get("progress")[0].proto.value == 50
    assert model_loaded(at)
