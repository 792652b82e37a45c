"""The lesson text subset: paragraphs, "- " items, **bold**, *italic*, `code`; nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from attention_core.teaching.lesson_text import (
    BOLD,
    CODE,
    ITALIC,
    ITEM,
    PARAGRAPH,
    PLAIN,
    TextBlock,
    TextSpan,
    spans,
    text_blocks,
)


def test_inline_markers_become_styled_spans() -> None:
    assert spans("a **b** *c* `d*e` f") == (
        TextSpan(PLAIN, "a "),
        TextSpan(BOLD, "b"),
        TextSpan(PLAIN, " "),
        TextSpan(ITALIC, "c"),
        TextSpan(PLAIN, " "),
        TextSpan(CODE, "d*e"),
        TextSpan(PLAIN, " f"),
    )


def test_an_unclosed_marker_is_a_plain_character() -> None:
    assert spans("2 * 3 and `x") == (TextSpan(PLAIN, "2 * 3 and `x"),)


def test_blank_lines_part_paragraphs_and_dashes_make_items() -> None:
    text = "First line\nsame paragraph.\n\n- one\n- **two**\nAfter the list."
    assert text_blocks(text) == (
        TextBlock(PARAGRAPH, (TextSpan(PLAIN, "First line same paragraph."),)),
        TextBlock(ITEM, (TextSpan(PLAIN, "one"),)),
        TextBlock(ITEM, (TextSpan(BOLD, "two"),)),
        TextBlock(PARAGRAPH, (TextSpan(PLAIN, "After the list."),)),
    )


def test_links_headings_and_html_are_not_markup_here() -> None:
    text = "# Title\n[link](http://example.com) <b>bold</b>"
    assert text_blocks(text) == (
        TextBlock(PARAGRAPH, (TextSpan(PLAIN, " ".join(text.splitlines())),)),
    )


@given(st.text(max_size=200))
def test_no_character_but_the_markers_is_lost(text: str) -> None:
    shown = "".join(span.text for block in text_blocks(text) for span in block.spans)
    markers = set("*`-") | {" "}
    assert sorted(c for c in shown if c not in markers and not c.isspace()) == sorted(
        c for c in text if c not in markers and not c.isspace()
    )
