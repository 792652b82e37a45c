"""Classroom walkthrough: attention in six steps, each with its formula and live numbers.

The step is bound to the URL (``?step=3``), so a link opens the lecture at that
step. PyTorch is imported only when step 6 is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

import attention_core as ac
from attention_core.teaching import score_scaling, soft_lookup, walkthrough_steps
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared import numbers, url
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.shared.worked_examples import DAYS, five_days, notes_versus_ours
from ui.walkthrough import figures as wf
from ui.walkthrough.lecture import STEP_CODE, STEP_TITLES

STEP_KEY = "step"
N_STEPS = len(STEP_TITLES)
DEFAULT_HEAD_WIDTH = 4
DEFAULT_COMBINE = "concat"
#: URL-bound widgets; a refused link value for them is named in a warning.
LINK_KEYS = (
    STEP_KEY,
    "wt_query_0",
    "wt_query_1",
    "wt_n_keys",
    "wt_head_width",
    "wt_combine",
    "wt_grad_seed",
    "wt_grad_causal",
)


# --- Navigation --------------------------------------------------------------


def _valid_step(value: object) -> int | None:
    """``value`` if it is a step number 1..N, else None."""
    is_step = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= N_STEPS
    return value if is_step else None


def _move(delta: int) -> None:
    """Button callback: go ``delta`` steps forward or back, staying in 1..N."""
    current = _valid_step(st.session_state.get(STEP_KEY)) or 1
    st.session_state[STEP_KEY] = min(N_STEPS, max(1, current + delta))


def navigation() -> int:
    """Previous / step picker / next; returns the current step (1-based)."""
    # The key is shared by the whole session (the text page also uses "step"):
    # anything that is not a step number starts the lecture at step 1.
    if _valid_step(st.session_state.get(STEP_KEY)) is None:
        st.session_state[STEP_KEY] = 1
    left, middle, right = st.columns([1, 4, 1], vertical_alignment="bottom")
    # The picker goes first: a ?step= in the URL only takes effect when it is drawn.
    step = middle.segmented_control(
        "Step",
        tuple(range(1, N_STEPS + 1)),
        required=True,
        key=STEP_KEY,
        bind="query-params",
        help=" · ".join(f"{n}: {t}" for n, t in enumerate(STEP_TITLES, 1)),
    )
    step = _valid_step(step) or 1
    left.button(
        "← Previous",
        key="step_previous",
        on_click=_move,
        args=(-1,),
        disabled=step <= 1,
        width="stretch",
    )
    right.button(
        "Next →",
        key="step_next",
        on_click=_move,
        args=(1,),
        disabled=step >= N_STEPS,
        width="stretch",
        type="primary",
    )
    st.markdown(f"**Step {step} of {N_STEPS}**")
    st.header(STEP_TITLES[step - 1])
    return step


def explain(plain: str, formula: str, shapes: str, code: Sequence[Callable] = ()) -> None:
    """What every step opens with: plain words, the formula, the shapes and "The code"."""
    st.markdown(plain)
    st.latex(formula)
    st.caption(f"Shapes: {shapes}")
    show_code(code)


# --- Step 1 --------------------------------------------------------------------


def step_lookup(style: FigureStyle) -> None:
    explain(
        "A dictionary returns the value of the one key that matches your question exactly. "
        "Attention compares the question (the **query**) with *every* key, turns the "
        "similarities into weights that add up to 1, and hands back a weighted mix of all "
        "the values.",
        r"s_j = q \cdot k_j \qquad a = \mathrm{softmax}(s) \qquad o = \sum_j a_j\, v_j",
        "query q (2,) · keys K (3, 2) · values V (3, 3), one-hot professions · "
        "weights a (3,) · output o (3,)",
        code=STEP_CODE[1],
    )
    sliders = st.columns(2)
    x = sliders[0].slider(
        "Query, axis 0 (visual arts)", -3.0, 3.0, 0.0, 0.1, key="wt_query_0", bind="query-params"
    )
    y = sliders[1].slider(
        "Query, axis 1 (stage ↔ page)", -3.0, 3.0, 1.0, 0.1, key="wt_query_1", bind="query-params"
    )
    examples = ac.examples
    trace = soft_lookup.soft_lookup(
        (x, y), examples.LOOKUP_KEY_VECTORS, examples.LOOKUP_VALUE_VECTORS
    )
    chart(
        wf.lookup_figure(
            examples.LOOKUP_KEY_VECTORS,
            examples.LOOKUP_KEYS,
            trace.query,
            trace.weights,
            examples.LOOKUP_VALUES,
            style=style,
        ),
        key="wt_lookup_figure",
        place=st,
    )
    st.dataframe(
        wf.lookup_frame(
            examples.LOOKUP_KEYS,
            examples.LOOKUP_VALUES,
            examples.LOOKUP_KEY_VECTORS,
            trace.scores,
            trace.weights,
            style.decimals,
        ),
        hide_index=True,
    )
    best = trace.best
    st.markdown(
        f"The query is closest to **{examples.LOOKUP_KEYS[best]}**, so the answer is mostly "
        f"**{examples.LOOKUP_VALUES[best]}** ({trace.weights[best]:.{style.decimals}f}) — "
        "but a little of every other value comes along. Move the sliders and watch the weights."
    )


# --- Step 2 --------------------------------------------------------------------


def four_words(style: FigureStyle) -> None:
    st.markdown(
        "The NLP notes stack four word vectors and draw integer weight matrices with "
        "`np.random.seed(42)`; here are the same inputs and the same formula."
    )
    st.latex(r"C = \mathrm{softmax}\!\left(\frac{(XW^Q)(XW^K)^\top}{\sqrt{3}}\right) XW^V")
    w_q, w_k, w_v = ac.examples.four_word_weights()
    inputs = st.columns(4)
    for column, name, matrix in zip(
        inputs,
        ("X (4, 3)", "W_Q (3, 3)", "W_K (3, 3)", "W_V (3, 3)"),
        (ac.examples.FOUR_WORD_VECTORS, w_q, w_k, w_v),
        strict=True,
    ):
        column.markdown(name)
        column.code(numbers.format_matrix(matrix, 0), language=None)
    trace = ac.examples.four_words_attention()
    words = list(ac.examples.FOUR_WORDS)
    chart(
        heatmap(
            trace.weights,
            words,
            words,
            title="Attention weights (4, 4)",
            style=style,
        ),
        key="wt_four_words_weights",
        place=st,
    )
    notes_versus_ours(
        numbers.format_matrix(ac.examples.FOUR_WORDS_PRINTED_OUTPUT),
        numbers.format_matrix(trace.context),
    )
    difference = walkthrough_steps.printed_difference(
        trace.context, ac.examples.FOUR_WORDS_PRINTED_OUTPUT
    )
    st.success(
        f"All twelve numbers agree: max |ours − printed| = {difference:.1e} "
        "(the notes print 8 decimals)."
    )


def attention_is_cool(style: FigureStyle) -> None:
    examples = ac.examples
    tokens = list(examples.COOL_TOKENS)
    st.markdown(
        "The transformer notes give masked weights for *attention is cool* and four-wide "
        "values, and work out the first context entry by hand. Pick any entry to see its sum."
    )
    st.latex(r"C_{ij} = \sum_k W_{ik}\, V_{kj}, \qquad C = W V")
    left, right = st.columns(2)
    features = [f"v{j}" for j in range(4)]
    chart(
        heatmap(
            examples.COOL_WEIGHTS,
            tokens,
            tokens,
            title="Weights W (3, 3)",
            style=style,
        ),
        key="wt_cool_weights",
        place=left,
    )
    chart(
        heatmap(
            examples.COOL_VALUES,
            tokens,
            features,
            title="Values V (3, 4)",
            kind="values",
            row_title="key",
            col_title="feature",
            style=style,
        ),
        key="wt_cool_values",
        place=right,
    )
    pick = st.columns(2)
    row = pick[0].selectbox(
        "Row i (query)", range(3), format_func=lambda i: f"{i}: {tokens[i]}", key="wt_cool_row"
    )
    column = pick[1].selectbox("Column j (feature)", range(4), key="wt_cool_column")
    entry = walkthrough_steps.context_entry(
        examples.COOL_WEIGHTS, examples.COOL_VALUES, row, column
    )
    text, latex = numbers.entry_arithmetic("C", entry.row, entry.column, entry.terms, entry.value)
    st.latex(latex)
    st.text(text)
    slide = walkthrough_steps.context_entry(examples.COOL_WEIGHTS, examples.COOL_VALUES, 0, 0)
    st.caption(
        f"The slides work out C₀₀ = {numbers.plain_number(examples.COOL_PRINTED_C00)}; "
        f"we get {numbers.plain_number(slide.value)}."
    )
    chart(
        heatmap(
            examples.cool_context(),
            tokens,
            features,
            title="Context vectors C = W V (3, 4)",
            kind="values",
            col_title="feature",
            style=style,
        ),
        key="wt_cool_context",
        place=st,
    )


def step_examples(style: FigureStyle) -> None:
    st.markdown(
        "Each example starts from the document's own inputs, and its printed numbers "
        "stand next to ours, so you can check every digit."
    )
    show_code(STEP_CODE[2])
    tabs = st.tabs(
        [
            "Four words (NLP notes)",
            "Five days (time-series notes)",
            "“attention is cool” (transformer notes)",
        ]
    )
    with tabs[0]:
        four_words(style)
    with tabs[1]:
        five_days(style, key_prefix="wt_")
    with tabs[2]:
        attention_is_cool(style)


# --- Step 3 --------------------------------------------------------------------


@st.cache_data(max_entries=16)
def saturation(n_keys: int) -> score_scaling.SaturationTable:
    return score_scaling.softmax_saturation(n_keys=n_keys)


def step_scaling(style: FigureStyle) -> None:
    explain(
        "A dot product of two random vectors grows with their length, so with 512 numbers "
        "each the scores spread about 22 times wider than with one. Softmax then puts almost "
        "all the weight on one key and hardly reacts when the scores move, which stalls "
        "learning; dividing by √d keeps the scores the same size for every d.",
        r"\mathrm{Var}(q \cdot k) = \sum_{i=1}^{d} \mathrm{Var}(q_i k_i) = d"
        r"\quad\Rightarrow\quad \mathrm{Var}\!\left(\frac{q \cdot k}{\sqrt d}\right) = 1",
        "q (d,) and n keys K (n, d) with entries ~ N(0, 1) · scores (n,) · weights (n,)",
        code=STEP_CODE[3],
    )
    n_keys = st.slider(
        "Number of keys n",
        2,
        ac.limits.MAX_WALKTHROUGH_KEYS,
        8,
        key="wt_n_keys",
        bind="query-params",
    )
    table = saturation(n_keys)
    unscaled = {
        "largest weight": table.max_weight_unscaled,
        "entropy": table.entropy_unscaled,
        "gradient size ‖∂a/∂s‖": table.gradient_unscaled,
    }
    scaled = {
        "largest weight": table.max_weight_scaled,
        "entropy": table.entropy_scaled,
        "gradient size ‖∂a/∂s‖": table.gradient_scaled,
    }
    chart(
        wf.saturation_figure(table.widths, unscaled, scaled, style=style),
        key="wt_saturation_figure",
        place=st,
    )
    st.dataframe(
        wf.saturation_frame(
            table.widths,
            {
                "score spread, unscaled": table.score_std_unscaled,
                "score spread, scaled": table.score_std_scaled,
                "largest weight, unscaled": table.max_weight_unscaled,
                "largest weight, scaled": table.max_weight_scaled,
                "entropy, unscaled": table.entropy_unscaled,
                "entropy, scaled": table.entropy_scaled,
            },
        ),
        hide_index=True,
    )
    st.markdown(
        f"At d = {table.widths[-1]} the largest of {n_keys} weights is on average "
        f"**{table.max_weight_unscaled[-1]:.3f}** without scaling (almost one-hot) and "
        f"**{table.max_weight_scaled[-1]:.3f}** with it. Uniform weights would have entropy "
        f"ln {n_keys} = {table.uniform_entropy:.3f}; one-hot weights have entropy 0."
    )


# --- Step 4 --------------------------------------------------------------------


def step_masking(style: FigureStyle) -> None:
    explain(
        "When predicting day 3, a model must not peek at days 4 and 5, so those keys are "
        "masked. The right way sets their scores to −∞ *before* softmax, so they get weight "
        "exactly 0 and each row still adds up to 1.",
        r"W = \mathrm{softmax}_{\text{row}}\big(S + M\big), \qquad "
        r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}",
        "scores S (5, 5) from the five-day example · mask (5, 5) · weights (5, 5)",
        code=STEP_CODE[4],
    )
    result = walkthrough_steps.five_day_masking()
    panels = (
        ("Right: −∞, then softmax", result.right, result.mask),
        ("Wrong: × 0/1 mask", result.multiplied, None),
        ("Wrong: column softmax", result.wrong_axis, result.mask),
    )
    for index, (column, (title, weights, mask)) in enumerate(
        zip(st.columns(3), panels, strict=True)
    ):
        chart(
            heatmap(
                weights,
                DAYS,
                DAYS,
                title=title,
                mask=mask,
                style=style,
            ),
            key=f"wt_mask_{index}",
            place=column,
        )
    formulas = st.columns(3)
    formulas[0].latex(r"\mathrm{softmax}_{\text{row}}(S + M)")
    formulas[1].latex(r"\mathrm{softmax}_{\text{row}}(S \odot M_{01})")
    formulas[2].latex(r"\mathrm{softmax}_{\text{column}}(S + M)")
    st.dataframe(
        wf.masking_frame(
            DAYS,
            {
                "weight on future, right": result.forbidden_weight(result.right),
                "weight on future, ×mask": result.forbidden_weight(result.multiplied),
                "row sum, right": result.row_sums(result.right),
                "row sum, wrong axis": result.row_sums(result.wrong_axis),
            },
        )
    )
    leak = result.forbidden_weight(result.multiplied)
    st.warning(
        f"Multiplying by a 0/1 mask turns a forbidden score into 0, and e⁰ = 1 is not 0: "
        f"day 1 still gives {leak[0]:.3f} of its weight to days it may not see. "
        f"Normalising down the columns keeps the future out, but the rows no longer add "
        f"up to 1 (day 4: {result.row_sums(result.wrong_axis)[3]:.3f})."
    )


# --- Step 5 --------------------------------------------------------------------


def step_heads(style: FigureStyle) -> None:
    explain(
        "One head can only pay one kind of attention at a time. Multi-head attention cuts "
        "the e = 12 features into blocks of h, runs attention on every block at the same "
        "time, and then combines the heads' answers.",
        r"C_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{h}}\right) V_h, "
        r"\qquad Q_h = X W^Q_{[:,\,(h-1)\cdot h_w : h\cdot h_w]}",
        "X (5, 12) · Q, K, V (5, 12) → per head (H, 5, h) · weights (H, 5, 5) · context (H, 5, h)",
    )
    controls = st.columns(2)
    # An empty link value (?wt_combine=) leaves even a required control empty: use the default.
    head_width = (
        controls[0].segmented_control(
            "Head width h",
            ac.valid_head_counts(12),
            default=DEFAULT_HEAD_WIDTH,
            required=True,
            key="wt_head_width",
            bind="query-params",
        )
        or DEFAULT_HEAD_WIDTH
    )
    strategy = (
        controls[1].segmented_control(
            "Combine the heads by",
            ac.COMBINATIONS,
            default=DEFAULT_COMBINE,
            required=True,
            key="wt_combine",
            bind="query-params",
        )
        or DEFAULT_COMBINE
    )
    example = walkthrough_steps.multi_head_example(head_width=head_width)
    n_heads = example.trace.weights.shape[0]
    st.markdown(f"e = 12, h = {head_width} gives **{n_heads} head{'s' * (n_heads > 1)}**.")
    titles = [f"head {index + 1}" for index in range(n_heads)]
    chart(
        heatmap_grid(
            example.trace.weights,
            DAYS,
            DAYS,
            titles=titles,
            title="Each head's attention weights",
            style=style,
            columns=4,
        ),
        key="wt_head_weights",
        place=st,
    )
    st.caption(
        f"Each head computed on its own gives the same numbers: max difference "
        f"{numbers.format_difference(example.separate_difference)}. The heads never talk "
        "to each other, so they can run in parallel."
    )
    combine_formulas = {
        "concat": r"O = [C_1 \; C_2 \; \dots \; C_H]\, W^O",
        "mean": r"O = \tfrac{1}{H} \textstyle\sum_h C_h",
        "max": r"O = \max_h C_h \;\text{(element by element)}",
        "learned": r"O = \textstyle\sum_h w_h C_h \;"
        r"\text{(one learned weight per head, dmol notes)}",
    }
    st.latex(combine_formulas[strategy])
    show_code((*STEP_CODE[5], *ac.COMBINATIONS[strategy].shown))
    output = example.combined[strategy]
    chart(
        heatmap(
            output,
            DAYS,
            [f"out {j}" for j in range(output.shape[1])],
            title=f"Combined output ({output.shape[0]}, {output.shape[1]})",
            kind="values",
            col_title="feature",
            style=style,
        ),
        key="wt_head_output",
        place=st,
    )


# --- Step 6 --------------------------------------------------------------------


@st.cache_data(max_entries=16)
def gradient_check(seed: int, causal: bool):  # -> gradcheck.GradientCheck
    from attention_core.teaching import gradcheck  # imports PyTorch: only for this step

    return gradcheck.check_gradients(gradcheck.gradient_example(seed, causal))


def step_learning(style: FigureStyle) -> None:
    explain(
        "To learn, the model needs to know how a small change in each weight would change "
        "the error. We write that chain of derivatives out by hand and check it against "
        "PyTorch, which works it out automatically (autograd).",
        r"L = \tfrac12 \lVert O - Y \rVert^2,\quad "
        r"\partial S = \tfrac{1}{\sqrt{d_k}}\, A \odot \big(\partial A - "
        r"\mathrm{rowsum}(\partial A \odot A)\big),\quad "
        r"\partial W^Q = X^\top \partial S\, K",
        "X (4, 3) · W_Q, W_K, W_V (3, 2) · scores and weights A (4, 4) · output O and "
        "target Y (4, 2)",
        code=STEP_CODE[6],
    )
    controls = st.columns(2)
    seed = controls[0].number_input(
        "Seed", 0, ac.limits.MAX_SEED, 0, key="wt_grad_seed", bind="query-params"
    )
    causal = controls[1].toggle("Causal mask", False, key="wt_grad_causal", bind="query-params")
    with st.spinner("Asking PyTorch's autograd…"):
        check = gradient_check(int(seed), bool(causal))
    hand = {name: check.hand[name] for name in ("W_Q", "W_K", "W_V")}
    chart(
        wf.gradient_grid(hand, title="Gradient each weight matrix receives (by hand)", style=style),
        key="wt_gradients",
        place=st,
    )
    st.dataframe(wf.difference_frame(check.max_difference), hide_index=True)
    worst = max(check.max_difference.values())
    st.success(
        f"Loss {check.loss:.6f} (PyTorch: {check.autograd_loss:.6f}). Hand-written and "
        f"autograd gradients agree to {worst:.1e} — float64 rounding."
    )


STEPS = (step_lookup, step_examples, step_scaling, step_masking, step_heads, step_learning)


def main() -> None:
    before = url.snapshot()
    st.title("Classroom walkthrough")
    link_notice = st.container()  # filled at the end, once every widget has read the URL
    step = navigation()
    try:
        STEPS[step - 1](current_style())
    except ac.InputError as error:
        show_error(str(error))
    with link_notice:
        url.warn_rejected(before, LINK_KEYS)


main()
