"""The tensors of a safetensors checkpoint (one file or shards), memory-mapped, never unpickled.

The format is documented by Hugging Face: an 8-byte little-endian header length, a
JSON header giving each tensor's ``dtype``, ``shape`` and byte range
(``data_offsets``, after the header), then the bytes. A sharded checkpoint adds
``model.safetensors.index.json``, whose ``weight_map`` names each tensor's file.
Each file is mapped once; a tensor is a view of its bytes, so nothing is read
until a row is used, and nothing is copied twice.

Half-precision tensors stay as stored and are widened to float32 when a layer is
used (:func:`widen`); a GGUF file's quantised matrices
(:mod:`attention_core.pretrained.quantised`) are dequantised by it too. NumPy has no
bfloat16, so a ``BF16`` tensor is mapped as
``uint16`` (its top 16 bits of a float32) and :func:`widen` shifts it back; no other
``uint16`` tensor is accepted, so in a :data:`Tensors` dict ``uint16`` means bfloat16.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.pretrained.quantised import Quantised, Repacked

WEIGHTS_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
#: Stored dtypes of weights, as NumPy dtypes (BF16: raw 16-bit words, see :func:`widen`).
DTYPES: dict[str, np.dtype] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
}
#: Other dtypes a checkpoint may store (buffers such as GPT-2's old causal-mask ``attn.bias``):
#: mapped so that nothing fails on them, never used as weights (:func:`expect` refuses them).
#: Dtypes NumPy cannot name (float8, unsigned 16-64 bit) are not mapped at all.
OTHER_DTYPES: dict[str, np.dtype] = {
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}
#: A header larger than this is not a model header (the safetensors library's own cap).
MAX_HEADER_BYTES = 100_000_000

#: A weight as stored: an array (a read-only view of a mapped file) or quantised blocks.
Stored = np.ndarray | Repacked | Quantised
#: Tensor name -> its stored weight.
Tensors = dict[str, Stored]


def _corrupt(path: Path, why: str) -> InputError:
    return InputError(
        f"{path.name} is not a readable safetensors file ({why}). Download it again: "
        "the file is damaged or incomplete."
    )


def read_header(path: Path) -> tuple[int, dict[str, dict]]:
    """The header's length and its entries (``__metadata__`` dropped); refuses a broken file."""
    size_on_disk = path.stat().st_size
    with path.open("rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        if size_on_disk < 8 or size > min(MAX_HEADER_BYTES, size_on_disk - 8):
            raise _corrupt(path, "its header length is impossible")
        try:
            header = json.loads(handle.read(size))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise _corrupt(path, "its header is not JSON") from error
    if not isinstance(header, dict):
        raise _corrupt(path, "its header is not a table of tensors")
    header.pop("__metadata__", None)
    return 8 + size, header


def _view(path: Path, data: np.ndarray, name: str, entry: dict) -> np.ndarray | None:
    """One tensor: its bytes in ``data`` (the file after the header) as a read-only array;
    None for a dtype NumPy cannot name.
    """
    stored = entry.get("dtype") if isinstance(entry, dict) else None
    dtype = DTYPES.get(str(stored)) or OTHER_DTYPES.get(str(stored))
    if dtype is None:
        return None
    try:
        shape = tuple(int(size) for size in entry["shape"])
        begin, end = (int(offset) for offset in entry["data_offsets"])
    except (KeyError, TypeError, ValueError) as error:
        raise _corrupt(path, f"the header entry of {name} is malformed") from error
    count = int(np.prod(shape, dtype=np.int64))
    if not 0 <= begin <= end <= data.size or end - begin != count * dtype.itemsize:
        raise _corrupt(path, f"the bytes of {name} do not fit the file")
    tensor = data[begin:end].view(dtype).reshape(shape)
    tensor.setflags(write=False)
    return tensor


def map_file(path: Path) -> Tensors:
    """Every tensor of one ``.safetensors`` file, mapped once (``mode="r"``: never written)."""
    start, header = read_header(path)
    try:
        data = np.memmap(path, np.uint8, mode="r", offset=start)  # (bytes,)
    except ValueError as error:  # nothing after the header
        raise _corrupt(path, "it holds no tensor data") from error
    views = {name: _view(path, data, name, entry) for name, entry in header.items()}
    return {name: view for name, view in views.items() if view is not None}


def _shards(directory: Path) -> list[Path]:
    """The files holding the weights: ``model.safetensors`` or the index's shards."""
    if (directory / WEIGHTS_FILE).is_file():
        return [directory / WEIGHTS_FILE]
    index = directory / INDEX_FILE
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
            names = sorted(set(weight_map.values()))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise InputError(f"{INDEX_FILE} is damaged: it has no weight_map.") from error
        if any(Path(name).name != name for name in names):
            raise InputError(f"{INDEX_FILE} names a shard outside the folder; it is refused.")
        missing = [name for name in names if not (directory / name).is_file()]
        if missing:
            raise InputError(f"The shard {missing[0]} named in {INDEX_FILE} is missing.")
        return [directory / name for name in names]
    if any(directory.glob("*.bin")) or any(directory.glob("*.pt*")):
        raise InputError(
            f"{directory.name} holds PyTorch pickle weights (.bin) only. The app reads "
            f"safetensors only ({WEIGHTS_FILE}), because unpickling a file can run any code. "
            "Choose a repository that has model.safetensors."
        )
    raise InputError(f"{directory.name} has no {WEIGHTS_FILE} (nor {INDEX_FILE}).")


def open_tensors(directory: Path) -> Tensors:
    """Every tensor of the checkpoint in ``directory`` by name, from one file or its shards."""
    tensors: Tensors = {}
    for path in _shards(directory):
        tensors.update(map_file(path))
    return tensors


def widen(stored: Stored) -> np.ndarray:
    """``stored`` as float32: float32 as it is (no copy), float16 cast, bfloat16 shifted,
    quantised blocks dequantised.

    bfloat16 is the top half of a float32, so ``word << 16`` read as float32 is its value.
    """
    if isinstance(stored, Repacked | Quantised):
        return stored.widen()
    if stored.dtype == np.uint16:
        return (stored.astype(np.uint32) << 16).view(np.float32)
    return stored.astype(np.float32, copy=False)


def without_prefix(tensors: Tensors, prefix: str) -> Tensors:
    """Names without ``prefix`` ("transformer.", "model."), as checkpoints save it or not."""
    return {name.removeprefix(prefix): tensor for name, tensor in tensors.items()}


def expect(tensors: Tensors, name: str, shape: tuple[int, ...]) -> Stored:
    """The tensor ``name``, refused unless it is there with the ``shape`` config.json implies."""
    tensor = tensors.get(name)
    if tensor is None:
        raise InputError(
            f"The weights have no tensor {name!r}: they do not match config.json's model."
        )
    if isinstance(tensor, np.ndarray) and tensor.dtype not in DTYPES.values():
        raise InputError(
            f"{name} is stored as {tensor.dtype}; the app reads weights stored as "
            "float32, float16, bfloat16 or in GGUF's quantised formats only."
        )
    if tensor.shape != shape:
        raise InputError(
            f"{name} has shape {tensor.shape}, but the model's configuration implies {shape}: "
            "the weights do not match the configuration."
        )
    return tensor
