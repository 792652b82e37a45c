r"""A user's file as text, safely: its size checked before reading, its encoding found.

The first step of :func:`~attention_core.timeseries.csv_reader.read_series`. Binary
files (images, workbooks, archives) are refused with a message that says what to do.
"""

from __future__ import annotations

import codecs
import os
import re
from pathlib import Path

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_UPLOAD_BYTES
from attention_core.timeseries.csv_layout import SNIFF_CHARS

_BOMS = (  # UTF-32 first: its little-endian BOM starts with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8 with BOM"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
_BINARY_SIGNATURES = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive or an Excel workbook (.xlsx)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls)"),
    (b"\x1f\x8b", "a gzip archive"),
)
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FIX_FILE = "Save it as a CSV file (UTF-8, comma or semicolon separated) and upload that."


def _megabytes(n_bytes: int) -> str:
    return f"{n_bytes / 1024 / 1024:.1f} MB"


def _too_big(n_bytes: int) -> InputError:
    return InputError(
        f"The file is larger than the limit of {_megabytes(MAX_UPLOAD_BYTES)} "
        f"({_megabytes(n_bytes)} or more). Upload fewer rows or columns, e.g. a shorter period."
    )


def read_bytes(source: object) -> bytes:
    """At most ``MAX_UPLOAD_BYTES + 1`` bytes from a path, bytes or a binary file object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            size = path.stat().st_size
            if size > MAX_UPLOAD_BYTES:
                raise _too_big(size)
            with path.open("rb") as handle:
                data = handle.read(MAX_UPLOAD_BYTES + 1)
        except OSError as error:
            raise InputError(
                f"The file {path.name!r} cannot be opened ({error.strerror})."
            ) from None
    elif hasattr(source, "read"):
        data = source.read(MAX_UPLOAD_BYTES + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        raise InputError("Give a file: a path, the file's bytes, or an open file.")
    if len(data) > MAX_UPLOAD_BYTES:
        raise _too_big(len(data))
    return data


def decode_text(data: bytes) -> tuple[str, str]:
    """The file's text and the name of its encoding; binary content is refused."""
    if not data.strip():
        raise InputError("The file is empty. Upload a CSV file with a header row and numbers.")
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), name
            except UnicodeDecodeError:
                raise InputError(
                    f"The file starts like {name} text but is not valid {name}. {_FIX_FILE}"
                ) from None
    for signature, kind in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise InputError(f"This is {kind}, not a text table. {_FIX_FILE}")
    if b"\x00" in data:
        raise InputError(
            "The file contains NUL bytes: it is binary, or text saved as UTF-16 without a "
            f"byte-order mark. {_FIX_FILE}"
        )
    try:
        text, name = data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        try:
            text, name = data.decode("cp1252"), "Windows-1252 (Latin-1)"
        except UnicodeDecodeError:  # Latin-1 decodes every byte
            text, name = data.decode("latin-1"), "Latin-1"
    if len(_CONTROL_CHARS.findall(text[:SNIFF_CHARS])) > 0.01 * min(len(text), SNIFF_CHARS):
        raise InputError(f"The file does not look like text (many control characters). {_FIX_FILE}")
    return text, name
