"""Loading refuses weights that are not the official file; the tokenizer never pads or overruns."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from attention_core import InputError
from attention_core.pretrained import loading


@pytest.fixture(scope="module")
def model() -> loading.PretrainedModel:
    return loading.load_model()


def test_the_installed_weights_are_the_official_file() -> None:
    path = loading.model_directory() / loading.WEIGHTS_FILE
    assert loading.sha256_of(path) == loading.WEIGHTS_SHA256


def test_a_corrupted_weights_file_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    source = loading.model_directory()
    for name in (loading.WEIGHTS_FILE, loading.CONFIG_FILE, loading.TOKENIZER_FILE):
        shutil.copy(source / name, tmp_path / name)
    with (tmp_path / loading.WEIGHTS_FILE).open("r+b") as handle:  # flip one byte of one weight
        handle.seek(-1000, 2)
        byte = handle.read(1)
        handle.seek(-1000, 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(InputError, match=r"not the official all-MiniLM-L6-v2.*Reinstall"):
        loading.load_model(tmp_path)


def test_a_missing_weights_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is missing"):
        loading.load_weights(tmp_path)


def test_the_weights_have_bert_minilm_shapes(model: loading.PretrainedModel) -> None:
    weights = model.weights
    assert (weights.n_layers, weights.n_heads, weights.d_model) == (6, 12, 384)
    assert weights.word.shape == (30522, 384)
    assert weights.layers[0].w_in.shape == (384, 1536)
    assert not weights.word.flags.writeable


def test_one_sentence_is_wrapped_in_cls_and_sep_without_padding(
    model: loading.PretrainedModel,
) -> None:
    encoded = loading.encode(model.tokenizer, "The animal didn't cross the street.")
    assert encoded.tokens == (
        "[CLS]", "the", "animal", "didn", "'", "t", "cross", "the", "street", ".", "[SEP]",
    )  # fmt: skip
    assert encoded.labels[7] == "the₂"
    assert encoded.ids[0] == 101 and encoded.ids[-1] == 102
    assert encoded.type_ids.tolist() == [0] * 11
    assert encoded.cut == 0


def test_a_pair_gets_sentence_b_type_ids(model: loading.PretrainedModel) -> None:
    encoded = loading.encode(model.tokenizer, "Is it?", "Yes.")
    assert encoded.tokens == ("[CLS]", "is", "it", "?", "[SEP]", "yes", ".", "[SEP]")
    assert encoded.type_ids.tolist() == [0, 0, 0, 0, 0, 1, 1, 1]


def test_long_input_is_cut_to_128_and_says_how_much(model: loading.PretrainedModel) -> None:
    encoded = loading.encode(model.tokenizer, "word " * 300)
    assert len(encoded) == 128
    assert encoded.cut == 302 - 128
    assert encoded.tokens[-1] == "[SEP]"


@pytest.mark.parametrize("text", ["", "   \n\t ", "\x00\x01\u200b\u202e"])
def test_empty_input_is_refused(model: loading.PretrainedModel, text: str) -> None:
    with pytest.raises(InputError, match="empty"):
        loading.encode(model.tokenizer, text)


def test_an_empty_second_sentence_is_refused(model: loading.PretrainedModel) -> None:
    with pytest.raises(InputError, match="second sentence is empty"):
        loading.encode(model.tokenizer, "Hello", " ")


def test_right_to_left_and_emoji_give_tokens(model: loading.PretrainedModel) -> None:
    encoded = loading.encode(model.tokenizer, "\u202bمرحبا\u202c 🙂")
    assert len(encoded) >= 3
    assert np.all(encoded.ids[1:-1] != 102)


def test_text_the_tokenizer_drops_entirely_is_refused(model: loading.PretrainedModel) -> None:
    # Combining accents alone: BERT's normaliser strips accents, leaving [CLS] [SEP].
    with pytest.raises(InputError, match="finds no tokens"):
        loading.encode(model.tokenizer, "\u0301\u0301")


def test_the_word_embeddings_are_mapped_from_the_file_and_equal_safetensors_reading(
    model: loading.PretrainedModel,
) -> None:
    """Mapped, not read: only the rows of the tokens a sentence uses come into memory."""
    from safetensors.numpy import load_file

    read = load_file(str(model.directory / loading.WEIGHTS_FILE))
    assert isinstance(model.weights.word, np.memmap)
    np.testing.assert_array_equal(model.weights.word, read[loading.MAPPED_TENSOR])
    np.testing.assert_array_equal(
        model.weights.layers[2].w_q, read["encoder.layer.2.attention.self.query.weight"].T
    )
    with pytest.raises(ValueError):
        model.weights.word[0, 0] = 1.0


def test_a_mapped_tensor_of_another_dtype_is_refused(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    save_file({"half": np.ones((2, 3), dtype=np.float16)}, str(tmp_path / "m.safetensors"))
    with pytest.raises(InputError, match="not float32"):
        loading.mapped_tensor(tmp_path / "m.safetensors", "half")
    save_file(
        {"rows": np.arange(6, dtype=np.float32).reshape(2, 3)}, str(tmp_path / "f.safetensors")
    )
    np.testing.assert_array_equal(
        loading.mapped_tensor(tmp_path / "f.safetensors", "rows"), [[0, 1, 2], [3, 4, 5]]
    )


def test_every_weight_refuses_a_write_and_transposed_weights_stay_views(
    model: loading.PretrainedModel,
) -> None:
    weights = model.weights
    layer = weights.layers[0]
    for array in (weights.word, weights.position, layer.w_q, layer.b_q, layer.ln1_gain):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.0
    assert layer.w_q.base is not None  # the stored (out, in) tensor, transposed without a copy
