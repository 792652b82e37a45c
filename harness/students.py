"""What a simulated student opens: their own sentence on the text page's weights view."""

from __future__ import annotations

import random
from urllib.parse import urlencode

WORDS = (
    *("the", "cat", "saw", "a", "dog", "near", "river"),
    *("because", "it", "was", "tired", "and", "small"),
)


def student_sentence(number: int) -> str:
    """A different 13-token sentence per session, the size of the page's default."""
    rng = random.Random(number)
    words = rng.sample(WORDS, len(WORDS) - 1)
    return f"Student {number} said " + " ".join(words[:9]) + "."


def weights_link(number: int) -> str:
    """The query string of a session's own link on the weights view."""
    return urlencode({"view": "4 Weights", "text": student_sentence(number)})
