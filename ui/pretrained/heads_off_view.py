"""The "Turn heads off" tab: run the model with some heads' outputs replaced, and see what breaks.

The heads come from the shared picker (:func:`ui.shared.heads_off.heads_off_picker`, in the
link as ``off`` and ``off_kind``), the strongest induction heads one click away. For a
decoder: the next-token guesses after the sentence with every head on and with those heads
off, and how often it copies the repeated random sequence of "Heads that copy"; then the
induction experiment (``ui.pretrained.induction_view``). An encoder has no next-token head:
what turning heads off changes there is its sentence embedding.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention_core.maths.ablation import ABLATION_KINDS, Ablation
from attention_core.pretrained.induction_experiment import SIZES, sentence_similarity, top_heads
from attention_core.pretrained.slim import SlimTrace
from ui.pretrained.ablation_runs import ablated_sentence, copying_with, intact_copying
from ui.pretrained.induction_view import experiment_section
from ui.pretrained.passes import COPY_LENGTH
from ui.pretrained.state import PretrainedState
from ui.shared.heads_off import head_label, heads_off_picker, turn_off
from ui.shared.safe import escape_markdown, show_info

KEY = "off"  #: the picker's key, in the link with ``off_kind``


def heads_named(ablation: Ablation) -> str:
    """The heads off as the picker names them: "L19 H7, L18 H4"."""
    return ", ".join(head_label(layer, head) for layer, head in sorted(ablation.heads))


def one_click_buttons(state: PretrainedState) -> None:
    """Turn off the top 1, 3 or 10 induction heads (by "Heads that copy"), or none."""
    scores = state.model.copying_scores()["induction"]
    row = st.container(horizontal=True, wrap=True)
    for size in SIZES:
        heads = top_heads(scores, size)
        row.button(
            f"Top {size} induction head{'s' if size > 1 else ''}",
            key=f"off_top_{size}",
            on_click=turn_off,
            args=(KEY, heads),
            help="Turns off " + ", ".join(head_label(*head) for head in heads) + ".",
        )
    row.button("Every head on", key="off_none", on_click=turn_off, args=(KEY, ()))


def guesses_frame(state: PretrainedState, intact: SlimTrace, ablated: SlimTrace) -> pd.DataFrame:
    """The top guesses after the last token, with every head on and with the heads off."""
    names = state.model.token_names
    last = len(state.encoded) - 1
    assert intact.top_ids is not None and intact.top_probs is not None
    assert ablated.top_ids is not None and ablated.top_probs is not None
    return pd.DataFrame(
        {
            "rank": range(1, intact.top_ids.shape[1] + 1),
            "every head on": names(intact.top_ids[last]),
            "probability (on)": intact.top_probs[last].round(4),
            "heads off": names(ablated.top_ids[last]),
            "probability (off)": ablated.top_probs[last].round(4),
        }
    )


def guesses_words(state: PretrainedState, intact: SlimTrace, ablated: SlimTrace) -> str:
    """The first guesses after the sentence, and how often the sentence's next token is first."""
    first = guesses_frame(state, intact, ablated).iloc[0]
    on, off = (escape_markdown(str(first[column])) for column in ("every head on", "heads off"))
    after = escape_markdown(state.encoded.labels[-1])
    assert intact.ranks is not None and ablated.ranks is not None
    right_on, right_off = int((intact.ranks == 1).sum()), int((ablated.ranks == 1).sum())
    return (
        f"After “{after}”, the model's first guess is “{on}” "
        f"({first['probability (on)']:.3f}) with every head on, and “{off}” "
        f"({first['probability (off)']:.3f}) with these heads off. Across the sentence its first "
        f"guess is the real next token at {right_on} of {len(intact.ranks)} positions with every "
        f"head on, and at {right_off} with the heads off."
    )


def sentence_section(state: PretrainedState, ablation: Ablation) -> None:
    ablated = ablated_sentence(state.model, state.trace, ablation)
    st.subheader("The sentence")
    st.markdown(guesses_words(state, state.trace, ablated))
    st.dataframe(guesses_frame(state, state.trace, ablated), hide_index=True, width="stretch")


def copying_section(state: PretrainedState, ablation: Ablation) -> None:
    intact, off = intact_copying(state.model), copying_with(state.model, ablation)
    predictable = COPY_LENGTH - 1
    st.subheader("Copying a repeated sequence")
    st.markdown(
        f'The test input of "Heads that copy": {COPY_LENGTH} random tokens, then the same '
        f"{COPY_LENGTH} again. In the second copy the next token can be read off the first at "
        f"{predictable} positions. With every head on the model's first guess is that token "
        f"at {round(intact * predictable)} of them ({intact:.0%}); with these heads off, at "
        f"{round(off * predictable)} ({off:.0%})."
    )


def encoder_section(state: PretrainedState, ablation: Ablation) -> None:
    ablated = ablated_sentence(state.model, state.trace, ablation)
    similarity = sentence_similarity(state.trace.final_output, ablated.final_output)
    st.markdown(
        f"The sentence's embedding (the mean of the last layer's outputs, what "
        f"{escape_markdown(state.model.info.name)} is trained to give) with these heads off has "
        f"cosine similarity **{similarity:.4f}** with the one with every head on (1: unchanged)."
    )


def heads_off_tab(state: PretrainedState) -> None:
    info = state.model.info
    st.markdown(
        "Correlation is not cause: a head that *looks like* an induction head may not be the one "
        "the model copies with. Turn heads off and see what breaks. "
        + " ".join(f"**{kind.label}**: {kind.help}" for kind in ABLATION_KINDS.values())
    )
    one_click_buttons(state)
    ablation = heads_off_picker(KEY, info.n_layers, info.n_heads)
    if not info.causal:
        show_info(
            f"{info.name} is an encoder: it has no next-token head, so there are no guesses to "
            "compare and no copying accuracy to measure, so the induction experiment does not "
            "apply. Choose a decoder (GPT-2 or Llama family) under Model "
            "for it. What turning heads off changes here is the sentence's embedding."
        )
        if ablation is not None:
            encoder_section(state, ablation)
        return
    if ablation is None:
        st.caption("Every head is on: choose heads above, or click a button.")
    else:
        st.caption(f"Turned off ({ablation.kind}): {heads_named(ablation)}.")
        sentence_section(state, ablation)
        copying_section(state, ablation)
    experiment_section(state)
