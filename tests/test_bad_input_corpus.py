"""Bad input of every kind, on every page (AppTest, through app.py as a deep link).

Every case ends with the page drawn and no exception element. Input that is
really bad (no words, a broken file, a link value a widget cannot take) also
gets an error or warning that says what was wrong; input that is merely
unusual (emoji, CJK, right-to-left, markup as text) gets a working page with
its tokens on the axes and the markup shown only as text.
"""

from __future__ import annotations

import codecs
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.plotly_specs import charts, figures
from ui.figures.build import read_text
from ui.shared.safe import unescape_markdown

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
TITLES = {
    "home": "Attention Visualizer",
    "text": "Text attention",
    "time_series": "Time-series attention",
    "positional_encoding": "Positional encodings",
    "walkthrough": "Classroom walkthrough",
    "learning": "Watch attention learn",
    "pretrained": "Inside a real model",
}
MAX_TEXT_CHARS = 20_000  # attention_core.boundary.limits.MAX_TEXT_CHARS, written out


def drawn_labels(spec: dict) -> list[str]:
    """A heatmap's row labels as the student reads them (a plotly figure escapes them; a
    walkable matrix sends them as they are, for the browser to write as text)."""
    labels = spec["data"][0]["y"]
    return list(labels) if "walkable" in spec else [read_text(label) for label in labels]


def open_page(page: str, params: dict[str, str | list[str]]) -> AppTest:
    """Open ``page`` the way a shared link does: its first run, with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=90)
    if page != "home":
        at.switch_page(f"views/{page}.py")
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def shown(element: object) -> str:
    """A message as the user reads it (ui.shared.safe backslash-escapes Markdown characters)."""
    return unescape_markdown(element.value)


def errors_shown(at: AppTest) -> list[str]:
    return [shown(error) for error in at.error]


def warnings_shown(at: AppTest) -> list[str]:
    return [shown(warning) for warning in at.warning]


def chart_specs(at: AppTest) -> list[dict]:
    """Every chart's spec: plotly's, then each walkable matrix's (tests/plotly_specs.py)."""
    return figures(at)


def chart_titled(at: AppTest, title: str) -> dict:
    matches = [spec for spec in chart_specs(at) if spec["layout"]["title"]["text"] == title]
    assert matches, [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    return matches[0]


def assert_drawn_without_exception(at: AppTest, page: str) -> None:
    """The page's title is there and no exception element (so no traceback) was drawn."""
    assert not at.exception, [exception.value for exception in at.exception]
    assert [title.value for title in at.title] == [TITLES[page]]


# Markdown-rendering elements must show user text escaped: "\<img", never "<img".
UNESCAPED_MARKUP = re.compile(r"(?<!\\)<(img|script)|(?<!\\)\]\((javascript|http)")


def assert_markup_only_as_text(at: AppTest) -> None:
    for element in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success):
        assert not UNESCAPED_MARKUP.search(element.value), element.value


# ------------------------------------------------------------------ text in every text field


@dataclass(frozen=True)
class TextField:
    page: str
    key: str
    widget: str  # the AppTest accessor: "text_area" or "text_input"
    params: dict[str, str]  # what the field needs to be drawn
    named: str  # how the page's messages name this text ("" when they don't)
    chart: str  # a chart whose row labels are this text's tokens


FIELDS = {
    "text": TextField("text", "text", "text_area", {}, "The sentence", "Token vectors X"),
    "text2": TextField(
        "text",
        "text2",
        "text_area",
        {"cross": "true"},
        "The second sentence",
        "Token vectors X · second sentence",
    ),
    "pe_sentence": TextField(
        "positional_encoding", "pe_sentence", "text_input", {}, "", "Attention weights"
    ),
}
ROUTES = ("link", "typed")


def enter_text(field: TextField, route: str, text: str) -> AppTest:
    """Put ``text`` in the field through a shared link, or by typing it into the drawn page."""
    if route == "link":
        return open_page(field.page, {**field.params, field.key: text})
    at = open_page(field.page, field.params)
    getattr(at, field.widget)(key=field.key).set_value(text)
    return at.run()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("text", ["", "  \n\t  "], ids=["empty", "whitespace"])
def test_text_without_words_shows_what_to_type_and_no_traceback(
    text: str, field: str, route: str
) -> None:
    spec = FIELDS[field]
    at = enter_text(spec, route, text)
    assert_drawn_without_exception(at, spec.page)
    prefix = f"{spec.named}: " if spec.named else ""
    assert errors_shown(at) == [f"{prefix}There is no word to attend over: type at least one word."]


VALID_TEXTS = {
    "emoji": ("I ❤️ attention 🤖🚀👍🏽", ["I", "❤️", "attention", "🤖", "🚀", "👍🏽"]),
    "cjk": ("注意力机制很有用", ["注", "意", "力", "机", "制", "很", "有", "用"]),
    "arabic": ("الانتباه هو كل ما تحتاجه", ["الانتباه", "هو", "كل", "ما", "تحتاجه"]),
    "hebrew": ("ההתקפה של הקשב", ["ההתקפה", "של", "הקשב"]),
    # NUL, an ANSI colour escape and a right-to-left override are dropped, not shown.
    "control-chars": (
        "a\x00b \x1b[31mred\x1b[0m \u202eevil\u202c end",
        ["a", "b", "[", "31mred", "[₂", "0m", "evil", "end"],
    ),
    "img-onerror": (
        "<img src=x onerror=alert(1)>",
        ["<", "img", "src", "=", "x", "onerror", "=₂", "alert", "(", "1", ")", ">"],
    ),
    "script-tag": (
        "<script>alert(1)</script>",
        ["<", "script", ">", "alert", "(", "1", ")", "<₂", "/", "script₂", ">₂"],
    ),
    "markdown-js-link": (
        "[click](javascript:alert(1))",
        ["[", "click", "]", "(", "javascript", ":", "alert", "(₂", "1", ")", ")₂"],
    ),
    "markdown-image": (
        "![x](http://x)",
        ["!", "[", "x", "]", "(", "http", ":", "/", "/₂", "x₂", ")"],
    ),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("case", VALID_TEXTS)
def test_unusual_text_draws_its_tokens_and_shows_markup_only_as_text(
    case: str, field: str, route: str
) -> None:
    text, labels = VALID_TEXTS[case]
    spec = FIELDS[field]
    at = enter_text(spec, route, text)
    assert_drawn_without_exception(at, spec.page)
    assert errors_shown(at) == []
    assert warnings_shown(at) == []
    assert getattr(at, spec.widget)(key=spec.key).value == text
    assert drawn_labels(chart_titled(at, spec.chart)) == labels
    assert_markup_only_as_text(at)


TEN_THOUSAND_WORDS = " ".join(f"w{i}" for i in range(10_000))  # 58 890 characters
HUNDRED_THOUSAND_CHARS = "attention heads " * 6_250  # 100 000 characters, 12 500 words
ONE_WORD_100K = "x" * 100_000


def link_cut(key: str) -> str:
    return (
        f"The text in this link ({key}) is longer than 20,000 characters; only its first "
        "20,000 characters are used."
    )


def tokens_cut(named: str, total: str, cut: str) -> str:
    return f"{named} has {total} tokens: only the first 128 tokens are used, {cut} were cut."


PE_TOKENS_CUT = "Only the first 128 tokens are used."
PE_ONE_WORD = "Type at least two words, so that two of them can swap places."

# (field, route, text, warnings as the user reads them). The first 20 000 characters
# hold 3 519 of the numbered words, or 2 500 of "attention heads".
LONG_TEXTS = [
    (
        "text",
        "link",
        TEN_THOUSAND_WORDS,
        [link_cut("text"), tokens_cut("The sentence", "3,519", "3,391")],
    ),
    ("text", "typed", TEN_THOUSAND_WORDS, [tokens_cut("The sentence", "3,519", "3,391")]),
    (
        "text",
        "link",
        HUNDRED_THOUSAND_CHARS,
        [link_cut("text"), tokens_cut("The sentence", "2,500", "2,372")],
    ),
    ("text", "typed", HUNDRED_THOUSAND_CHARS, [tokens_cut("The sentence", "2,500", "2,372")]),
    ("text", "link", ONE_WORD_100K, [link_cut("text")]),
    ("text", "typed", ONE_WORD_100K, []),  # the text area itself stops at 20 000 characters
    (
        "text2",
        "link",
        TEN_THOUSAND_WORDS,
        [link_cut("text2"), tokens_cut("The second sentence", "3,519", "3,391")],
    ),
    ("text2", "typed", TEN_THOUSAND_WORDS, [tokens_cut("The second sentence", "3,519", "3,391")]),
    (
        "text2",
        "link",
        HUNDRED_THOUSAND_CHARS,
        [link_cut("text2"), tokens_cut("The second sentence", "2,500", "2,372")],
    ),
    (
        "text2",
        "typed",
        HUNDRED_THOUSAND_CHARS,
        [tokens_cut("The second sentence", "2,500", "2,372")],
    ),
    ("text2", "link", ONE_WORD_100K, [link_cut("text2")]),
    ("text2", "typed", ONE_WORD_100K, []),
    ("pe_sentence", "link", TEN_THOUSAND_WORDS, [PE_TOKENS_CUT]),
    ("pe_sentence", "typed", TEN_THOUSAND_WORDS, [PE_TOKENS_CUT]),
    ("pe_sentence", "link", HUNDRED_THOUSAND_CHARS, [PE_TOKENS_CUT]),
    ("pe_sentence", "typed", HUNDRED_THOUSAND_CHARS, [PE_TOKENS_CUT]),
    ("pe_sentence", "link", ONE_WORD_100K, [PE_ONE_WORD]),
    ("pe_sentence", "typed", ONE_WORD_100K, [PE_ONE_WORD]),
]


@pytest.mark.parametrize(
    ("field", "route", "text", "expected"),
    LONG_TEXTS,
    ids=[f"{f}-{r}-{len(t.split())}words-{len(t)}chars" for f, r, t, _ in LONG_TEXTS],
)
def test_long_text_is_cut_to_the_limits_with_a_warning(
    field: str, route: str, text: str, expected: list[str]
) -> None:
    spec = FIELDS[field]
    at = enter_text(spec, route, text)
    assert_drawn_without_exception(at, spec.page)
    assert errors_shown(at) == []
    assert warnings_shown(at) == expected
    assert getattr(at, spec.widget)(key=spec.key).value == text[:MAX_TEXT_CHARS]
    if field != "pe_sentence" or text != ONE_WORD_100K:  # one word: nothing to swap, no chart
        rows = chart_titled(at, spec.chart)["data"][0]["y"]
        assert 1 <= len(rows) <= 128


# ------------------------------------------------------------------ files for the time-series page


def upload(data: bytes, name: str = "upload.csv") -> AppTest:
    """Open the time-series page in upload mode and upload ``data`` (window of 10 days)."""
    at = open_page("time_series", {"ts_source": "upload", "ts_length": "10"})
    at.file_uploader(key="ts_upload").set_value((name, data, "text/csv"))
    return at.run()


def attention_drawn(at: AppTest) -> bool:
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    return any(title.startswith("Attention weights of head") for title in titles)


FORTY_ROWS = "".join(f"{day},{day % 7}\n" for day in range(40))  # two numeric columns
SAVE_AS_CSV = "Save it as a CSV file (UTF-8, comma or semicolon separated) and upload that."
NUL_BYTES = (
    "The file contains NUL bytes: it is binary, or text saved as UTF-16 without a "
    f"byte-order mark. {SAVE_AS_CSV}"
)
RESCALE = "Remove those rows or rescale the column (e.g. to thousands)."

BROKEN_FILES = {
    "empty": (b"", "The file is empty. Upload a CSV file with a header row and numbers."),
    "png-header": (
        b"\x89PNG\r\n\x1a\n" + bytes(64),
        f"This is a PNG image, not a text table. {SAVE_AS_CSV}",
    ),
    "random-bytes": (random.Random(0).randbytes(4096), NUL_BYTES),
    "nul-bytes": (b"a,b\n1,2\x00\x00\n3,4\n" * 20, NUL_BYTES),
    "utf16-without-bom": (("a,b\n" + FORTY_ROWS).encode("utf-16-le"), NUL_BYTES),
    "one-row": (
        b"a,b\n1,2\n",
        "The file has 1 usable row(s); a series needs at least 2, and "
        "more than the window length to be useful.",
    ),
    "all-text": ("name,city\n" + "".join(f"n{i},c{i}\n" for i in range(40))).encode(),
    "colon-separated": ("a:b\n" + "".join(f"{i}:2\n" for i in range(40))).encode(),
    "infinity": (
        ("a,b\n" + FORTY_ROWS + "inf,1\n").encode(),
        "Column 'a' has values that are infinite or too large to store (such as 1e400), "
        f"e.g. in data row 41. {RESCALE}",
    ),
    "1e308": ("a,b\n" + "".join(f"1e308,{i}\n" for i in range(40))).encode(),
    "1e400": ("a,b\n" + "".join(f"1e400,{i}\n" for i in range(40))).encode(),
    "10000-columns": (
        ",".join(f"c{j}" for j in range(10_000)) + "\n" + ("1," * 9_999 + "1\n") * 3
    ).encode(),
    "over-5-MB": b"a\n" + b"1\n" * 2_700_000,  # 5 400 002 bytes
}
BROKEN_FILE_ERRORS = {
    "all-text": "No column of numbers was found (name: text, not numbers (e.g. 'n0'); city: "
    "text, not numbers (e.g. 'c0')). The series needs at least one column whose cells "
    "are numbers.",
    "colon-separated": "No column of numbers was found (a:b: text, not numbers (e.g. '0:2')). "
    "The series needs at least one column whose cells are numbers.",
    "1e308": f"Column 'a' has values that are larger than 1e+15 in size, e.g. in data row 1. "
    f"{RESCALE}",
    "1e400": "Column 'a' has values that are infinite or too large to store (such as 1e400), "
    f"e.g. in data row 1. {RESCALE}",
    "10000-columns": "The file has 10000 columns; the limit is 50. Keep only the columns you "
    "want to look at.",
    "over-5-MB": "The file is larger than the limit of 5.0 MB (5.1 MB or more). Upload fewer "
    "rows or columns, e.g. a shorter period.",
}


@pytest.mark.parametrize("name", BROKEN_FILES)
def test_broken_file_says_what_is_wrong_and_draws_no_attention(name: str) -> None:
    entry = BROKEN_FILES[name]
    data, message = entry if isinstance(entry, tuple) else (entry, BROKEN_FILE_ERRORS[name])
    at = upload(data)
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == [message]
    assert not attention_drawn(at)


# (file, how the page says it read it, the feature columns offered, info notes)
UNUSUAL_FILES = {
    "one-column": (
        ("value\n" + "".join(f"{i}\n" for i in range(40))).encode(),
        "Read as UTF-8, comma-separated, with a header row.",
        ["value"],
        [],
    ),
    "missing-values": (
        ("a,b\n" + FORTY_ROWS + "nan,1\n5,NaN\n6,\n").encode(),
        "Read as UTF-8, comma-separated, with a header row.",
        ["a", "b"],
        ["3 missing values were filled with the value before them."],
    ),
    "pipe-separated": (
        ("x|y\n" + "".join(f"{i}|2\n" for i in range(40))).encode(),
        "Read as UTF-8, vertical bar-separated, with a header row.",
        ["x", "y"],
        [],
    ),
    "utf16-le-bom": (
        codecs.BOM_UTF16_LE + ("temp,rain\n" + FORTY_ROWS).encode("utf-16-le"),
        "Read as UTF-16, comma-separated, with a header row.",
        ["temp", "rain"],
        [],
    ),
    "utf16-be-bom": (
        codecs.BOM_UTF16_BE + ("temp,rain\n" + FORTY_ROWS).encode("utf-16-be"),
        "Read as UTF-16, comma-separated, with a header row.",
        ["temp", "rain"],
        [],
    ),
}


@pytest.mark.parametrize("name", UNUSUAL_FILES)
def test_unusual_but_valid_file_is_read_and_draws_attention(name: str) -> None:
    data, read_as, columns, notes = UNUSUAL_FILES[name]
    at = upload(data)
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == []
    assert warnings_shown(at) == []
    assert shown(at.caption[0]) == read_as
    assert at.multiselect(key="ts_features").value == columns
    assert [shown(info) for info in at.info] == notes
    assert attention_drawn(at)


def test_markup_in_a_csv_header_is_only_ever_a_column_name() -> None:
    script, img = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>"
    rows = "".join(f"{day},{day % 7},note {day}\n" for day in range(40))
    at = upload(f"{script},{img},[x](javascript:alert(1))\n{rows}".encode())
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == []
    assert at.multiselect(key="ts_features").options == [script, img]
    assert at.selectbox(key="ts_target").value == script
    # The text column is reported by name, escaped, in an info box.
    assert [shown(info) for info in at.info] == [
        "Column '[x](javascript:alert(1))' is left out: text, not numbers (e.g. 'note 0')."
    ]
    legend = [trace["name"] for trace in chart_titled(at, "The series")["data"]]
    assert legend == [script, script, img]  # chart text: Plotly draws unknown tags as text
    assert_markup_only_as_text(at)


# ------------------------------------------------------------------ nonsense in the link


def refused(*pairs: str) -> str:
    """The warning a page shows for link values its widgets refused."""
    return (
        "This link has values that are not valid here, so the defaults are used instead: "
        + "; ".join(pairs)
        + "."
    )


LONG_NUMBER = "9" * 10_000
LONG_WORD = "x" * 10_000
SCRIPT = "<script>alert(1)</script>"

# (page, query parameters, the refused-values warning). Values over 40 characters are
# shortened in the message.
NONSENSE_LINKS = [
    ("text", {"heads": "0"}, refused("heads=0")),
    ("text", {"d_model": "-5"}, refused("d_model=-5")),
    ("text", {"mask": "../../etc"}, refused("mask=../../etc")),
    ("text", {"seed": "abc"}, refused("seed=abc")),
    ("text", {"pe": "<script>"}, refused("pe=<script>")),
    ("text", {"mask": LONG_WORD}, refused(f"mask={'x' * 40}…")),
    ("text", {"cross": "maybe", "combine": SCRIPT}, refused(f"combine={SCRIPT}", "cross=maybe")),
    ("text", {"present": SCRIPT}, refused(f"present={SCRIPT}")),
    (
        "time_series",
        {
            "ts_heads": "0",
            "ts_d_model": "-5",
            "ts_mask": "../../etc",
            "ts_seed": "abc",
            "ts_pe": "<script>",
        },
        refused(
            "ts_d_model=-5", "ts_heads=0", "ts_pe=<script>", "ts_mask=../../etc", "ts_seed=abc"
        ),
    ),
    (
        "time_series",
        {
            "ts_source": SCRIPT,
            "ts_sample": "../../etc",
            "ts_length": "abc",
            "ts_scaling": "x",
            "ts_act": "y",
            "ts_end": "-5",
            "ts_five_day": "maybe",
            "ts_train": "maybe",
        },
        refused(
            f"ts_source={SCRIPT}",
            "ts_sample=../../etc",
            "ts_length=abc",
            "ts_scaling=x",
            "ts_act=y",
            "ts_end=-5",
            "ts_five_day=maybe",
            "ts_train=maybe",
        ),
    ),
    ("time_series", {"ts_length": LONG_NUMBER}, refused(f"ts_length={'9' * 40}…")),
    ("time_series", {"ts_target": SCRIPT}, refused(f"ts_target={SCRIPT}")),
    ("time_series", {"present": SCRIPT}, refused(f"present={SCRIPT}")),
    ("positional_encoding", {"pe_length": "-5"}, refused("pe_length=-5")),
    ("positional_encoding", {"pe_d_model": "99999"}, refused("pe_d_model=99999")),
    ("positional_encoding", {"pe_kind": SCRIPT}, refused(f"pe_kind={SCRIPT}")),
    ("positional_encoding", {"pe_base": "nan"}, refused("pe_base=nan")),
    ("positional_encoding", {"pe_length": LONG_NUMBER}, refused(f"pe_length={'9' * 40}…")),
    (
        "positional_encoding",
        {"pe_swap_first": "99", "pe_swap_second": "-3"},
        refused("pe_swap_first=99", "pe_swap_second=-3"),
    ),
    ("positional_encoding", {"present": SCRIPT}, refused(f"present={SCRIPT}")),
    ("walkthrough", {"step": "99"}, refused("step=99")),
    ("walkthrough", {"step": "abc"}, refused("step=abc")),
    ("walkthrough", {"step": SCRIPT}, refused(f"step={SCRIPT}")),
    ("walkthrough", {"step": LONG_NUMBER}, refused(f"step={'9' * 40}…")),
    (
        "walkthrough",
        {"step": "1", "wt_query_0": "abc", "wt_query_1": "99"},
        refused("wt_query_0=abc", "wt_query_1=99"),
    ),
    ("walkthrough", {"step": "3", "wt_n_keys": "-4"}, refused("wt_n_keys=-4")),
    (
        "walkthrough",
        {"step": "5", "wt_head_width": "5", "wt_combine": "../../etc"},
        refused("wt_head_width=5", "wt_combine=../../etc"),
    ),
    (
        "walkthrough",
        {"step": "6", "wt_grad_seed": "-1", "wt_grad_causal": "maybe"},
        refused("wt_grad_seed=-1", "wt_grad_causal=maybe"),
    ),
    ("walkthrough", {"present": SCRIPT}, refused(f"present={SCRIPT}")),
    ("home", {"present": SCRIPT}, refused(f"present={SCRIPT}")),
    ("home", {"present": LONG_WORD}, refused(f"present={'x' * 40}…")),
]


@pytest.mark.parametrize(
    ("page", "params", "warning"),
    NONSENSE_LINKS,
    ids=[f"{page}-{'-'.join(params)}" for page, params, _ in NONSENSE_LINKS],
)
def test_nonsense_link_values_are_named_in_a_warning_and_the_page_still_works(
    page: str, params: dict[str, str], warning: str
) -> None:
    at = open_page(page, params)
    assert_drawn_without_exception(at, page)
    assert errors_shown(at) == []
    assert warning in warnings_shown(at)
    assert_markup_only_as_text(at)
    if page != "home":
        assert charts(at)


# Streamlit 1.67 parses an integer number_input's link value as a float and calls int() on
# it: inf, 1e400 or a number of 309+ digits raise OverflowError inside st.number_input. The
# navigation script reopens the page without such values (ui.shared.url) and says which it dropped.
OVERFLOWING_NUMBERS = [
    ("text", {"seed": LONG_NUMBER}, refused(f"seed={'9' * 40}…")),
    ("text", {"d_model": "inf"}, refused("d_model=inf")),
    ("time_series", {"ts_seed": "1e400"}, refused("ts_seed=1e400")),
    ("time_series", {"ts_d_model": "-inf"}, refused("ts_d_model=-inf")),
    ("positional_encoding", {"pe_swap_first": LONG_NUMBER}, refused(f"pe_swap_first={'9' * 40}…")),
    ("positional_encoding", {"pe_swap_second": "inf"}, refused("pe_swap_second=inf")),
    (
        "walkthrough",
        {"step": "6", "wt_grad_seed": LONG_NUMBER},
        refused(f"wt_grad_seed={'9' * 40}…"),
    ),
]


@pytest.mark.parametrize(
    ("page", "params", "warning"),
    [pytest.param(*case, id=f"{case[0]}-{list(case[1])[-1]}") for case in OVERFLOWING_NUMBERS],
)
def test_number_beyond_float_range_in_the_link_is_refused_not_a_crash(
    page: str, params: dict[str, str], warning: str
) -> None:
    at = open_page(page, params)
    assert_drawn_without_exception(at, page)
    assert warning in warnings_shown(at)


# (page, query parameters, a widget key, the value it takes). Parameters no page knows
# (tracking tags, other pages' keys) are ignored without a word; a repeated parameter
# takes one of its values.
IGNORED_OR_REPEATED = [
    ("home", {"utm_source": "mail", "heads": "0", "zzz": ""}, None, None),
    ("text", {"utm_source": "mail", "pe_length": "-5", "zzz": ""}, "heads", 2),
    ("text", {"heads": ["2", "4"]}, "heads", 4),
    ("time_series", {"utm_source": "mail", "heads": "0", "step": "abc"}, "ts_heads", 2),
    ("time_series", {"ts_sample": ["stocks", "ohlcv"]}, "ts_sample", "ohlcv"),
    ("positional_encoding", {"utm_source": "mail", "ts_length": "abc"}, "pe_kind", "sinusoidal"),
    ("positional_encoding", {"pe_kind": ["rotary", "learned"]}, "pe_kind", "learned"),
    ("walkthrough", {"utm_source": "mail", "text": SCRIPT}, "step", 1),
]


@pytest.mark.parametrize(
    ("page", "params", "key", "value"),
    IGNORED_OR_REPEATED,
    ids=[f"{page}-{'-'.join(params)}" for page, params, _, _ in IGNORED_OR_REPEATED],
)
def test_unknown_and_repeated_link_parameters_leave_a_working_page(
    page: str, params: dict[str, str | list[str]], key: str | None, value: object
) -> None:
    at = open_page(page, params)
    assert_drawn_without_exception(at, page)
    assert errors_shown(at) == []
    assert warnings_shown(at) == []
    if key is not None:
        assert at.session_state[key] == value
        assert charts(at)


def test_empty_link_value_for_a_required_choice_falls_back_to_its_default() -> None:
    """``?wt_combine=`` leaves Streamlit's required segmented control empty (None)."""
    at = open_page("walkthrough", {"step": "5", "wt_head_width": "", "wt_combine": ""})
    assert_drawn_without_exception(at, "walkthrough")
    assert errors_shown(at) == []
    assert "e = 12, h = 4 gives **3 heads**." in [markdown.value for markdown in at.markdown]
    assert r"O = [C_1 \; C_2 \; \dots \; C_H]\, W^O" in at.latex[-1].value  # concat
    assert chart_titled(at, "Combined output (5, 12)")


def test_repeated_step_opens_the_first_step_given_and_says_the_other_was_refused() -> None:
    at = open_page("walkthrough", {"step": ["4", "3"]})
    assert_drawn_without_exception(at, "walkthrough")
    assert at.segmented_control(key="step").value == 4
    assert refused("step=3") in warnings_shown(at)


# ------------------------------------------------------------------ the learning page's probe

PROBE_KEY = "learn_reverse_probe"
BAD_PROBES = {
    "empty": ("", "Type exactly 8 symbols"),
    "too-short": ("1234", "Type exactly 8 symbols"),
    "letters": ("abcdefgh", "are not in this task's alphabet; type only 0–9."),
    "emoji": ("1234567🤖", "'🤖' is not in this task's alphabet"),
    "img-onerror": ("<img src=x onerror=alert(1)>", "not in this task's alphabet"),
    "markdown-js-link": ("[1](javascript:1)", "not in this task's alphabet"),
    "control-chars": ("1234\x00567", "not in this task's alphabet"),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", BAD_PROBES)
def test_a_bad_probe_on_the_learning_page_says_what_to_type(case: str, route: str) -> None:
    text, words = BAD_PROBES[case]
    if route == "link":
        at = open_page("learning", {PROBE_KEY: text})
    else:
        at = open_page("learning", {})
        at.text_input(key=PROBE_KEY).set_value(text)
        at.run()
    assert_drawn_without_exception(at, "learning")
    (error,) = errors_shown(at)
    assert words in error
    assert_markup_only_as_text(at)
    assert chart_titled(at, "Training: loss, held-out accuracy and head scores")


def test_a_probe_too_long_for_the_box_in_a_link_is_named_and_the_default_used() -> None:
    at = open_page("learning", {PROBE_KEY: "1" * 100_000})
    assert_drawn_without_exception(at, "learning")
    assert at.text_input(key=PROBE_KEY).value == "31415926"
    assert any(PROBE_KEY in warning for warning in warnings_shown(at))


# ------------------------------------------------------------------ ranges with one value

# Widgets whose range comes from the data must cope with a single possible value. Of
# Streamlit's widgets only st.slider refuses one (min = max raises
# StreamlitInvalidMinMaxError); selectboxes, radios, multiselects and select-sliders with
# one option work. These files leave exactly one value for a data-driven range.
ONE_VALUE_FILES = {
    "rows-equal-window": (
        "date,value\n" + "".join(f"2024-03-{d:02d},{d % 7}\n" for d in range(1, 11))
    ),
    "rows-equal-window-two-columns": ("a,b\n" + "".join(f"{d},{d % 3}\n" for d in range(10))),
    "one-column-rows-equal-window": ("v\n" + "".join(f"{d * 0.5}\n" for d in range(10))),
}


@pytest.mark.parametrize("name", ONE_VALUE_FILES)
def test_a_file_exactly_one_window_long_draws_its_only_window(name: str) -> None:
    at = upload(ONE_VALUE_FILES[name].encode())
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == []
    assert attention_drawn(at)
    assert any("the only possible value" in shown(m) for m in at.markdown)


def test_one_token_sentence_leaves_one_query_and_draws_every_tab() -> None:
    for view in ("3 Q K V", "4 Weights", "5 Head view", "6 Output"):
        at = open_page("text", {"text": "Hi", "view": view, "heads": "1"})
        assert_drawn_without_exception(at, "text")
        assert errors_shown(at) == []


# ---------------------------------------------------- the pretrained model's text boxes

# (key, the parameters that draw it, how its empty message names it)
PRETRAINED_FIELDS = {
    "text": ({"view": "Every step"}, "The first sentence"),
    "text2": ({"view": "Every step", "pair": "true"}, "The second sentence"),
}
PRETRAINED_ODD_TEXTS = {
    **{case: text for case, (text, _) in VALID_TEXTS.items()},
    "nul-only": "\x00\x00\x00",
    "rtl-override-only": "\u202e\u202c",
    "ten-thousand-words": TEN_THOUSAND_WORDS[:MAX_TEXT_CHARS],
}


def pretrained_labels(params: dict[str, str]) -> list[str]:
    """The labels the model's own tokenizer gives the page's input (first sentence, pair)."""
    from attention_core.pretrained import loading

    model = loading.load_model()
    pair = params.get("text2", "It was too tired to walk any further.")
    encoded = loading.encode(
        model.tokenizer,
        params.get("text", "The animal didn't cross the street because it was too tired."),
        pair if params.get("pair") == "true" else None,
    )
    return list(encoded.labels)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("field", PRETRAINED_FIELDS)
@pytest.mark.parametrize("case", PRETRAINED_ODD_TEXTS)
def test_pretrained_page_reads_odd_text_or_says_what_to_type(
    case: str, field: str, route: str
) -> None:
    base, named = PRETRAINED_FIELDS[field]
    text = PRETRAINED_ODD_TEXTS[case]
    spec = TextField("pretrained", field, "text_area", base, named, "Layer input X · layer 4")
    at = enter_text(spec, route, text)
    assert_drawn_without_exception(at, "pretrained")
    assert_markup_only_as_text(at)
    if case in ("nul-only", "rtl-override-only"):
        assert errors_shown(at) == [f"{named} is empty: type a few words."]
        return
    assert errors_shown(at) == []
    labels = pretrained_labels({**base, field: text})
    assert drawn_labels(chart_titled(at, spec.chart)) == labels
    expected = ["only the first 128 are used"] if case == "ten-thousand-words" else []
    assert [w for w in expected if any(w in shown for shown in warnings_shown(at))] == expected


@pytest.mark.parametrize("field", PRETRAINED_FIELDS)
@pytest.mark.parametrize("text", ["", "  \n\t  "], ids=["empty", "whitespace"])
def test_pretrained_page_asks_for_words_when_a_box_is_empty(text: str, field: str) -> None:
    base, named = PRETRAINED_FIELDS[field]
    at = open_page("pretrained", {**base, field: text})
    assert_drawn_without_exception(at, "pretrained")
    assert errors_shown(at) == [f"{named} is empty: type a few words."]


def test_the_shortest_window_over_a_two_row_file_draws_its_only_window() -> None:
    at = open_page("time_series", {"ts_source": "upload", "ts_length": "2"})
    at.file_uploader(key="ts_upload").set_value(("two.csv", b"a,b\n1,2\n3,5\n", "text/csv"))
    at.run()
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == []
    assert attention_drawn(at)
    assert any("Window ends at row: **1**" in m.value for m in at.markdown)


# ------------------------------------------------------------------ ranges left empty

# A multiselect whose options come from the data can be emptied by the user; each page
# then says what to choose instead of computing on nothing.


def test_no_feature_column_chosen_asks_for_one_and_draws_no_attention() -> None:
    rows = "".join(f"{day},{day % 7},{day % 3}\n" for day in range(40))
    at = upload(("day,value,b\n" + rows).encode())
    at.multiselect(key="ts_features").set_value([]).run()
    assert_drawn_without_exception(at, "time_series")
    assert errors_shown(at) == ["Choose at least one feature column."]
    assert not attention_drawn(at)


def test_no_head_chosen_in_the_head_view_asks_for_one() -> None:
    at = open_page("text", {"text": "Hello there friend", "view": "5 Head view"})
    at.multiselect(key="show_heads").set_value([]).run()
    assert_drawn_without_exception(at, "text")
    assert [shown(info) for info in at.info] == ["Choose at least one head to draw."]


def test_no_dimension_chosen_for_the_curves_asks_for_one() -> None:
    at = open_page("positional_encoding", {})
    at.multiselect(key="pe_dims").set_value([]).run()
    assert_drawn_without_exception(at, "positional_encoding")
    assert [shown(info) for info in at.info] == ["Pick at least one dimension to plot."]
