"""The catalogue: pinned, well-formed entries that only ever name safe files."""

from __future__ import annotations

import pytest

from hosting.models.catalogue import (
    BUNDLED,
    CATALOGUE,
    COMMIT_ID,
    FAMILIES,
    HUB_ENTRIES,
    REPO_ID,
    CatalogueEntry,
    is_fetchable,
)
from hosting.models.settings import DEFAULT_MAX_MB


def test_the_bundled_encoder_comes_first_and_needs_no_download() -> None:
    assert CATALOGUE[0] is BUNDLED
    assert (BUNDLED.source, BUNDLED.family, BUNDLED.revision) == ("bundled", "bert", None)


def test_the_hub_offers_a_gpt2_and_a_llama_family_model() -> None:
    assert {entry.family for entry in HUB_ENTRIES.values()} == {"gpt2", "llama"}
    assert set(HUB_ENTRIES) == {"distilbert/distilgpt2", "HuggingFaceTB/SmolLM2-135M"}


@pytest.mark.parametrize("entry", list(HUB_ENTRIES.values()), ids=list(HUB_ENTRIES))
def test_every_hub_entry_is_pinned_and_well_formed(entry: CatalogueEntry) -> None:
    assert REPO_ID.fullmatch(entry.repo_id)
    assert entry.revision is not None and COMMIT_ID.fullmatch(entry.revision)
    assert entry.family in FAMILIES
    assert entry.files == ("config.json", "model.safetensors", "tokenizer.json")
    assert entry.parameters > 0
    assert 0 < entry.size_mb <= DEFAULT_MAX_MB


def test_published_sizes_are_recorded() -> None:
    assert HUB_ENTRIES["distilbert/distilgpt2"].size_mb == 353.0
    assert HUB_ENTRIES["HuggingFaceTB/SmolLM2-135M"].size_mb == 269.0


@pytest.mark.parametrize(
    ("name", "fetchable"),
    [
        ("config.json", True),
        ("tokenizer.json", True),
        ("model.safetensors", True),
        ("model.safetensors.index.json", True),
        ("model-00001-of-00002.safetensors", True),
        ("pytorch_model.bin", False),
        ("model.pt", False),
        ("training_args.pth", False),
        ("modeling_custom.py", False),
        ("onnx/model.safetensors", False),
        ("../model.safetensors", False),
        ("tokenizer_config.json", False),
    ],
)
def test_only_safetensors_config_and_tokenizer_are_fetchable(name: str, fetchable: bool) -> None:
    assert is_fetchable(name) is fetchable


def _entry(**changes: object) -> CatalogueEntry:
    fields: dict[str, object] = {
        "repo_id": "owner/model",
        "label": "a model",
        "source": "hub",
        "family": "gpt2",
        "revision": "a" * 40,
        "parameters": 10,
        "size_mb": 1.0,
        "files": ("config.json", "model.safetensors", "tokenizer.json"),
    }
    return CatalogueEntry(**(fields | changes))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"revision": "main"}, "is not a 40-hex commit id"),
        ({"revision": None}, "is not a 40-hex commit id"),
        ({"repo_id": "no-owner"}, "is not an owner/name repository id"),
        ({"family": "t5"}, "is not one of"),
        ({"files": ("config.json", "pytorch_model.bin", "tokenizer.json")}, "are not safetensors"),
        ({"files": ("config.json", "model.safetensors")}, "needs config.json and tokenizer.json"),
    ],
    ids=["branch", "no revision", "repo id", "family", "pickle", "no tokenizer"],
)
def test_a_malformed_entry_is_refused(changes: dict[str, object], complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        _entry(**changes)


def test_a_well_formed_entry_is_accepted() -> None:
    assert _entry().revision == "a" * 40
