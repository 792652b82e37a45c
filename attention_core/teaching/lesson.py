"""A lesson: a title, an optional description and ordered lesson steps, each a view with words.

:func:`read_lesson` turns a file's bytes into a :class:`Lesson`, checked once against the
schema (``lesson_schema.SCHEMA``, validated with ``jsonschema``); :func:`lesson_file`
writes one back, and ``read_lesson(lesson_file(lesson)) == lesson``. Whatever is wrong
with a file, the caller gets one :class:`InputError` that names the step and the problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import best_match

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson_schema import FORMAT, PAGE_QUESTIONS, SCHEMA, VERSION

_VALIDATOR = Draft202012Validator(SCHEMA)
MAX_QUOTED_CHARS = 40  #: a refused value is quoted up to this many characters
_JSON_TYPES = {
    "object": "an object",
    "array": "a list",
    "string": "text",
}  #: schema types, in words


@dataclass(frozen=True)
class LessonStep:
    """One step: the view (``page`` and its link's ``query``, in the link's order) and its words.

    ``text`` is in the lesson Markdown subset (docs/lessons.md); ``question`` is the kind
    of Check yourself question asked of this step's own numbers (``lesson_schema``).
    """

    page: str
    query: tuple[tuple[str, str], ...]
    title: str
    text: str
    prompt: str | None = None
    question: str | None = None

    @property
    def params(self) -> dict[str, str]:
        """The view's query parameters, as a link holds them."""
        return dict(self.query)


@dataclass(frozen=True)
class Lesson:
    """A title, its lesson steps in order, and an optional short description."""

    title: str
    steps: tuple[LessonStep, ...]
    description: str | None = None


def read_lesson(data: bytes) -> Lesson:
    """The lesson in ``data`` (a file's bytes, UTF-8 JSON), or one :class:`InputError`."""
    if len(data) > limits.MAX_LESSON_BYTES:
        raise InputError(
            f"The lesson file has {len(data):,} bytes; at most {limits.MAX_LESSON_BYTES:,} "
            "are read. Is this the right file?"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            "The lesson file is not text (UTF-8); choose a .json lesson file."
        ) from None
    try:
        parsed = json.loads(text, object_pairs_hook=_unique_names)
    except json.JSONDecodeError as error:
        raise InputError(
            f"The lesson file is not JSON ({error.msg} at line {error.lineno}, column "
            f"{error.colno}); it may be cut short. Export the lesson again."
        ) from None
    except RecursionError:
        raise InputError("The lesson file nests too deeply to be a lesson.") from None
    return lesson_from_data(parsed)


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused if it names a field twice (a reader would see one, the app
    the other)."""
    unique: dict[str, Any] = {}
    for name, value in pairs:
        if name in unique:
            raise InputError(f"The lesson file names {_quoted(name)} twice in one place.")
        unique[name] = value
    return unique


def lesson_from_data(data: object) -> Lesson:
    """The lesson in parsed JSON ``data``: its format and version first, then the schema."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f'This is not a lesson file: it does not say "format": "{FORMAT}".')
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise InputError(
            f"This lesson is written in format version {_quoted(version)}; this app reads "
            f"version {VERSION}. Export it again from an app that writes version {VERSION}."
        )
    error = best_match(_VALIDATOR.iter_errors(data))
    if error is not None:
        raise InputError(_message(error)) from None
    steps = tuple(_step(number, step) for number, step in enumerate(data["steps"], start=1))
    return Lesson(data["title"], steps, data.get("description"))


def _step(number: int, data: dict[str, Any]) -> LessonStep:
    page, kind = data["view"]["page"], data.get("question")
    asked = PAGE_QUESTIONS[page]
    if kind is not None and kind not in asked:
        offers = f"it asks: {', '.join(asked)}" if asked else "it asks no questions"
        raise InputError(f'Step {number}: the {page} page asks no "{kind}" question; {offers}.')
    query = tuple(data["view"]["query"].items())
    return LessonStep(page, query, data["title"], data["text"], data.get("prompt"), kind)


def lesson_data(lesson: Lesson) -> dict[str, Any]:
    """``lesson`` as JSON-able data, keys in the schema's order, optional fields left out."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "title": lesson.title}
    if lesson.description is not None:
        data["description"] = lesson.description
    data["steps"] = [_step_data(step) for step in lesson.steps]
    return data


def _step_data(step: LessonStep) -> dict[str, Any]:
    data: dict[str, Any] = {
        "view": {"page": step.page, "query": step.params},
        "title": step.title,
        "text": step.text,
    }
    if step.prompt is not None:
        data["prompt"] = step.prompt
    if step.question is not None:
        data["question"] = step.question
    return data


def lesson_file(lesson: Lesson) -> bytes:
    """The lesson file: indented UTF-8 JSON, a reader can edit it."""
    return (json.dumps(lesson_data(lesson), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _quoted(value: object) -> str:
    shown = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    shown = shown if len(shown) <= MAX_QUOTED_CHARS else shown[:MAX_QUOTED_CHARS] + "…"
    return f'"{shown}"' if isinstance(value, str) else shown


def _where(path: list[object]) -> tuple[str, list[object]]:
    """Who the error is about ("Step 3", "The lesson") and the rest of its path."""
    if len(path) >= 2 and path[0] == "steps" and isinstance(path[1], int):
        return f"Step {path[1] + 1}", path[2:]
    return "The lesson", path


def _what(rest: list[object]) -> str:
    if len(rest) == 3 and rest[:2] == ["view", "query"]:
        return f"its setting {_quoted(rest[2])}"
    names = {"view": "view", "page": "page", "query": "settings"}
    return "its " + " ".join(names.get(str(part), str(part)) for part in rest) if rest else "it"


def _message(error: ValidationError) -> str:
    """One sentence for a schema error: who, what, and what to do."""
    where, rest = _where(list(error.absolute_path))
    what, value, limit = _what(rest), error.instance, error.validator_value
    match error.validator:
        case "maxLength":
            return f"{where}: {what} has {len(value):,} characters; at most {limit:,} are allowed."
        case "minLength":
            return f"{where}: {what} is empty; write one, or leave it out if it is optional."
        case "maxItems":
            return (
                f"The lesson has {len(value)} steps; at most {limit} are allowed. Split it in two."
            )
        case "minItems":
            return "The lesson has no steps; add at least one."
        case "maxProperties":
            return f"{where}: its view has {len(value)} settings; at most {limit} are allowed."
        case "pattern":
            return f"{where}: {_quoted(value)} is not a setting name of any page."
        case "required":
            missing = [name for name in limit if name not in value]
            return f"{where}: its {missing[0]} is missing."
        case "additionalProperties":
            extra = [name for name in value if name not in error.schema.get("properties", {})]
            return f"{where}: {_quoted(extra[0])} is not part of a lesson; remove it."
        case "enum" if rest[-1:] == ["page"]:
            return f"{where}: there is no page {_quoted(value)}; the pages are: {', '.join(limit)}."
        case "enum":
            kinds = ", ".join(limit)
            return f"{where}: there is no question kind {_quoted(value)}; the kinds are: {kinds}."
        case "type":
            return f"{where}: {what} should be {_JSON_TYPES[limit]}, not {_quoted(value)}."
    return f"{where}: {what} is not valid here ({_quoted(value)})."
