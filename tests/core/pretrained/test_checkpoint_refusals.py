"""``load_checkpoint`` refuses, with a message that says what to do, what it cannot run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
import transformers

from attention_core.boundary.errors import InputError
from attention_core.pretrained import load_checkpoint
from tests.core.pretrained.tiny_checkpoints import VOCAB_SIZE, save_model, save_tokenizer

GPT2 = transformers.GPT2Config(
    vocab_size=VOCAB_SIZE, n_embd=16, n_head=2, n_layer=1, n_positions=130
)
LLAMA = transformers.LlamaConfig(
    vocab_size=VOCAB_SIZE, hidden_size=16, intermediate_size=24, num_hidden_layers=1,
    num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
)  # fmt: skip


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("saved")
    save_model(GPT2, root / "gpt2")
    save_model(LLAMA, root / "llama")
    return {"gpt2": root / "gpt2", "llama": root / "llama"}


def copy_of(saved: dict[str, Path], name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(saved[name], tmp_path / name))


def edit_config(folder: Path, **changes: object) -> None:
    path = folder / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_an_unsupported_family_is_refused_with_the_supported_list(tmp_path: Path) -> None:
    transformers.T5Config(vocab_size=VOCAB_SIZE, d_model=16).save_pretrained(tmp_path)
    with pytest.raises(InputError, match=r"'t5' is not supported.*gpt2.*llama.*qwen2.*mistral"):
        load_checkpoint(tmp_path)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"\x00" * 64,  # a header length of 0 and no JSON
        lambda data: data[:8] + b"{not json" + data[17:],
        lambda data: data[: len(data) // 2],  # cut off half way
        lambda data: (10**12).to_bytes(8, "little") + data[8:],
    ],
    ids=["zeros", "bad-json", "truncated", "huge-header"],
)
def test_a_damaged_safetensors_file_is_refused(saved: dict, tmp_path: Path, damage) -> None:
    folder = copy_of(saved, "gpt2", tmp_path)
    weights = folder / "model.safetensors"
    weights.write_bytes(damage(weights.read_bytes()))
    with pytest.raises(InputError, match="not a readable safetensors file"):
        load_checkpoint(folder)


def test_a_folder_with_only_pickle_weights_is_refused_without_opening_them(
    saved: dict, tmp_path: Path
) -> None:
    folder = copy_of(saved, "gpt2", tmp_path)
    (folder / "model.safetensors").unlink()
    torch.save({"wte.weight": torch.zeros(2, 2)}, folder / "pytorch_model.bin")
    with pytest.raises(InputError, match=r"pickle weights \(.bin\) only.*safetensors"):
        load_checkpoint(folder)


def test_weights_that_do_not_match_the_config_are_refused(saved: dict, tmp_path: Path) -> None:
    folder = copy_of(saved, "gpt2", tmp_path)
    edit_config(folder, n_embd=32)
    with pytest.raises(InputError, match=r"wte.weight has shape \(96, 16\).*implies \(96, 32\)"):
        load_checkpoint(folder)


def test_a_missing_tensor_is_refused(saved: dict, tmp_path: Path) -> None:
    folder = copy_of(saved, "gpt2", tmp_path)
    edit_config(folder, n_layer=2)
    with pytest.raises(InputError, match=r"no tensor 'h\.1\.ln_1\.weight'"):
        load_checkpoint(folder)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4}}, "linear"),
        ({"rope_scaling": {"type": "dynamic", "factor": 2.0}}, "dynamic"),
        ({"model_type": "mistral", "sliding_window": 64}, "sliding attention window of 64"),
        ({"model_type": "qwen2", "use_sliding_window": True, "sliding_window": 32}, "sliding"),
        ({"hidden_act": "gelu"}, "activation 'gelu'"),
        ({"num_key_value_heads": 3, "num_attention_heads": 2}, "3 K/V heads"),
    ],
)
def test_llama_settings_the_app_does_not_compute_are_refused(
    saved: dict, tmp_path: Path, changes: dict, message: str
) -> None:
    folder = copy_of(saved, "llama", tmp_path)
    edit_config(folder, **changes)
    with pytest.raises(InputError, match=message):
        load_checkpoint(folder)


def test_a_mistral_window_longer_than_any_input_is_accepted(saved: dict, tmp_path: Path) -> None:
    folder = copy_of(saved, "llama", tmp_path)
    edit_config(folder, model_type="mistral", sliding_window=4096)
    assert load_checkpoint(folder).info.model_type == "mistral"


@pytest.mark.parametrize(
    ("remove", "message"),
    [("config.json", "no config.json"), ("tokenizer.json", "no tokenizer.json")],
)
def test_a_missing_file_is_refused(saved: dict, tmp_path: Path, remove: str, message: str) -> None:
    folder = copy_of(saved, "llama", tmp_path)
    (folder / remove).unlink()
    with pytest.raises(InputError, match=message):
        load_checkpoint(folder)


def test_a_tokenizer_with_more_words_than_the_model_is_refused(saved: dict, tmp_path: Path) -> None:
    folder = copy_of(saved, "llama", tmp_path)
    save_tokenizer(folder, VOCAB_SIZE + 1)
    with pytest.raises(InputError, match="more tokens than the model's 96"):
        load_checkpoint(folder)


def test_a_path_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"neither a folder nor a \.gguf file"):
        load_checkpoint(tmp_path / "nowhere")


def test_a_shard_missing_from_a_sharded_checkpoint_is_refused(tmp_path: Path) -> None:
    save_model(LLAMA, tmp_path, max_shard_size="4KB")
    next(tmp_path.glob("model-00002-*.safetensors")).unlink()
    with pytest.raises(InputError, match=r"shard model-00002-.* is missing"):
        load_checkpoint(tmp_path)
