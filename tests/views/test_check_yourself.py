""" "Check yourself" on the pages that ask it (AppTest): right, wrong, and tokens shown as text."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.plotly_specs import charts
from ui.shared.safe import escape_markdown, unescape_markdown

VIEWS = Path(__file__).resolve().parents[2] / "views"


def run_page(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(VIEWS / f"{page}.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def shown(text: str) -> str:
    """Text as the reader sees it: the backslash escapes removed."""
    return unescape_markdown(text)


def question_widget(at: AppTest, kind: str, starts: str):
    """The choice or number input whose (escaped) label starts with ``starts``."""
    widgets = at.selectbox if kind == "select" else at.number_input
    return next(w for w in widgets if shown(w.label).startswith(starts))


def check_button(at: AppTest, widget) -> object:
    """The "Check answer n" button of the question whose answer widget is ``widget``."""
    return at.button(key=widget.key.removesuffix("_answer") + "_check")


def verdicts(at: AppTest) -> list[str]:
    """Every verdict as read: the bold headline's ``**`` and the escapes removed."""
    return [shown(box.value.replace("**", "")) for box in [*at.success, *at.error]]


TYPED = "it [x](y) <b> **z** `q`"


def assert_shown_as_text(at: AppTest, starts: str, typed: str | None) -> None:
    """Labels and verdicts escape every Markdown character; a select box's options are
    plain text, the token labels themselves (for ``typed``: the text page's tokens)."""
    choice = question_widget(at, "select", starts)
    assert choice.label == escape_markdown(shown(choice.label))
    if typed is not None:
        assert set(choice.options) <= set(ac.tokenize(typed).labels)
    choice.set_value(choice.options[0]).run()
    check_button(at, choice).click().run()
    (box,) = [box for box in [*at.success, *at.error] if "row" in box.value]
    body = box.value.split("** ", 1)[1]
    assert body == escape_markdown(shown(body))


def test_text_page_checks_the_strongest_key_and_hides_its_chart_until_checked() -> None:
    at = run_page("text", text="the cat sat on it")
    assert not at.exception
    choice = question_widget(at, "select", "Which key does “it” attend to most")
    assert any("Answer first" in caption.value for caption in at.caption)
    charts_before = len(charts(at))
    outcomes = {}
    for option in choice.options:
        choice = question_widget(at, "select", "Which key does “it” attend to most")
        choice.set_value(option).run()
        check_button(at, choice).click().run()
        assert not at.exception
        (verdict,) = [v for v in verdicts(at) if "“it”'s row" in v]
        outcomes[option] = verdict
    right = [option for option, verdict in outcomes.items() if verdict.startswith("Correct.")]
    assert right  # at least one choice is right; ties may add more
    for option, verdict in outcomes.items():
        if option not in right:
            assert verdict.startswith("Not quite. The answer is")
    assert len(charts(at)) == charts_before + 1  # the weights, revealed
    choice = question_widget(at, "select", "Which key does “it” attend to most")
    choice.set_value(choice.options[0]).run()  # a new answer, not yet checked
    assert not [v for v in verdicts(at) if "“it”'s row" in v]
    assert len(charts(at)) == charts_before + 1  # once revealed, it stays


def test_text_page_number_question_says_wrong_then_right() -> None:
    at = run_page("text", text="the cat sat on it")
    box = question_widget(at, "number", "What is the weight from")
    box.set_value(5.0).run()
    check_button(at, box).click().run()
    (verdict,) = [v for v in verdicts(at) if "column" in v]
    assert verdict.startswith("Not quite. The answer is")
    value = float(re.search(r"The answer is (-?[\d.]+)", verdict).group(1))
    box = question_widget(at, "number", "What is the weight from")
    box.set_value(value).run()
    assert not [v for v in verdicts(at) if "column" in v]  # the answer changed: check again
    check_button(at, box).click().run()
    (verdict,) = [v for v in verdicts(at) if "column" in v]
    assert verdict.startswith("Correct.") and f"{value:.3f}" in verdict


def answer_the_weight(at: AppTest, value: float) -> None:
    box = question_widget(at, "number", "What is the weight from")
    box.set_value(value).run()
    check_button(at, box).click().run()


def test_a_new_view_asks_anew_and_the_same_view_keeps_the_answer() -> None:
    at = run_page("text", text="the cat sat on it")
    answer_the_weight(at, 0.5)
    assert [v for v in verdicts(at) if "column" in v]
    at.toggle(key="numbers").set_value(True).run()  # the same questions: the verdict stays
    assert question_widget(at, "number", "What is the weight from").value == 0.5
    assert [v for v in verdicts(at) if "column" in v]
    prompt = question_widget(at, "number", "What is the weight from").label
    at.number_input(key="seed").set_value(7).run()  # other weights: another question
    box = question_widget(at, "number", "What is the weight from")
    assert box.label == prompt  # the same place and words (only the answer differs) ...
    assert box.value is None  # ... asked anew: no answer, no verdict
    assert not [v for v in verdicts(at) if "column" in v]


def test_a_session_keeps_the_same_keys_however_many_views_it_checks() -> None:
    """Streamlit keeps every widget key a session has used: one per place, not per view.

    The count of keys Streamlit maps to widget ids is read from its session state (the
    pinned version's internals); before, it grew by 8 with every view of the text page.
    """
    at = run_page("text", text="the cat sat on it")
    answer_the_weight(at, 0.5)
    keys = set(at.session_state.keys())
    mapped = len(at.session_state._state._state._key_id_mapper.id_key_mapping)
    for seed in range(1, 6):
        at.number_input(key="seed").set_value(seed).run()
        answer_the_weight(at, 0.5)
        assert not at.exception
    assert [v for v in verdicts(at) if "column" in v]
    assert set(at.session_state.keys()) == keys
    assert len(at.session_state._state._state._key_id_mapper.id_key_mapping) == mapped


def test_text_page_shows_typed_markup_as_text() -> None:
    at = run_page("text", text=TYPED)
    assert not at.exception
    assert_shown_as_text(at, "Which key does “it” attend to most", TYPED)


def test_pretrained_page_checks_which_head_is_a_previous_token_head() -> None:
    at = run_page("pretrained")
    assert not at.exception
    choice = question_widget(at, "select", "Which of these heads is a previous-token head")
    outcomes = {}
    for option in choice.options:
        choice = question_widget(at, "select", "Which of these heads is a previous-token head")
        choice.set_value(option).run()
        check_button(at, choice).click().run()
        (verdict,) = [v for v in verdicts(at) if "previous token:" in v]
        outcomes[option] = verdict
    right = [option for option, verdict in outcomes.items() if verdict.startswith("Correct.")]
    assert len(right) >= 1
    assert all(
        verdict.startswith("Not quite. The answer is")
        for option, verdict in outcomes.items()
        if option not in right
    )


def test_pretrained_page_shows_typed_markup_as_text() -> None:
    at = run_page("pretrained", text=TYPED)
    assert not at.exception
    assert_shown_as_text(at, "Which key does", None)


def test_walkthrough_masking_step_checks_the_softmax_of_one_two_three() -> None:
    at = run_page("walkthrough", step="4")
    assert not at.exception
    box = question_widget(at, "number", "What is softmax([1, 2, 3])")
    box.set_value(0.33).run()
    check_button(at, box).click().run()
    (verdict,) = [v for v in verdicts(at) if "e^3 /" in v]
    assert verdict == "Not quite. The answer is 0.665 (± 0.01). e^3 / (e^1 + e^2 + e^3) = 0.665."
    box = question_widget(at, "number", "What is softmax([1, 2, 3])")
    box.set_value(0.67).run()
    check_button(at, box).click().run()
    (verdict,) = [v for v in verdicts(at) if "e^3 /" in v]
    assert verdict == "Correct. e^3 / (e^1 + e^2 + e^3) = 0.665."


def test_walkthrough_asks_only_on_the_masking_step() -> None:
    at = run_page("walkthrough", step="3")
    assert not at.exception
    assert not [w for w in at.selectbox if w.key and w.key.startswith("check_")]


def test_positional_page_checks_which_position_is_most_alike() -> None:
    at = run_page("positional_encoding", pe_length="8", pe_d_model="16")
    assert not at.exception
    choice = question_widget(at, "select", "Which other position")
    outcomes = {}
    for option in choice.options:
        choice = question_widget(at, "select", "Which other position")
        choice.set_value(option).run()
        check_button(at, choice).click().run()
        (verdict,) = [v for v in verdicts(at) if "of P Pᵀ:" in v]
        outcomes[option] = verdict.split(".")[0]
    assert sorted(set(outcomes.values())) == ["Correct", "Not quite"]
