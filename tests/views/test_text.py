"""The text attention page (views/text.py) with AppTest, and its figure builders.

Plotted numbers are decoded from the chart spec the browser would receive and
compared with the core's own numbers for the same config.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.plotly_specs import decode as decode_array
from tests.plotly_specs import figures
from ui.figures.head_view import MAX_LINES, N_LEVELS, head_view, select_lines, strength_level
from ui.shared.check_yourself import KEY_PREFIX
from ui.shared.safe import unescape_markdown
from ui.shared.stages import stages_for
from ui.text.mask_inputs import decode, encode

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "text.py")
SENTENCE = "the cat sat on the mat"  # 6 tokens; "the" repeats, labelled "the₂"
TABS = ("1 Tokens", "2 Positions", "3 Q K V", "4 Weights", "5 Head view", "6 Output")


def run_page(**params: str) -> AppTest:
    """Run the page once with these URL query parameters."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def charts(at: AppTest) -> dict[str, dict]:
    """Every plotly chart of the run, as its JSON spec, by figure title."""
    return {spec["layout"]["title"]["text"]: spec for spec in figures(at)}


def expected_weights(
    config: ac.AttentionConfig,
    text: str = SENTENCE,
    text2: str | None = None,
    custom: np.ndarray | None = None,
) -> tuple[np.ndarray, ac.AttentionRun]:
    """The core's weights ``(H, T, S)`` as float32, masked cells NaN (what the page must plot)."""
    keys = None if text2 is None else ac.tokenize(text2).tokens
    run = ac.run_text_attention(ac.tokenize(text).tokens, config, keys, custom)
    weights = run.trace.weights.astype(np.float32)
    if run.mask is not None:
        weights[:, ~run.mask] = np.nan
    return weights, run


def shown(element: object) -> str:
    """A message as the user reads it (ui.shared.safe backslash-escapes Markdown characters)."""
    return unescape_markdown(element.value)


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [exception.value for exception in at.exception]


# ------------------------------------------------------------------ every tab, every option


@pytest.mark.parametrize("tab", TABS)
def test_default_page_runs_every_tab_without_exceptions(tab: str) -> None:
    at = run_page(view=tab)
    assert_no_exception(at)
    assert not at.error
    assert at.title[0].value == "Text attention"
    assert charts(at), f"tab {tab} drew no chart"


OPTION_CASES = [
    *({"mask": mask, "view": "4 Weights"} for mask in ac.MASKS),
    {"mask": "sliding", "window": "2", "view": "4 Weights"},
    *({"pe": pe, "view": "2 Positions"} for pe in ac.POSITIONAL_ENCODINGS),
    *({"heads": str(h), "head": str(h), "view": "3 Q K V"} for h in (1, 2, 4, 8, 16)),
    *({"combine": combine, "view": "6 Output"} for combine in ac.COMBINATIONS),
    {"normaliser": "hardmax", "view": "4 Weights"},
    {"scale": "none", "view": "4 Weights"},
    {"scale": "temperature", "temperature": "0.3", "view": "4 Weights"},
    {"embedding": "onehot", "view": "1 Tokens"},
    {"custom_widths": "true", "dk": "3", "dv": "5", "heads": "4", "view": "6 Output"},
    {"cross": "true", "text2": "le chat", "view": "1 Tokens"},
    {"cross": "true", "text2": "le chat", "view": "2 Positions"},
    {"cross": "true", "text2": "le chat", "mask": "causal", "view": "4 Weights"},
    {"cross": "true", "text2": "le chat", "view": "5 Head view"},
    {"cross": "true", "text2": "le chat", "view": "6 Output"},
    {"text": "a b <pad> [PAD]", "mask": "padding", "view": "5 Head view"},
    {"mask": "custom", "view": "5 Head view"},
    {"numbers": "true", "view": "4 Weights"},
    {"query": "all tokens", "show_heads": "2", "view": "5 Head view"},
]


@pytest.mark.parametrize("params", OPTION_CASES, ids=lambda p: "-".join(p.values()))
def test_every_option_runs_without_exceptions_or_errors(params: dict[str, str]) -> None:
    at = run_page(**{"text": SENTENCE, **params})
    assert_no_exception(at)
    assert not at.error, [error.value for error in at.error]
    assert not at.warning, [warning.value for warning in at.warning]  # every value was accepted
    assert charts(at)


def test_numbers_toggle_shows_rounded_tables_of_every_matrix() -> None:
    at = run_page(text=SENTENCE, numbers="true", view="4 Weights")
    tables = at.dataframe
    assert len(tables) == 4  # scores, scaled, masked, weights of the chosen head
    weights = tables[3].value
    config = ac.AttentionConfig()
    expected, _ = expected_weights(config)
    np.testing.assert_allclose(weights.to_numpy(), expected[0], atol=1e-4)
    assert list(weights.columns) == list(ac.tokenize(SENTENCE).labels)


def test_presentation_mode_draws_larger_text_with_fewer_decimals() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["view"] = "4 Weights"
    at.session_state["present"] = True
    at.run()
    assert_no_exception(at)
    walkable = charts(at)["Attention weights · head 1"]["walkable"]
    assert (walkable["font_px"], walkable["cell_px"], walkable["decimals"]) == (20, 40, 2)
    spec = charts(at)["Attention weights · all heads"]
    assert spec["layout"]["font"]["size"] == 20
    assert ":.2f" in spec["data"][0]["hovertemplate"]


# ------------------------------------------------------------------ plotted numbers = core numbers


@pytest.mark.parametrize(
    ("params", "config"),
    [
        ({}, ac.AttentionConfig()),
        (
            {"mask": "causal", "heads": "4", "head": "3"},
            ac.AttentionConfig(n_heads=4, mask="causal"),
        ),
        (
            {"mask": "sliding", "window": "2", "seed": "7"},
            ac.AttentionConfig(mask="sliding", window=2, seed=7),
        ),
        (
            {"normaliser": "hardmax", "pe": "rotary", "d_model": "12", "heads": "3"},
            ac.AttentionConfig(d_model=12, n_heads=3, normaliser="hardmax", positional="rotary"),
        ),
        (
            {"scale": "temperature", "temperature": "0.5", "embedding": "onehot"},
            ac.AttentionConfig(scaling="temperature", temperature=0.5, embedding="onehot"),
        ),
    ],
    ids=["default", "causal-4-heads", "sliding", "hardmax-rotary", "temperature-onehot"],
)
def test_plotted_weights_equal_the_core_weights(params: dict, config: ac.AttentionConfig) -> None:
    at = run_page(text=SENTENCE, view="4 Weights", **params)
    assert_no_exception(at)
    head = int(params.get("head", "1")) - 1
    expected, _ = expected_weights(config)
    spec = charts(at)[f"Attention weights · head {head + 1}"]
    plotted = decode_array(spec["data"][0]["z"])
    assert plotted.dtype == np.float32
    np.testing.assert_array_equal(plotted, expected[head])  # NaN where masked, same places
    labels = list(ac.tokenize(SENTENCE).labels)
    assert spec["data"][0]["x"] == labels
    assert spec["data"][0]["y"] == labels


def test_a_link_with_the_old_activation_key_still_sets_the_normaliser() -> None:
    at = run_page(text=SENTENCE, view="4 Weights", activation="hardmax")
    assert_no_exception(at)
    assert not at.warning
    assert at.selectbox(key="normaliser").value == "hardmax"
    assert at.query_params["normaliser"] == "hardmax"
    assert "activation" not in at.query_params
    expected, _ = expected_weights(ac.AttentionConfig(normaliser="hardmax"))
    plotted = decode_array(charts(at)["Attention weights · head 1"]["data"][0]["z"])
    np.testing.assert_array_equal(plotted, expected[0])


def test_a_link_with_both_normaliser_keys_keeps_the_new_one() -> None:
    at = run_page(text=SENTENCE, activation="hardmax", normaliser="softmax")
    assert at.selectbox(key="normaliser").value == "softmax"


def test_an_old_activation_key_with_a_bad_value_is_named_and_ignored() -> None:
    at = run_page(text=SENTENCE, activation="relu")
    assert at.selectbox(key="normaliser").value == "softmax"
    assert "activation=relu" in shown(at.warning[0])


def test_masked_cells_are_nan_in_the_plot_and_weights_grid_shows_every_head() -> None:
    at = run_page(text=SENTENCE, view="4 Weights", mask="causal", heads="4")
    expected, run = expected_weights(ac.AttentionConfig(n_heads=4, mask="causal"))
    grid = charts(at)["Attention weights · all heads"]
    panels = [decode_array(trace["z"]) for trace in grid["data"]]
    assert len(panels) == 4
    for head, panel in enumerate(panels):
        np.testing.assert_array_equal(panel, expected[head])
        assert np.isnan(panel[0, 1]) and not np.isnan(panel[1, 0])  # key after query is masked
    masked_scores = decode_array(charts(at)["Masked scores · head 1"]["data"][0]["z"])
    assert np.isnan(masked_scores[~run.mask]).all()


def test_small_masked_matrix_labels_masked_scores_minus_infinity_and_their_weights_zero() -> None:
    at = run_page(text="one two three", mask="causal", view="4 Weights")
    forbidden = ~np.tril(np.ones((3, 3), dtype=bool))
    for title, label in (("Masked scores · head 1", "−∞"), ("Attention weights · head 1", "0")):
        spec = charts(at)[title]
        assert spec["walkable"]["masked_label"] == label
        np.testing.assert_array_equal(np.isnan(decode_array(spec["data"][0]["z"])), forbidden)


def test_cross_attention_plots_first_sentence_queries_against_second_sentence_keys() -> None:
    at = run_page(text=SENTENCE, cross="true", text2="le chat noir", view="4 Weights")
    expected, _ = expected_weights(ac.AttentionConfig(), text2="le chat noir")
    spec = charts(at)["Attention weights · head 1"]
    np.testing.assert_array_equal(decode_array(spec["data"][0]["z"]), expected[0])
    assert spec["data"][0]["x"] == ["le", "chat", "noir"]
    assert spec["data"][0]["y"] == list(ac.tokenize(SENTENCE).labels)


def test_custom_mask_from_the_link_is_used_and_written_back() -> None:
    custom = np.array([[True, False, True], [False, True, False], [True, True, True]])
    at = run_page(text="one two three", mask="custom", cmask=encode(custom), view="4 Weights")
    assert_no_exception(at)
    expected, _ = expected_weights(
        ac.AttentionConfig(mask="custom"), "one two three", custom=custom
    )
    plotted = decode_array(charts(at)["Attention weights · head 1"]["data"][0]["z"])
    np.testing.assert_array_equal(plotted, expected[0])
    assert at.query_params["cmask"] == encode(custom)


def test_custom_mask_starts_causal_and_is_put_in_the_link() -> None:
    at = run_page(text="one two three", mask="custom")
    np.testing.assert_array_equal(decode(at.query_params["cmask"]), np.tri(3, dtype=bool))


@pytest.mark.parametrize("code", ["garbage", "3x3.!!", "3x3.AAAAAAAA", "0x0.", "9999x9999.A"])
def test_damaged_custom_mask_in_the_link_warns_and_falls_back_to_causal(code: str) -> None:
    at = run_page(text="one two three", mask="custom", cmask=code, view="4 Weights")
    assert_no_exception(at)
    assert at.warning
    expected, _ = expected_weights(ac.AttentionConfig(mask="causal"), "one two three")
    plotted = decode_array(charts(at)["Attention weights · head 1"]["data"][0]["z"])
    np.testing.assert_array_equal(plotted, expected[0])


def test_padding_hint_button_appends_pad_tokens_which_get_masked() -> None:
    at = run_page(text="one two three", mask="padding", view="4 Weights")
    assert any("add <pad> or [PAD]" in shown(info) for info in at.info)
    at.button[0].click().run()
    assert_no_exception(at)
    assert at.text_area(key="text").value == "one two three <pad> <pad>"
    plotted = decode_array(charts(at)["Attention weights · head 1"]["data"][0]["z"])
    assert plotted.shape == (5, 5)
    assert np.isnan(plotted[:, 3:]).all() and not np.isnan(plotted[:, :3]).any()
    assert not at.info  # the hint is gone once there is padding


# ------------------------------------------------------------------ links reproduce the view


def test_query_params_set_before_the_run_reproduce_the_view() -> None:
    at = run_page(
        text=SENTENCE,
        heads="4",
        head="2",
        mask="causal",
        seed="11",
        d_model="32",
        pe="learned",
        view="4 Weights",
    )
    assert_no_exception(at)
    assert at.selectbox(key="heads").value == 4
    assert at.selectbox(key="head").value == 2
    assert at.selectbox(key="mask").value == "causal"
    assert at.number_input(key="seed").value == 11
    assert at.text_area(key="text").value == SENTENCE
    config = ac.AttentionConfig(d_model=32, n_heads=4, mask="causal", seed=11, positional="learned")
    expected, _ = expected_weights(config)
    plotted = decode_array(charts(at)["Attention weights · head 2"]["data"][0]["z"])
    np.testing.assert_array_equal(plotted, expected[1])


def test_a_view_changed_by_clicking_equals_the_view_opened_from_its_link() -> None:
    at = run_page(view="4 Weights")
    at.text_area(key="text").set_value(SENTENCE).run()
    at.selectbox(key="heads").set_value(4).run()
    at.selectbox(key="mask").set_value("sliding").run()
    at.slider(key="window").set_value(2).run()
    at.selectbox(key="head").set_value(3).run()
    assert_no_exception(at)

    shared = run_page(
        text=SENTENCE, heads="4", mask="sliding", window="2", head="3", view="4 Weights"
    )
    assert_no_exception(shared)
    assert charts(shared) == charts(at)
    assert "Attention weights · head 3" in charts(shared)


# ------------------------------------------------------------------ bad input never breaks the page


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \n"])
def test_empty_text_shows_an_error_and_no_views(text: str) -> None:
    at = run_page(text="x")
    at.text_area(key="text").set_value(text).run()
    assert_no_exception(at)
    assert "type at least one word" in shown(at.error[0])
    assert not charts(at)


@pytest.mark.parametrize(
    "text",
    [
        "?!... ,;:",
        "I ❤️ attention 🤖🚀",
        "注意力机制很有用",
        "ההתקפה של הקשב",
        "الانتباه هو كل ما تحتاجه",
        "tab\there\x00nul\x07bell\u202eright-to-left override\u200bzero width",
        "x" * 5000,
    ],
    ids=["punctuation", "emoji", "cjk", "hebrew", "arabic", "control-chars", "one-long-word"],
)
def test_unusual_text_still_draws_every_view(text: str) -> None:
    at = run_page(view="4 Weights")
    at.text_area(key="text").set_value(text).run()
    assert_no_exception(at)
    assert not at.error
    tokens = ac.tokenize(text)
    plotted = decode_array(charts(at)["Attention weights · head 1"]["data"][0]["z"])
    assert plotted.shape == (len(tokens.tokens),) * 2


def test_html_and_script_text_is_shown_only_as_text() -> None:
    payload = "<img src=x onerror=alert(1)> <script>alert(1)</script>"
    at = run_page(text=payload, view="1 Tokens")
    assert_no_exception(at)
    tokens = at.dataframe[0].value
    assert "<" in list(tokens["token"]) and "img" in list(tokens["token"])
    rendered = [element.value for element in (*at.markdown, *at.caption, *at.warning, *at.info)]
    assert not any("<img" in value or "<script" in value for value in rendered)


def test_the_token_table_is_indexed_by_position_with_each_token_and_its_label() -> None:
    at = run_page(text=SENTENCE, view="1 Tokens")
    tokens = ac.tokenize(SENTENCE)
    table = at.dataframe[0].value
    assert table.index.name == "index"
    assert list(table.index) == list(range(len(tokens.tokens)))
    assert list(table["token"]) == list(tokens.tokens)
    assert list(table["label"]) == list(tokens.labels)


def test_ten_thousand_words_are_cut_to_the_token_limit_with_a_warning() -> None:
    at = run_page(view="4 Weights")
    at.text_area(key="text").set_value(" ".join(f"w{i}" for i in range(10_000))).run()
    assert_no_exception(at)
    limit = ac.limits.MAX_TOKENS
    assert any(f"only the first {limit} tokens are used" in shown(w) for w in at.warning)
    for spec in charts(at).values():
        for trace in spec["data"]:
            assert decode_array(trace["z"]).shape[0] <= limit  # never a huge T×T matrix


def test_hundred_thousand_characters_in_a_link_are_cut_with_a_warning() -> None:
    at = run_page(text="word " * 20_000, view="4 Weights")
    assert_no_exception(at)
    assert any("link (text) is longer than 20,000 characters" in shown(w) for w in at.warning)
    assert any("only the first 128 tokens are used" in shown(w) for w in at.warning)
    assert max(len(t["y"]) for spec in charts(at).values() for t in spec["data"]) <= 128


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("heads", "0"),
        ("d_model", "-5"),
        ("mask", "../../etc"),
        ("seed", "abc"),
        ("pe", "<script>"),
        ("combine", "x"),
        ("cross", "maybe"),
    ],
)
def test_nonsense_link_values_warn_and_fall_back_to_defaults(key: str, value: str) -> None:
    at = run_page(**{key: value})
    assert_no_exception(at)
    assert any(f"{key}={value}" in shown(warning) for warning in at.warning)
    assert charts(at)


def test_one_hot_narrower_than_the_vocabulary_explains_what_to_change() -> None:
    at = run_page(text=SENTENCE, embedding="onehot", d_model="4", heads="2")
    assert_no_exception(at)
    assert "Raise d_model" in shown(at.error[0])
    assert not charts(at)


def test_empty_second_sentence_in_cross_attention_shows_an_error() -> None:
    at = run_page(text=SENTENCE, cross="true")
    at.text_area(key="text2").set_value("").run()
    assert_no_exception(at)
    assert "second sentence" in shown(at.error[0])


# ------------------------------------------------------------------ figure builders, no server


def test_head_view_draws_only_lines_above_the_threshold_with_a_capped_trace_count() -> None:
    weights = np.array([[[0.7, 0.295, 0.005], [0.0, 0.5, 0.5]]])  # (H=1, T=2, S=3)
    lines = select_lines(weights, heads=[0], query=0)
    assert sorted(lines.key.tolist()) == [0, 1]  # 0.005 is below MIN_WEIGHT
    figure = head_view(weights, ["a", "b"], ["x", "y", "z"], heads=[0], query=0)
    drawn = [trace for trace in figure.data if trace.mode == "lines" and trace.x != (None,)]
    assert len(drawn) == 2  # strengths 0.7 and 0.295 fall in different levels
    assert {trace.line.width for trace in drawn} == {7 * 5 / N_LEVELS, 7 * 2 / N_LEVELS}


def test_head_view_keeps_only_the_strongest_lines_at_128_tokens_and_16_heads() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(16, 128, 128)) * 4
    weights = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    lines = select_lines(weights, heads=range(16))
    assert len(lines.weight) == MAX_LINES
    assert lines.weight.min() >= np.sort(weights[weights > 0.01])[-MAX_LINES]
    figure = head_view(
        weights, [f"q{i}" for i in range(128)], [f"k{i}" for i in range(128)], heads=list(range(16))
    )
    assert len(figure.data) <= 16 * (N_LEVELS + 1) + 2


def test_strength_levels_round_weights_up() -> None:
    np.testing.assert_array_equal(
        strength_level(np.array([0.011, 1 / N_LEVELS, 0.5, 1.0])), [1, 1, N_LEVELS // 2, N_LEVELS]
    )


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (14, 14), (128, 128)])
def test_mask_code_round_trips(shape: tuple[int, int]) -> None:
    mask = np.random.default_rng(1).random(shape) > 0.5
    code = encode(mask)
    assert code.startswith(f"{shape[0]}x{shape[1]}.")
    np.testing.assert_array_equal(decode(code), mask)


def test_every_configuration_has_a_formula_and_two_sentences_for_every_step() -> None:
    for mask in ac.MASKS:
        for positional in ac.POSITIONAL_ENCODINGS:
            config = ac.AttentionConfig(mask=mask, positional=positional)
            for step in stages_for(config, cross=True).values():
                assert step.formula and step.explanation.count(". ") >= 1, step.key


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"head": "99"}, "head=99"),
        ({"view": "9 Nowhere"}, "view=9 Nowhere"),
        ({"numbers": "perhaps"}, "numbers=perhaps"),
    ],
)
def test_a_bad_view_setting_in_the_link_is_named_in_a_warning(
    params: dict[str, str], named: str
) -> None:
    at = run_page(**params)
    assert_no_exception(at)
    assert any(named in shown(warning) for warning in at.warning)
    assert charts(at)


def bound_widget_keys(at: AppTest) -> set[str]:
    """The keys of the page's input widgets in this run (every one is bound to the URL, but
    the answers to "Check yourself", which a shared link leaves unanswered)."""
    kinds = ("selectbox", "multiselect", "toggle", "number_input", "slider", "text_area")
    return {
        widget.key
        for kind in kinds
        for widget in at.get(kind)
        if widget.key and not widget.key.startswith(KEY_PREFIX)
    }


def test_url_keys_name_every_widget_the_page_binds() -> None:
    from ui.text.state import URL_KEYS

    at = run_page(
        text=SENTENCE, cross="true", text2="le chat", mask="sliding", scale="temperature",
        custom_widths="true", view="5 Head view",
    )  # fmt: skip
    assert_no_exception(at)
    assert bound_widget_keys(at) <= set(URL_KEYS)
    assert {"cmask", "view"} <= set(URL_KEYS)  # the custom grid and the open tab
