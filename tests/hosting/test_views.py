"""A teacher's view as a class keeps it (hosting.classroom.views): one packed form only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hosting.classroom import limits
from hosting.classroom.views import (
    LISTS_PARAM,
    pack_lists,
    parameter_count,
    unpack_lists,
    usable_name,
)

NAMES = st.from_regex(r"[A-Za-z0-9_]{1,40}", fullmatch=True).filter(usable_name)
LISTS = st.dictionaries(NAMES, st.lists(st.text(), min_size=2, max_size=4), max_size=5)


@given(LISTS)
def test_packed_lists_read_back_as_they_were_and_pack_to_the_same_text(lists) -> None:
    packed = pack_lists(lists)
    assert unpack_lists(packed) == lists
    assert pack_lists(unpack_lists(packed) or {}) == packed


@given(LISTS.filter(bool))
def test_the_same_lists_written_another_way_are_refused(lists) -> None:
    spaced = pack_lists(lists).replace(":", ": ", 1)
    assert unpack_lists(spaced) is None


def test_a_view_counts_its_plain_and_packed_parameters() -> None:
    assert parameter_count({}) == 0
    assert parameter_count({"seed": "1", "text": "a b"}) == 2
    assert parameter_count({"seed": "1", LISTS_PARAM: '{"a":["1","2"],"b":["3","4"]}'}) == 3


def test_a_query_that_cannot_be_a_view_has_no_count() -> None:
    assert parameter_count({"seed": 1}) is None  # type: ignore[dict-item]
    assert parameter_count({"embed": "true"}) is None
    assert parameter_count({LISTS_PARAM: "[]"}) is None
    assert parameter_count({LISTS_PARAM: "{}"}) is None  # nothing packed: not the packed form
    assert parameter_count({"a": "1", LISTS_PARAM: '{"a":["1","2"]}'}) is None


def test_lists_nested_too_deep_or_too_long_are_refused_without_raising() -> None:
    assert unpack_lists("[" * 100_000) is None  # json.loads raises RecursionError
    assert parameter_count({LISTS_PARAM: "[" * 100_000}) is None
    too_long = pack_lists({"a": ["x" * limits.MAX_VIEW_CHARS, "y"]})
    assert unpack_lists(too_long) is None
