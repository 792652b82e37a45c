"""The one error a model source raises: its message is plain text written for users."""

from __future__ import annotations


class ModelSourceError(Exception):
    """A checkpoint cannot be had (offline, missing, too large, corrupted); ``str()`` says why.

    The message is plain text for the page to show as text (never Markdown or HTML),
    and it says what still works, so the page needs no traceback.
    """
