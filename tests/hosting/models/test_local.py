"""The local models folder: plain-named checkpoint subfolders that stay inside it."""

from __future__ import annotations

from pathlib import Path

from hosting.models.local import LocalCheckpoint, LocalListing, list_local


def make_checkpoint(folder: Path) -> Path:
    """A folder holding the three files a checkpoint needs (their content does not matter here)."""
    folder.mkdir(parents=True)
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (folder / name).write_bytes(b"{}")
    return folder


def test_each_complete_subfolder_is_a_checkpoint_named_like_its_folder(tmp_path: Path) -> None:
    make_checkpoint(tmp_path / "tiny-gpt2")
    make_checkpoint(tmp_path / "SmolLM2_135M.v1")
    assert list_local(tmp_path) == LocalListing(
        checkpoints=(
            LocalCheckpoint("SmolLM2_135M.v1", (tmp_path / "SmolLM2_135M.v1").resolve()),
            LocalCheckpoint("tiny-gpt2", (tmp_path / "tiny-gpt2").resolve()),
        ),
        refused=(),
    )


def test_sharded_weights_count_as_weights(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "sharded")
    (folder / "model.safetensors").rename(folder / "model.safetensors.index.json")
    assert [c.name for c in list_local(tmp_path).checkpoints] == ["sharded"]


def test_hidden_entries_and_stray_files_are_skipped(tmp_path: Path) -> None:
    make_checkpoint(tmp_path / ".cache")
    (tmp_path / "notes.txt").write_text("not a model")
    assert list_local(tmp_path) == LocalListing((), ())


def test_a_subfolder_linking_outside_the_folder_is_refused(tmp_path: Path) -> None:
    models, outside = tmp_path / "models", make_checkpoint(tmp_path / "elsewhere")
    models.mkdir()
    (models / "escape").symlink_to(outside, target_is_directory=True)
    assert list_local(models) == LocalListing((), ("escape points outside the models folder.",))


def test_a_file_linking_outside_the_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    models = tmp_path / "models"
    folder = make_checkpoint(models / "sneaky")
    (folder / "tokenizer.json").unlink()
    (folder / "tokenizer.json").symlink_to(secret)
    assert list_local(models).refused == (
        "sneaky: tokenizer.json point outside the models folder.",
    )
    assert list_local(models).checkpoints == ()


def test_a_link_that_stays_inside_the_folder_is_accepted(tmp_path: Path) -> None:
    real = make_checkpoint(tmp_path / "gpt2-tiny")
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    names = [(c.name, c.path) for c in list_local(tmp_path).checkpoints]
    assert names == [("alias", real.resolve()), ("gpt2-tiny", real.resolve())]


def test_a_symlink_loop_is_refused_not_raised(tmp_path: Path) -> None:
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    assert list_local(tmp_path) == LocalListing(
        (),
        (
            "loop-a points outside the models folder.",
            "loop-b points outside the models folder.",
        ),
    )


def test_names_that_are_not_plain_are_refused(tmp_path: Path) -> None:
    make_checkpoint(tmp_path / "my model")
    make_checkpoint(tmp_path / "<b>bold")
    assert list_local(tmp_path).refused == (
        "'<b>bold' is not a plain folder name (letters, digits, . _ -).",
        "'my model' is not a plain folder name (letters, digits, . _ -).",
    )


def test_an_incomplete_checkpoint_says_what_it_lacks(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "half")
    (folder / "tokenizer.json").unlink()
    (folder / "model.safetensors").unlink()
    assert list_local(tmp_path).refused == ("half lacks tokenizer.json, model.safetensors.",)


def test_a_missing_folder_is_reported_not_raised(tmp_path: Path) -> None:
    assert list_local(tmp_path / "absent") == LocalListing(
        (), (f"The models folder {tmp_path / 'absent'} does not exist.",)
    )


def test_gguf_files_and_folders_holding_one_are_checkpoints(tmp_path: Path) -> None:
    (tmp_path / "SmolLM2.Q4_1.gguf").write_bytes(b"GGUF")
    (tmp_path / "qwen").mkdir()
    (tmp_path / "qwen" / "qwen2-0.5b.Q8_0.gguf").write_bytes(b"GGUF")
    assert list_local(tmp_path) == LocalListing(
        checkpoints=(
            LocalCheckpoint("SmolLM2.Q4_1", (tmp_path / "SmolLM2.Q4_1.gguf").resolve()),
            LocalCheckpoint("qwen", (tmp_path / "qwen").resolve()),
        ),
        refused=(),
    )


def test_a_folder_of_several_gguf_files_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "two").mkdir()
    for name in ("a.gguf", "b.gguf"):
        (tmp_path / "two" / name).write_bytes(b"GGUF")
    assert list_local(tmp_path) == LocalListing((), ("two holds several .gguf files: keep one.",))


def test_a_gguf_file_linking_outside_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.gguf"
    outside.write_bytes(b"GGUF")
    models = tmp_path / "models"
    models.mkdir()
    (models / "linked.gguf").symlink_to(outside)
    assert list_local(models).checkpoints == ()
    assert list_local(models).refused == ("linked.gguf points outside the models folder.",)
