"""Read a GGUF file's header, checked: its metadata, its tensors' places, the file memory-mapped.

GGUF (llama.cpp's format; the spec is ``docs/gguf.md`` in ggml) is little-endian:

    magic "GGUF" · version (uint32, 2 or 3) · tensor count (uint64) · key/value count (uint64)
    key/value pairs: key (string), value type (uint32), value
    tensor infos: name (string), n_dims (uint32), dims (uint64 each, innermost first),
                  type (uint32), offset (uint64, from the start of the data)
    padding to ``general.alignment`` (32 by default), then the tensors' bytes

A string is a uint64 length and UTF-8 bytes; an array is its item type (uint32), its
length (uint64) and the items. Every count, length and offset is checked against the
bytes the file really has before it is used, so a truncated or lying file is refused
with a message instead of an exception, a huge allocation or a long loop. Nothing is
executed and nothing is copied: each tensor is a read-only view of the mapped file.

The ``gguf`` package's own ``GGUFReader`` reads the same fields, and the tests check
that both agree. It is not used here because it keeps every string of the metadata as
two NumPy arrays: a vocabulary of tens of thousands of tokens then costs more memory
than the model's own 4-bit weights, and a slow load (benchmarks/real_decoder.py
measures both readers).
The constants (value and tensor types, block sizes) and the dequantisation come from
the ``gguf`` package.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from attention_core.boundary.errors import InputError

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
MAX_DIMS = 4  #: ggml's GGML_MAX_DIMS

#: GGUF value type -> (struct format, size) of a scalar; 8 (string) and 9 (array) apart.
SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1),
    1: ("<b", 1),
    2: ("<H", 2),
    3: ("<h", 2),
    4: ("<I", 4),
    5: ("<i", 4),
    6: ("<f", 4),
    7: ("<?", 1),
    10: ("<Q", 8),
    11: ("<q", 8),
    12: ("<d", 8),
}
STRING, ARRAY = 8, 9
#: NumPy dtypes of numeric arrays, read in one go.
ARRAY_DTYPES = {kind: np.dtype(fmt) for kind, (fmt, _) in SCALARS.items()}

Metadata = dict[str, Any]


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor's bytes are: ``dims`` innermost first, as ggml writes them."""

    name: str
    dims: tuple[int, ...]  #: (ne0, ne1, ...): ne0 is the length of a row
    kind: int  #: the ggml type id (F32 = 0, F16 = 1, Q4_1 = 3 ...)
    start: int  #: byte offset in the file
    size: int  #: bytes

    @property
    def shape(self) -> tuple[int, ...]:
        """NumPy's order (outermost first): ``(rows, ne0)`` for a matrix."""
        return tuple(reversed(self.dims))


@dataclass(frozen=True)
class GGUFFile:
    """A GGUF file read: its metadata by key, its tensors by name, its bytes mapped."""

    path: Path
    version: int
    metadata: Metadata
    tensors: dict[str, TensorInfo]
    data: np.ndarray  #: (file bytes,) uint8, read-only memory map

    def bytes_of(self, info: TensorInfo) -> np.ndarray:
        """The tensor's bytes ``(size,)`` uint8, a view of the mapped file (read when used)."""
        return self.data[info.start : info.start + info.size]

    def read(self, info: TensorInfo) -> np.ndarray:
        """The tensor's bytes ``(size,)`` uint8, read into memory (the mapping stays untouched,
        so the file's pages are not kept as well as the copy)."""
        return np.fromfile(self.path, np.uint8, count=info.size, offset=info.start)


def _refuse(path: Path, why: str) -> InputError:
    return InputError(
        f"{path.name} is not a readable GGUF file ({why}). Download it again: it is damaged, "
        "incomplete or not a GGUF model."
    )


class _Cursor:
    """Reads the header forwards, refusing any read past the end of the file."""

    def __init__(self, path: Path, buffer: memoryview) -> None:
        self.path, self.buffer, self.at = path, buffer, 0

    def need(self, size: int, what: str) -> None:
        if size < 0 or self.at + size > len(self.buffer):
            raise _refuse(self.path, f"{what} runs past the end of the file")

    def scalar(self, kind: int, what: str) -> Any:
        fmt, size = SCALARS[kind]
        self.need(size, what)
        (value,) = struct.unpack_from(fmt, self.buffer, self.at)
        self.at += size
        return value

    def string(self, what: str) -> str:
        size = self.scalar(10, what)
        self.need(size, what)
        raw = bytes(self.buffer[self.at : self.at + size])
        self.at += size
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _refuse(self.path, f"{what} is not UTF-8 text") from error

    def array(self, key: str) -> list[str] | np.ndarray:
        kind = self.scalar(4, f"the type of {key}")
        length = self.scalar(10, f"the length of {key}")
        if kind == STRING:
            self.need(8 * length, f"the array {key}")  # each string has at least its length
            return [self.string(f"an item of {key}") for _ in range(length)]
        dtype = ARRAY_DTYPES.get(kind)
        if dtype is None:
            raise _refuse(self.path, f"the array {key} holds items of type {kind}")
        self.need(dtype.itemsize * length, f"the array {key}")
        items = np.frombuffer(self.buffer, dtype, length, self.at).copy()
        self.at += dtype.itemsize * length
        return items

    def value(self, kind: int, key: str) -> Any:
        if kind == STRING:
            return self.string(key)
        if kind == ARRAY:
            return self.array(key)
        if kind not in SCALARS:
            raise _refuse(self.path, f"{key} has the unknown value type {kind}")
        return self.scalar(kind, key)


def _metadata(cursor: _Cursor, count: int) -> Metadata:
    cursor.need(13 * count, "the key/value count")  # a pair takes at least 13 bytes
    metadata: Metadata = {}
    for _ in range(count):
        key = cursor.string("a metadata key")
        if key in metadata:
            raise _refuse(cursor.path, f"the key {key[:60]!r} appears twice")
        metadata[key] = cursor.value(cursor.scalar(4, f"the type of {key}"), key)
    return metadata


def _tensor_info(cursor: _Cursor) -> tuple[str, tuple[int, ...], int, int]:
    name = cursor.string("a tensor name")
    n_dims = cursor.scalar(4, f"the dimensions of {name}")
    if not 1 <= n_dims <= MAX_DIMS:
        raise _refuse(cursor.path, f"{name[:60]} has {n_dims} dimensions")
    dims = tuple(cursor.scalar(10, f"the shape of {name}") for _ in range(n_dims))
    return name, dims, cursor.scalar(4, f"the type of {name}"), cursor.scalar(10, name)


def _size(path: Path, name: str, dims: tuple[int, ...], kind: int) -> int:
    """Bytes of a tensor of ``dims`` and ggml type ``kind``; refuses impossible ones."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
    except (ValueError, KeyError) as error:
        raise _refuse(path, f"{name[:60]} has the unknown tensor type {kind}") from error
    if min(dims) < 1 or dims[0] % block:
        raise _refuse(path, f"{name[:60]} has the impossible shape {list(dims)}")
    return int(np.prod(dims, dtype=object)) // block * block_bytes


def _tensors(cursor: _Cursor, count: int, alignment: int, file_size: int) -> dict[str, TensorInfo]:
    cursor.need(33 * count, "the tensor count")  # a tensor info takes at least 33 bytes
    infos = [_tensor_info(cursor) for _ in range(count)]
    data_start = -(-cursor.at // alignment) * alignment
    tensors: dict[str, TensorInfo] = {}
    for name, dims, kind, offset in infos:
        size = _size(cursor.path, name, dims, kind)
        start = data_start + offset
        if offset % alignment or start + size > file_size:
            raise _refuse(cursor.path, f"the bytes of {name[:60]} lie outside the file")
        if name in tensors:
            raise _refuse(cursor.path, f"the tensor {name[:60]} appears twice")
        tensors[name] = TensorInfo(name, dims, kind, start, size)
    return tensors


def _alignment(path: Path, metadata: Metadata) -> int:
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if isinstance(alignment, bool) or not isinstance(alignment, int):
        raise _refuse(path, "general.alignment is not a whole number")
    if alignment < 1 or alignment & (alignment - 1):
        raise _refuse(path, f"general.alignment {alignment} is not a power of two")
    return alignment


def read_gguf(path: Path) -> GGUFFile:
    """Map ``path`` and read its header; :class:`InputError` for anything not a sound GGUF."""
    size = path.stat().st_size
    if size < 24:
        raise _refuse(path, "it is too short to hold a header")
    data = np.memmap(path, np.uint8, mode="r")  # (size,) never written
    cursor = _Cursor(path, memoryview(data))  # type: ignore[arg-type]  # a memmap is a buffer
    if bytes(cursor.buffer[:4]) != MAGIC:
        raise _refuse(path, "it does not start with the letters GGUF")
    cursor.at = 4
    version = cursor.scalar(4, "the version")
    if version not in VERSIONS:
        raise _refuse(path, f"it is version {version}; versions 2 and 3 are read")
    tensor_count = cursor.scalar(10, "the tensor count")
    metadata = _metadata(cursor, cursor.scalar(10, "the key/value count"))
    tensors = _tensors(cursor, tensor_count, _alignment(path, metadata), size)
    return GGUFFile(path, version, metadata, tensors, data)
