"""A teacher's view as a class keeps it: a page's query with one text per parameter name.

A parameter with several values (a multiselect's) travels packed, as canonical JSON under
:data:`LISTS_PARAM`: ``{"name": ["a", "b"], ...}``, names sorted, no spaces. Packed one
way only, a view reads back as the same text, so a follower who shows it compares equal
to the teacher's view (a looser form never would, and the follower's app would open the
view again and again). :class:`hosting.classroom.classes.Classes` refuses anything else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Final

from hosting.classroom import limits

LISTS_PARAM: Final = "class_lists"
CLASS_PARAM: Final = "class"  #: the class's code in a student's link: ``/?class=K7QH3M``
PRESENT_PARAM: Final = "present"  #: each viewer's own presentation mode (the app's)
#: A student's anonymous id in their link, so that a reload is the same student.
STUDENT_PARAM: Final = "student"
PARAM_NAME: Final = re.compile(r"[A-Za-z0-9_]{1,40}")
#: Names a view may not carry: the class's code, the student's id and the viewer's
#: presentation mode (each student's own), the packed lists themselves, and Streamlit's
#: own, which an app may not set (opening a link with them fails).
RESERVED_NAMES: Final = frozenset(
    {CLASS_PARAM, STUDENT_PARAM, PRESENT_PARAM, LISTS_PARAM, "embed", "embed_options"}
)


def pack_lists(lists: Mapping[str, Sequence[str]]) -> str:
    """Several-valued parameters as the one text a view carries under ``LISTS_PARAM``."""
    lists = {name: list(values) for name, values in lists.items()}
    return json.dumps(lists, sort_keys=True, separators=(",", ":"))


def unpack_lists(packed: str) -> dict[str, list[str]] | None:
    """The parameters packed in ``packed``; None unless it is exactly what
    :func:`pack_lists` makes of usable names, each with two values or more.

    Never raises: a stored view may come from anywhere (an older version, a store edited
    by hand), and the server's watcher reads every class's view.
    """
    if not isinstance(packed, str) or len(packed) > limits.MAX_VIEW_CHARS:
        return None
    try:
        lists = json.loads(packed)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
        return None
    if not isinstance(lists, dict) or not all(
        usable_name(name)
        and isinstance(values, list)
        and len(values) >= 2
        and all(isinstance(value, str) for value in values)
        for name, values in lists.items()
    ):
        return None
    return lists if pack_lists(lists) == packed else None


def usable_name(name: object) -> bool:
    """Whether a view may carry a parameter called ``name``."""
    return isinstance(name, str) and bool(PARAM_NAME.fullmatch(name)) and name not in RESERVED_NAMES


def parameter_count(query: Mapping[str, str]) -> int | None:
    """How many parameters ``query`` sets, its packed ones included; None if it cannot be
    a view (a name it may not carry, a value that is no text, lists packed otherwise or
    also set plainly)."""
    if not all(isinstance(value, str) for value in query.values()):
        return None
    plain = [name for name in query if name != LISTS_PARAM]
    if not all(usable_name(name) for name in plain):
        return None
    if LISTS_PARAM not in query:
        return len(plain)
    lists = unpack_lists(query[LISTS_PARAM])
    if not lists or set(lists) & set(plain):
        return None
    return len(plain) + len(lists)
