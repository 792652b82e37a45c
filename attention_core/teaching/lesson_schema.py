"""The lesson format's schema (JSON Schema 2020-12), version :data:`VERSION`, and what it names.

A lesson is a title, an optional description and ordered steps; a step is a view (a page
and its link's query parameters, as the link holds them), a title, a few lines of text,
and optionally a prompt and a question kind. docs/lessons.md documents it with an example.

The pages and the question kinds each page's Check yourself asks are listed here, once:
the format must name them without importing the app (tests/ui/test_lesson_views.py checks
this table against the page scripts and the question generators).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final

from attention_core.boundary import limits

FORMAT: Final = "attention-visualizer-lesson"  #: what a lesson file says it is
VERSION: Final = 1  #: the schema's version; a file of another version is refused

#: Which key of a row gets the most weight; a weight to ±0.01; softmax of a short vector;
#: what doubling one score does; which mask made the pattern.
ATTENTION_KINDS: Final = ("strongest-key", "weight", "softmax", "doubling", "mask")

#: Each page a step may show (its URL path) and the question kinds its Check yourself asks.
PAGE_QUESTIONS: Final = MappingProxyType(
    {
        "text": ATTENTION_KINDS,
        "time_series": (),
        "positional_encoding": ("encoding-value", "most-alike"),
        "walkthrough": ATTENTION_KINDS,
        "learning": (),
        "pretrained": (
            "previous-token-head",
            "strongest-key",
            "weight",
            "doubling",
            "next-token",
            "strongest-head",
            "ablation-copying",
        ),
    }
)
QUESTION_KINDS: Final = tuple(
    dict.fromkeys(kind for kinds in PAGE_QUESTIONS.values() for kind in kinds)
)

SETTING_NAME: Final = "^[a-z][a-z0-9_]{0,39}$"  #: a link parameter's name, as pages name them


def _text(max_chars: int, min_chars: int = 0) -> dict[str, Any]:
    return {"type": "string", "minLength": min_chars, "maxLength": max_chars}


VIEW: Final = {
    "type": "object",
    "description": "A page and its settings: exactly the query parameters of its link.",
    "required": ["page", "query"],
    "additionalProperties": False,
    "properties": {
        "page": {"enum": list(PAGE_QUESTIONS)},
        "query": {
            "type": "object",
            "maxProperties": limits.MAX_STEP_SETTINGS,
            "propertyNames": {"pattern": SETTING_NAME},
            # The longest value a link holds is a sentence (the text areas' limit).
            "additionalProperties": _text(limits.MAX_TEXT_CHARS),
        },
    },
}

STEP: Final = {
    "type": "object",
    "required": ["view", "title", "text"],
    "additionalProperties": False,
    "properties": {
        "view": VIEW,
        "title": _text(limits.MAX_LESSON_TITLE_CHARS, 1),
        "text": _text(limits.MAX_STEP_TEXT_CHARS),
        "prompt": _text(limits.MAX_STEP_PROMPT_CHARS, 1),
        "question": {"enum": list(QUESTION_KINDS)},
    },
}

SCHEMA: Final = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Attention Visualizer lesson",
    "type": "object",
    "required": ["format", "version", "title", "steps"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT},
        "version": {"const": VERSION},
        "title": _text(limits.MAX_LESSON_TITLE_CHARS, 1),
        "description": _text(limits.MAX_LESSON_DESCRIPTION_CHARS, 1),
        "steps": {
            "type": "array",
            "minItems": 1,
            "maxItems": limits.MAX_LESSON_STEPS,
            "items": STEP,
        },
    },
}
