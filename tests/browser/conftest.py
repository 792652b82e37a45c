"""Real-browser tests: Debian's Chromium driven by Playwright against `streamlit run`.

`make test` installs Chromium with apt when it is missing (as root). Without
it these tests are skipped on a developer's machine but *fail* when ``CI`` is
set, so CI can never pass without having run them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.local_server import CHROMIUM, CHROMIUM_ARGS, ROOT, running_server
from tests.browser.helpers import ARTIFACTS


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@contextlib.contextmanager
def serve_app(log_name: str = "streamlit-server.log") -> Iterator[str]:
    """Start `streamlit run app.py` on a free port; yield its base URL; stop it."""
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / log_name, "w") as log, running_server(ROOT / "app.py", log) as (_, url):
        yield url


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """Base URL of a real `streamlit run app.py` server shared by the test session."""
    with serve_app() as url:
        yield url


@pytest.fixture()
def fresh_app_url() -> Iterator[str]:
    """A new server that no browser has visited yet (for first-request behaviour)."""
    with serve_app("streamlit-fresh-server.log") as url:
        yield url


#: The last words of the tiny GPT-2's vocabulary: tokens that are markup (shown as text).
MARKUP_TOKENS = ("<b>bold</b>", "<br>", "*star*", "_under_", "$x$", "[js](javascript:alert(1))")


def save_markup_tokenizer(directory: Path, vocab_size: int) -> None:
    """A word-level ``tokenizer.json`` split at spaces: ``w1`` ... then :data:`MARKUP_TOKENS`."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    from tests.core.pretrained.tiny_checkpoints import word

    first = vocab_size - len(MARKUP_TOKENS)
    vocab = {word(i): i for i in range(first)}
    vocab |= {token: first + j for j, token in enumerate(MARKUP_TOKENS)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(directory / "tokenizer.json"))


@pytest.fixture(scope="session")
def decoder_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own whose ``ATTENTION_MODELS_DIR`` holds tiny random checkpoints:
    ``gpt2`` (its last words are :data:`MARKUP_TOKENS`), ``llama`` (grouped K/V heads,
    RoPE base 5000) and ``deep`` (a Llama of 30 layers × 9 heads), built here offline."""
    from tests.core.pretrained.test_families import CONFIGS
    from tests.core.pretrained.tiny_checkpoints import save_model
    from tests.views.test_pretrained_deep import DEEP_CONFIG

    root = tmp_path_factory.mktemp("models")
    for name in ("gpt2", "llama"):
        save_model(CONFIGS[name], root / name)
    save_model(DEEP_CONFIG, root / "deep")
    save_markup_tokenizer(root / "gpt2", CONFIGS["gpt2"].vocab_size)
    with contextlib.ExitStack() as server:
        # Only the server process gets the settings: it copies the environment at start.
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ATTENTION_MODELS_DIR", str(root))
            patch.setenv("ATTENTION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
            url = server.enter_context(serve_app("streamlit-decoder-server.log"))
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's Chromium (Playwright cannot download a browser here)."""
    if not Path(CHROMIUM).exists():
        message = f"Chromium not found at {CHROMIUM}; `make test` installs it with apt."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
