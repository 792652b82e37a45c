"""A lesson step's text as Streamlit Markdown that shows every character as typed.

The core reads the subset (:func:`attention_core.teaching.lesson_text.text_blocks`); here
each span's text is escaped (:func:`ui.shared.safe.escape_markdown`) and only the subset's
own markers are written around it, so a link, a heading or HTML in a lesson is text.
"""

from __future__ import annotations

from attention_core.teaching.lesson_text import BOLD, CODE, ITALIC, ITEM, TextBlock, text_blocks
from ui.shared.safe import escape_markdown

_MARKERS = {BOLD: "**", ITALIC: "*"}


def _inline(block: TextBlock) -> str:
    parts = []
    for span in block.spans:
        if span.style == CODE:
            parts.append(f"`{span.text}`")  # a code span shows its characters as they are
        else:
            marker = _MARKERS.get(span.style, "")
            parts.append(f"{marker}{escape_markdown(span.text)}{marker}")
    return "".join(parts)


def step_markdown(text: str) -> str:
    """Markdown for ``text`` (the lesson subset): blocks apart by a blank line, items by none."""
    markdown = ""
    previous: TextBlock | None = None
    for block in text_blocks(text):
        if previous is not None:
            markdown += "\n" if previous.kind == block.kind == ITEM else "\n\n"
        markdown += f"- {_inline(block)}" if block.kind == ITEM else _inline(block)
        previous = block
    return markdown
