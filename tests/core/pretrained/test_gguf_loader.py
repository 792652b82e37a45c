"""Our GGUF loader on tiny files llama.cpp's converter would write (``gguf_files``): llama
(tied and untied), qwen2 and gpt2, in every quantisation, equal to transformers reading the
same file, and to the torch model they came from; the tokenizer built from the metadata
equals the one the file was written from.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported

from pathlib import Path

import numpy as np
import pytest
import torch
import transformers

from attention_core.pretrained import Checkpoint, load_checkpoint
from tests.core.pretrained.gguf_files import QTYPES, WrittenGguf, write_gguf
from tests.core.pretrained.gguf_tiny_models import tiny_checkpoint

ARCHITECTURES = (("llama", False), ("llama", True), ("qwen2", None), ("gpt2", None))
#: Every quantisation on llama; two on the others (as gguf_files' own tests do).
CASES = [("llama", False, qtype) for qtype in QTYPES] + [
    (arch, tied, qtype)
    for arch, tied in ARCHITECTURES[1:]
    for qtype in ("F32", "Q8_0", "Q4_K", "Q4_1")
]
TEXTS = (
    "hello world",
    "The cat's 12 dogs sat: on the mat!\nNew\tline — 東京 <|endoftext|>",
    "the the the the the the the the the the",
)


def _write(tmp_path_factory: pytest.TempPathFactory, arch: str, tied: bool | None, qtype: str):
    tiny = tiny_checkpoint(arch, tied)
    folder = tmp_path_factory.mktemp(f"{arch}-{tied}-{qtype}")
    written = write_gguf(folder / "tiny.gguf", tiny.model, tiny.tokenizer, qtype, tiny.pre)
    return tiny, written


def _reference(written: WrittenGguf) -> transformers.PreTrainedModel:
    return transformers.AutoModelForCausalLM.from_pretrained(
        written.path.parent,
        gguf_file=written.path.name,
        attn_implementation="eager",
        dtype=torch.float32,
    ).eval()


def _same_forward(ours: Checkpoint, reference: transformers.PreTrainedModel, text: str) -> None:
    tokens = ours.tokenize(text)
    trace = ours.forward(tokens.ids)
    with torch.no_grad():
        expected = reference(torch.tensor(tokens.ids)[None], output_attentions=True)
    for layer, attention in zip(trace.layers, expected.attentions, strict=True):
        np.testing.assert_allclose(layer.heads.weights, attention[0].numpy(), atol=1e-5)
    logits = expected.logits[0].numpy()
    assert trace.logits is not None
    assert np.abs(trace.logits - logits).max() <= 1e-5 * max(1.0, np.abs(logits).max())
    np.testing.assert_array_equal(trace.logits.argmax(axis=1), logits.argmax(axis=1))


@pytest.mark.parametrize(("arch", "tied", "qtype"), CASES)
def test_our_forward_equals_transformers_reading_the_same_file(
    tmp_path_factory: pytest.TempPathFactory, arch: str, tied: bool | None, qtype: str
) -> None:
    _, written = _write(tmp_path_factory, arch, tied, qtype)
    ours, reference = load_checkpoint(written.path), _reference(written)
    assert ours.info.family == ("gpt2" if arch == "gpt2" else "llama")
    assert ours.info.model_type == arch
    for text in TEXTS[:2]:
        _same_forward(ours, reference, text)


@pytest.mark.parametrize(("arch", "tied"), ARCHITECTURES)
def test_a_float32_file_gives_the_source_models_numbers(
    tmp_path_factory: pytest.TempPathFactory, arch: str, tied: bool | None
) -> None:
    tiny, written = _write(tmp_path_factory, arch, tied, "F32")
    ours = load_checkpoint(written.path)
    tokens = ours.tokenize(TEXTS[1])
    with torch.no_grad():
        logits = tiny.model(torch.tensor(tokens.ids)[None]).logits[0].numpy()
    trace = ours.forward(tokens.ids)
    assert trace.logits is not None
    assert np.abs(trace.logits - logits).max() <= 1e-4 * np.abs(logits).max()


@pytest.mark.parametrize(("arch", "tied"), ARCHITECTURES)
def test_the_tokenizer_from_the_metadata_equals_the_source_tokenizer(
    tmp_path_factory: pytest.TempPathFactory, arch: str, tied: bool | None
) -> None:
    tiny, written = _write(tmp_path_factory, arch, tied, "F32")
    ours = load_checkpoint(written.path)
    for text in TEXTS:
        expected = tiny.tokenizer.encode(text)
        got = ours.tokenizer.whole.encode(text)
        assert got.ids == expected.ids, text
        assert got.tokens == expected.tokens


def test_a_folder_holding_one_gguf_file_loads_it(tmp_path_factory: pytest.TempPathFactory) -> None:
    _, written = _write(tmp_path_factory, "qwen2", None, "Q8_0")
    assert load_checkpoint(written.path.parent).info == load_checkpoint(written.path).info


def test_a_folder_holding_two_gguf_files_is_refused(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    from attention_core import InputError

    _, written = _write(tmp_path_factory, "gpt2", None, "F32")
    for name in ("a.gguf", "b.gguf"):
        (tmp_path / name).write_bytes(written.path.read_bytes())
    with pytest.raises(InputError, match="holds 2 GGUF files"):
        load_checkpoint(tmp_path)
