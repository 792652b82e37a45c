"""Every step of every built-in lesson, played from its link (AppTest): start to end.

Each step opens from ``?lesson=<name>&lesson_step=<n>`` through the app (the lesson bar
opens the step's view), says "Step n of N", and runs without an exception, an error or a
warning that a link value was refused (``ui.shared.url.warn_refused``), and a step with a
question kind gets it: the question generator its page uses, run here on the core's own
numbers for that view, yields a question of that kind, and the page's "Check yourself"
shows that very question's prompt first, marked as the step's question.

Cost: one fresh AppTest per step (a link's values reach bound widgets only on a first run);
the pretrained steps share the real decoder, loaded once per process by the page's own
``st.cache_resource`` (as tests/real/test_real_pages.py does), and its forward passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core.teaching.attention_questions import text_questions, walkthrough_questions
from attention_core.teaching.builtin_lessons import BUILTIN_NAMES, builtin_lesson
from attention_core.teaching.lesson import LessonStep
from attention_core.teaching.lesson_link import LESSON_PARAM
from attention_core.teaching.position_questions import position_questions
from attention_core.teaching.questions import Question
from attention_core.teaching.word_order import position_matrix
from tests.real.model_file import real_decoder_file
from ui.figures.style import NORMAL
from ui.lessons.player import STEP_PARAM
from ui.lessons.views import StepLink
from ui.positional_encoding import state as positional
from ui.positional_encoding.figures import position_labels
from ui.pretrained import state as pretrained
from ui.pretrained.models import BUNDLED_KEY
from ui.pretrained.passes import PageModel
from ui.pretrained.questions import questions
from ui.shared.check_yourself import STEP_QUESTION, TITLE
from ui.shared.controls import ControlOptions, model_settings
from ui.shared.safe import unescape_markdown
from ui.shared.worked_examples import DAYS
from ui.text import state as text
from ui.text.sections import default_query
from ui.walkthrough.state import LECTURE_STEP_KEY

REFUSED = "not valid here"  #: ui.shared.url.warn_refused's words

APP = Path(__file__).resolve().parents[2] / "app.py"
STEPS = [
    pytest.param(name, number, step, id=f"{name}-step-{number:02d}")
    for name in BUILTIN_NAMES
    for number, step in enumerate(builtin_lesson(name).steps, start=1)
]


def opened(name: str, number: int) -> AppTest:
    """Step ``number`` of lesson ``name``, played from its link."""
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update({LESSON_PARAM: name, STEP_PARAM: str(number)})
    return at.run()


def markdown_lines(at: AppTest) -> list[str]:
    """Every Markdown block of the run, as the reader sees it (escapes removed)."""
    return [unescape_markdown(block.value) for block in at.markdown]


def holds(value: object, raw: str) -> bool:
    """Whether a widget's ``value`` is the link's ``raw`` text (as Streamlit binds them)."""
    if isinstance(value, bool):
        return str(value).lower() == raw.lower()
    if isinstance(value, (int, float)) and raw.lstrip("-").replace(".", "", 1).isdigit():
        return float(value) == float(raw)
    # A box that shows a label for its number (the pretrained query: "25: ␣old₂") binds that.
    return str(value) == raw or raw.startswith(f"{value}: ")


# --- Each page's questions, computed from the core for the step's view ------------------


def text_page_questions(params: Mapping[str, str]) -> Sequence[Question]:
    """ui.text.questions: the shown head and the query the head view starts from."""
    config = model_settings(StepLink(hint="", params=params), text.PREFIX, ControlOptions())
    tokens = ac.tokenize(params.get("text", text.DEFAULT_TEXT))
    run = ac.run_text_attention(tokens.tokens, config)
    labels = list(tokens.labels)
    head = int(params.get("head", "1")) - 1
    return text_questions(run, labels, tokens.tokens, labels, head, default_query(tokens))


def walkthrough_page_questions(params: Mapping[str, str]) -> Sequence[Question]:
    """ui.walkthrough.questions: asked on the masking step (4) only."""
    return walkthrough_questions(DAYS) if params.get(LECTURE_STEP_KEY) == "4" else ()


def positional_page_questions(params: Mapping[str, str]) -> Sequence[Question]:
    """ui.positional_encoding.questions: the encoding the link names (else the page's defaults)."""
    prefix = positional.PREFIX
    kind = params.get(f"{prefix}kind", "sinusoidal")
    length = int(params.get(f"{prefix}length", "64"))
    width = int(params.get(f"{prefix}d_model", "64"))
    matrix = position_matrix(kind, length, width, float(params.get(f"{prefix}base", "10000")))
    return position_questions(matrix, kind, position_labels(length))


def pretrained_page_questions(params: Mapping[str, str]) -> Sequence[Question]:
    """ui.pretrained.questions on the step's model (the real decoder or the bundled encoder)."""
    key = params.get("model", BUNDLED_KEY)
    folder = None if key == BUNDLED_KEY else str(real_decoder_file())
    model = PageModel(key, folder)
    typed = params.get("text", pretrained.DEFAULT_TEXT)
    encoded = model.encode(typed)
    info = model.info
    layer = int(params.get("layer", str(min(4, info.n_layers)))) - 1
    head = int(params.get("head", str(min(2, info.n_heads)))) - 1
    # The query box writes "index: token" into the link.
    query = int(params.get("query", str(pretrained.default_query(encoded))).split(":")[0])
    state = pretrained.PretrainedState(
        model, typed, None, encoded, model.trace(encoded), layer, head, query, False, NORMAL
    )
    return questions(state)


QUESTIONS = {
    "text": text_page_questions,
    "walkthrough": walkthrough_page_questions,
    "positional_encoding": positional_page_questions,
    "pretrained": pretrained_page_questions,
}


@pytest.mark.parametrize(("name", "number", "step"), STEPS)
def test_each_step_plays_cleanly_and_asks_its_question_first(
    name: str, number: int, step: LessonStep
) -> None:
    at = opened(name, number)
    assert not at.exception, [e.value for e in at.exception]
    steps = len(builtin_lesson(name).steps)
    assert f"Step {number} of {steps}" in markdown_lines(at)[0]
    for key, raw in step.query:  # the step's view: each widget bound to the link holds it
        if key in at.session_state:
            assert holds(at.session_state[key], raw), (key, raw, at.session_state[key])
    warnings = [box.value for box in at.warning]
    assert not [w for w in warnings if REFUSED in w], warnings
    assert not at.error, [box.value for box in at.error]
    if step.question is None:
        assert step.prompt is not None
        return
    asked = [q for q in QUESTIONS[step.page](step.params) if q.id.split("/")[0] == step.question]
    assert asked, f"the {step.page} page asks no {step.question} question on this view"
    assert TITLE in [heading.value for heading in at.subheader]
    lines = markdown_lines(at)
    first = lines.index(f"**Question 1** · {STEP_QUESTION}")
    assert lines[first + 1] == asked[0].prompt
