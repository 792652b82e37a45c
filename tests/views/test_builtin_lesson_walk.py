"""Every step of every built-in lesson, opened as its link opens it (AppTest).

Each step's view runs without an exception, without an error or a warning (in particular
none saying a link value was refused, ``ui.shared.url.warn_refused``), and a step with a
question kind gets it: the question generator its page uses, run here on the core's own
numbers for that view, yields a question of that kind, and the page's "Check yourself"
shows that very question's prompt.

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
from attention_core.teaching.position_questions import position_questions
from attention_core.teaching.questions import Question
from attention_core.teaching.word_order import position_matrix
from tests.real.model_file import real_decoder_file
from ui.figures.style import NORMAL
from ui.lessons.views import StepLink
from ui.positional_encoding import state as positional
from ui.positional_encoding.figures import position_labels
from ui.pretrained import state as pretrained
from ui.pretrained.models import BUNDLED_KEY
from ui.pretrained.passes import PageModel
from ui.pretrained.questions import questions
from ui.shared.check_yourself import TITLE
from ui.shared.controls import ControlOptions, model_settings
from ui.shared.safe import unescape_markdown
from ui.shared.worked_examples import DAYS
from ui.text import state as text
from ui.text.sections import default_query
from ui.walkthrough.state import LECTURE_STEP_KEY

VIEWS = Path(__file__).resolve().parents[2] / "views"
REFUSED = "not valid here"  #: ui.shared.url.warn_refused's words

STEPS = [
    pytest.param(step, id=f"{name}-step-{number:02d}")
    for name in BUILTIN_NAMES
    for number, step in enumerate(builtin_lesson(name).steps, start=1)
]


def opened(step: LessonStep) -> AppTest:
    """The step's page opened at its link, run once."""
    at = AppTest.from_file(str(VIEWS / f"{step.page}.py"), default_timeout=300)
    for key, value in step.query:
        at.query_params[key] = value
    return at.run()


def markdown_lines(at: AppTest) -> list[str]:
    """Every Markdown block of the run, as the reader sees it (escapes removed)."""
    return [unescape_markdown(block.value) for block in at.markdown]


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


@pytest.mark.parametrize("step", STEPS)
def test_each_step_opens_cleanly_and_asks_its_question(step: LessonStep) -> None:
    at = opened(step)
    assert not at.exception, [e.value for e in at.exception]
    warnings = [box.value for box in at.warning]
    assert not [w for w in warnings if REFUSED in w], warnings
    assert not at.error, [box.value for box in at.error]
    if step.question is None:
        assert step.prompt is not None
        return
    asked = [q for q in QUESTIONS[step.page](step.params) if q.id.split("/")[0] == step.question]
    assert asked, f"the {step.page} page asks no {step.question} question on this view"
    assert TITLE in [heading.value for heading in at.subheader]
    assert asked[0].prompt in markdown_lines(at)
