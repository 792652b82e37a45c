"""A lesson step's text: a small Markdown subset, read into blocks of styled spans.

The subset (docs/lessons.md): paragraphs separated by a blank line; a line that starts
with ``- `` is a list item; inline, ``**bold**``, ``*italic*`` and ```code```. Nothing
else is markup: a link, a heading, an image or HTML is shown as the characters typed.
The page draws the spans (``ui.lessons.text``) with every character escaped, so a
lesson's text is always text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

PLAIN: Final = "plain"
BOLD: Final = "bold"
ITALIC: Final = "italic"
CODE: Final = "code"
PARAGRAPH: Final = "paragraph"
ITEM: Final = "item"  #: one line of a bulleted list

# One span per match, on one line; an unmatched marker stays a plain character.
_INLINE = re.compile(r"`(?P<code>[^`\n]+)`|\*\*(?P<bold>[^*\n]+)\*\*|\*(?P<italic>[^*\n]+)\*")
_ITEM = re.compile(r"- (.*)")


@dataclass(frozen=True)
class TextSpan:
    style: str  #: PLAIN, BOLD, ITALIC or CODE
    text: str


@dataclass(frozen=True)
class TextBlock:
    kind: str  #: PARAGRAPH or ITEM
    spans: tuple[TextSpan, ...]


def spans(line: str) -> tuple[TextSpan, ...]:
    """``line``'s styled spans, in order; their texts joined are the line without markers."""
    found: list[TextSpan] = []
    start = 0
    for match in _INLINE.finditer(line):
        if match.start() > start:
            found.append(TextSpan(PLAIN, line[start : match.start()]))
        style = match.lastgroup or PLAIN
        found.append(TextSpan(style, match[style]))
        start = match.end()
    if start < len(line):
        found.append(TextSpan(PLAIN, line[start:]))
    return tuple(found)


def text_blocks(text: str) -> tuple[TextBlock, ...]:
    """The paragraphs and list items of ``text``; a paragraph's lines are joined by a space."""
    blocks: list[TextBlock] = []
    paragraph: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            blocks.append(TextBlock(PARAGRAPH, spans(" ".join(paragraph))))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        item = _ITEM.fullmatch(stripped)
        if item or not stripped:
            end_paragraph()
        if item:
            blocks.append(TextBlock(ITEM, spans(item[1])))
        elif stripped:
            paragraph.append(stripped)
    end_paragraph()
    return tuple(blocks)
