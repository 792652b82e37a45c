""" "Check yourself" on the text page: questions on the shown head and the query token.

The query is the one the head view starts from ("it" in the example sentence,
else the first token); the head is the one tabs 3, 4 and 6 show. The strongest-key
question hides the head's weights until it is answered (predict, then reveal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attention_core.teaching.attention_questions import text_questions
from attention_core.teaching.questions import Question
from ui.shared.check_yourself import check_yourself
from ui.shared.matrix_view import chart
from ui.text.cache import heatmap_figure
from ui.text.cell_view import cell_lines
from ui.text.sections import default_query
from ui.text.state import TextState

PAGE = "text"


def check_yourself_section(state: TextState) -> None:
    """The questions below the tabs, computed from this view's run."""
    query = default_query(state.inputs.queries)
    query_labels, key_labels = state.inputs.labels
    keys = state.inputs.keys or state.inputs.queries

    def questions() -> Sequence[Question]:
        return text_questions(
            state.run, list(query_labels), keys.tokens, list(key_labels), state.head, query
        )

    def weights_chart() -> None:
        figure = heatmap_figure(state.inputs, "weights", state.head, False, state.style, state.run)
        cells = cell_lines(state, "weights", state.head)
        chart(figure, key="check_yourself_weights", cells=cells)

    def chart_for(question: Question) -> Callable[[], None] | None:
        return weights_chart if question.id.startswith("strongest-key") else None

    check_yourself(PAGE, questions, chart_for, reveal_after=True)
