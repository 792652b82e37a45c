"""Class codes and teacher keys: made from the OS's randomness, read leniently, kept hashed."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from hosting.classroom.limits import CODE_ALPHABET, CODE_LENGTH, KEY_BYTES, MAX_KEY_CHARS


def new_code() -> str:
    """A fresh class code: ``CODE_LENGTH`` characters of ``CODE_ALPHABET`` (e.g. ``K7QH3M``)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def read_code(text: str) -> str | None:
    """A typed code in canonical form, or None when it cannot be one.

    Case, spaces and dashes are ignored (``k7q-h3m`` reads as ``K7QH3M``).
    """
    if len(text) > 4 * CODE_LENGTH:
        return None
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code


def new_key() -> str:
    """A teacher key: ``KEY_BYTES`` random bytes, URL-safe text. Shown once, stored hashed."""
    return secrets.token_urlsafe(KEY_BYTES)


def digest(key: str) -> str:
    """What the store keeps of a key: its SHA-256, so a leaked store steers nothing."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_matches(key: str, stored_digest: str) -> bool:
    """Does ``key`` open the class whose key hashes to ``stored_digest``? Constant time."""
    if not key or len(key) > MAX_KEY_CHARS:
        return False
    return hmac.compare_digest(digest(key), stored_digest)
