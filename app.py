"""Attention Visualizer: navigation, presentation mode, live classes, lessons and the landing page.

Run with ``make run`` (or ``streamlit run app.py``). Every page is a script in
``views/``; this file runs before each of them on every rerun.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from hosting.collector import freeze_new_imports
from hosting.memory import keep_freed_memory
from ui.classroom import around as class_around
from ui.lessons import bar as lesson_bar
from ui.lessons.editor import add_view_button
from ui.lessons.home import lesson_list, start_the_course
from ui.loop_handoff import install as hand_events_over_in_batches
from ui.message_refs import install as refer_only_to_kept_elements
from ui.shared import url
from ui.shared.presentation import PRESENT_KEY
from ui.theme_message import install as fill_the_theme_once
from ui.widget_lookup import install as look_up_widget_keys_directly

HERE = Path(__file__).parent
PRESENT_ON = ("1", "true", "on", "yes")
PRESENT_OFF = ("", "0", "false", "off", "no")


def _presenting_from_url() -> bool:
    return st.query_params.get(PRESENT_KEY, "") in PRESENT_ON


def presentation_toggle() -> bool:
    """Sidebar toggle for projectors, mirrored in the URL as ``present=1``.

    It lives here, in the navigation script, so it survives page switches.
    """
    if PRESENT_KEY not in st.session_state:
        st.session_state[PRESENT_KEY] = _presenting_from_url()
        raw = st.query_params.get(PRESENT_KEY, "")
        if raw not in PRESENT_ON + PRESENT_OFF:
            url.warn_refused({PRESENT_KEY: raw})
    presenting = st.sidebar.toggle(
        "Presentation mode",
        key=PRESENT_KEY,
        help="Larger fonts, fewer decimals and high-contrast colours for a projector.",
    )
    if presenting:
        st.query_params[PRESENT_KEY] = "1"
    elif PRESENT_KEY in st.query_params:
        del st.query_params[PRESENT_KEY]
    return presenting


# WCAG 2.2 AA for every page (axe-core checks it in the browser suite):
# - Streamlit draws captions in #828180 (3.88:1 on white); #595959 is 7:1.
# - A display formula wider than its column becomes a scroll box that a keyboard cannot
#   reach (axe: scrollable-region-focusable); let it overflow visibly instead.
# - Nothing on these pages animates on its own; Streamlit's own transitions stop for
#   readers who ask for reduced motion.
# - Plotly's hover toolbar buttons are 22 px high; WCAG 2.5.8 asks 24 × 24 px targets.
ACCESSIBLE_CSS = """
<style>
[data-testid="stCaptionContainer"] { color: #595959; opacity: 1; }
.katex-display { overflow: visible !important; }
.js-plotly-plot .plotly .modebar-btn { height: 24px !important; min-width: 24px; }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation: none !important; transition: none !important; }
}
</style>
"""

PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 1.3rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.3rem; }
[data-testid="stCaptionContainer"] { font-size: 1.1rem; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.6rem !important; }
h1 { font-size: 3rem !important; }
h2 { font-size: 2.3rem !important; }
h3 { font-size: 1.9rem !important; }
</style>
"""


def landing() -> None:
    """What attention is, in a few lines, and where each page leads."""
    st.title("Attention Visualizer")
    start_the_course()
    st.markdown(
        "Attention lets every token of a sequence look at every other token and "
        "take a weighted average of what it finds. Each token asks a **query**, "
        "every token offers a **key** and a **value**; the better a query matches a "
        "key, the more of that key's value flows into the result."
    )
    st.latex(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
    )
    st.markdown(
        "Here you can see every step of that formula with its numbers, change the "
        "sentence, the heads, the mask and the positional encoding, and watch what "
        "happens."
    )
    lesson_list(PAGES)
    st.subheader("Pages")
    columns = st.columns(2)
    for index, (name, description) in enumerate(LANDING_LINKS):
        with columns[index % 2]:
            st.page_link(PAGES[name])
            st.caption(description)


# The page scripts live in views/, not pages/: with a pages/ folder beside the
# entry script, Streamlit serves a deep link as an old-style (v1) multipage app
# until some session has run st.navigation, so a shared link opened first after
# a restart would skip this file (no presentation mode, no navigation).
VIEWS = HERE / "views"
CONTENT_PAGES = (
    ("text", "Text attention", ":material/text_fields:"),
    ("time_series", "Time series", ":material/show_chart:"),
    ("positional_encoding", "Positional encodings", ":material/waves:"),
    ("walkthrough", "Walkthrough", ":material/school:"),
    ("learning", "Watch attention learn", ":material/model_training:"),
    ("pretrained", "Inside a real model", ":material/neurology:"),
    ("classroom", "Teach a class", ":material/groups:"),
    ("lessons", "Lessons", ":material/menu_book:"),
)
PAGES_KEY = "app_pages"


def session_pages() -> dict[str, StreamlitPage]:
    """This session's content pages by name, made on its first run and kept for the next.

    ``st.Page`` resolves and checks its script's path on every call, and this file runs
    on every rerun: in a class, each follower's run paid that eight times. A page object
    also notes whether it may run next (``st.navigation`` allows, ``run`` clears), so it
    is kept per session and never shared between sessions' concurrent runs.
    """
    pages = st.session_state.get(PAGES_KEY)
    if pages is None:
        pages = {
            name: st.Page(VIEWS / f"{name}.py", title=title, icon=icon)
            for name, title, icon in CONTENT_PAGES
        }
        st.session_state[PAGES_KEY] = pages
    return pages


PAGES = session_pages()
LANDING_LINKS = (
    ("text", "Type a sentence and follow it from tokens to context vectors, head by head."),
    ("walkthrough", "Step-by-step lecture with the course notes' worked examples."),
    ("time_series", "Upload a series, see which past steps each day attends to, train a model."),
    ("positional_encoding", "Why attention must be told where a token is, and the ways to do it."),
    ("learning", "Train a tiny transformer in seconds and watch its attention form."),
    ("pretrained", "A pretrained model's learned attention, every head, computed by this core."),
    ("classroom", "Start a live class: students follow your view and answer your questions."),
    ("lessons", "Play a guided lesson, or write your own from the views you set up."),
)


def main() -> None:
    # Server set-up: one process runs every session's reruns, so let it reuse the
    # memory the arrays of each rerun free (once per process; see hosting.memory).
    keep_freed_memory()
    # A burst of reruns could leave a browser a reference to an element it had just
    # dropped, which stops its tab (once per process; see ui.message_refs).
    refer_only_to_kept_elements()
    # Each widget would copy all of Session State to look up its own key (ui.widget_lookup).
    look_up_widget_keys_directly()
    # Each run's first message would read the theme from every config option (ui.theme_message).
    fill_the_theme_once()
    # Each element drawn would wake the event loop twice (ui.loop_handoff).
    hand_events_over_in_batches()
    st.set_page_config(
        page_title="Attention Visualizer",
        page_icon=":material/visibility:",
        layout="wide",
        initial_sidebar_state="collapsed" if _presenting_from_url() else "auto",
    )
    home = st.Page(landing, title="Home", icon=":material/home:", default=True)
    page = st.navigation([home, *PAGES.values()])
    url.reload_without_overflowing_numbers(page)
    st.html(ACCESSIBLE_CSS)
    if presentation_toggle():
        st.html(PRESENTATION_CSS)
    add_view_button(page, PAGES["lessons"])  # on a content page: a lesson step of this view
    # A live class (ui.classroom.around): the bars above the page (a follower's app may
    # open the teacher's view instead) and the page's mode in a class; after the page, a
    # teacher's view is sent to the class.
    # A lesson (ui.lessons.bar): its bar above the page, which may open the step's view.
    with class_around.around_page(page, PAGES):
        lesson_bar.before_page(page, PAGES)
        page.run()
    # The modules this run imported live as long as the server: keep the cyclic garbage
    # collector's full passes off them (a few times per process; see hosting.collector).
    freeze_new_imports()


with class_around.run_turn():  # a class's followers take turns (ui.classroom.around)
    main()
