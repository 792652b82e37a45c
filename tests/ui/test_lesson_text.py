"""A lesson step's text is drawn as text: only the subset's own markers are Markdown."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ui.lessons.text import step_markdown
from ui.shared.safe import unescape_markdown


def test_the_subset_is_written_as_markdown() -> None:
    text = "Each row is a **query**.\n\n- scores: `QKᵀ`\n- weights: *softmax*"
    assert step_markdown(text) == (
        "Each row is a **query**\\.\n\n- scores\\: `QKᵀ`\n- weights\\: *softmax*"
    )


def test_html_links_and_headings_are_escaped() -> None:
    markdown = step_markdown("# Not a heading <img src=x onerror=alert(1)> [a](javascript:x)")
    assert "<" not in markdown.replace("\\<", "")
    assert "[" not in markdown.replace("\\[", "")
    assert markdown.startswith("\\# Not a heading")


LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  #: what str.splitlines splits on


@given(st.text(alphabet=st.characters(exclude_characters="*`" + LINE_BREAKS), max_size=120))
def test_a_plain_line_reads_back_exactly(text: str) -> None:
    line = text.strip()
    if line and not line.startswith("- "):
        assert unescape_markdown(step_markdown(text)) == line
