"""A short lesson as one link parameter: compact JSON, zlib-compressed, base64url without padding.

No server keeps the lesson: the link carries it whole, so it opens on any server running
the app. ``read_lesson_link(lesson_link(lesson)) == lesson``, and a lesson whose parameter
would pass :data:`~attention_core.boundary.limits.MAX_LESSON_LINK_CHARS` is refused.
Unpacking stops at :data:`~attention_core.boundary.limits.MAX_LESSON_BYTES`, so a small
parameter that inflates to gigabytes (a zip bomb) allocates no more than a lesson file.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from typing import Final

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, lesson_data, read_lesson

LESSON_PARAM: Final = "lesson"  #: the link parameter that carries a lesson
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
DAMAGED = "The lesson in this link is damaged ({}); copy the whole link again."


def lesson_link(lesson: Lesson) -> str:
    """The value of :data:`LESSON_PARAM` that carries ``lesson``; InputError if too long."""
    compact = json.dumps(lesson_data(lesson), ensure_ascii=False, separators=(",", ":"))
    packed = zlib.compress(compact.encode("utf-8"), level=9)
    param = base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
    if len(param) > limits.MAX_LESSON_LINK_CHARS:
        raise InputError(
            f"This lesson is too long for a link ({len(param):,} characters packed; at most "
            f"{limits.MAX_LESSON_LINK_CHARS:,}). Share it as a file instead."
        )
    return param


def read_lesson_link(param: str) -> Lesson:
    """The lesson a link's :data:`LESSON_PARAM` carries, or one :class:`InputError`."""
    if len(param) > limits.MAX_LESSON_LINK_CHARS:
        raise InputError(
            f"This link's lesson is {len(param):,} characters long; at most "
            f"{limits.MAX_LESSON_LINK_CHARS:,} are read. Share the lesson as a file instead."
        )
    if not _BASE64URL.fullmatch(param) or len(param) % 4 == 1:
        raise InputError(DAMAGED.format("it is not base64url"))
    try:
        packed = base64.urlsafe_b64decode(param + "=" * (-len(param) % 4))
    except (binascii.Error, ValueError):
        raise InputError(DAMAGED.format("it is not base64url")) from None
    return read_lesson(_unpack(packed))


def _unpack(packed: bytes) -> bytes:
    """``packed`` inflated, never past ``MAX_LESSON_BYTES`` (one byte more tells it is over)."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, limits.MAX_LESSON_BYTES + 1)
    except zlib.error:
        raise InputError(DAMAGED.format("it does not unpack")) from None
    if len(data) > limits.MAX_LESSON_BYTES or inflater.unconsumed_tail:
        raise InputError(
            f"The lesson in this link unpacks to more than {limits.MAX_LESSON_BYTES:,} bytes; "
            "no lesson is that long."
        )
    if not inflater.eof:
        raise InputError(DAMAGED.format("it is cut short"))
    if inflater.unused_data:
        raise InputError(DAMAGED.format("it has bytes after the lesson"))
    return data
