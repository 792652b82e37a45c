"""The "Next token" tab: a decoder's guesses at every position, and where the real next token ranks.

A decoder is trained to predict token t+1 from tokens 0..t (the causal mask hides the
rest), so every position has a guess. The numbers come from the forward pass's logits
(:mod:`attention_core.pretrained.predictions`), reduced once per input to the top 5 and
the real next token's rank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from attention_core.pretrained.predictions import TOP_K
from ui.pretrained.decoder_figures import next_token_alt, next_token_bar
from ui.pretrained.state import PretrainedState
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_info


def summary_sentence(ranks: np.ndarray, vocab_size: int) -> str:
    """How often the first guess is right, and the real next token's typical rank."""
    if len(ranks) == 0:
        return "One token has no next token in the sentence to compare with."
    first = int(np.sum(ranks == 1))
    in_top = int(np.sum(ranks <= TOP_K))
    return (
        f"At {first} of {len(ranks)} positions the model's first guess is the sentence's real "
        f"next token, and at {in_top} it is among the top {TOP_K}. The real next token's "
        f"median rank is {int(np.median(ranks))} of {vocab_size:,} tokens."
    )


def predictions_frame(state: PretrainedState) -> pd.DataFrame:
    """One row per position: the token, the top guesses with probabilities, the real next."""
    trace, names = state.trace, state.model.token_names
    length = len(state.encoded)
    rows = []
    for position in range(length):
        guesses = names(trace.top_ids[position])
        row = {"position": position, "token": state.encoded.labels[position]}
        row |= {
            f"guess {i + 1}": f"{guess} ({p:.3f})"
            for i, (guess, p) in enumerate(zip(guesses, trace.top_probs[position], strict=True))
        }
        if position + 1 < length:
            row |= {
                "real next": state.encoded.labels[position + 1],
                "its rank": int(trace.ranks[position]),
                "its probability": round(float(trace.rank_probs[position]), 4),
            }
        rows.append(row)
    return pd.DataFrame(rows)


def next_token_tab(state: PretrainedState) -> None:
    if not state.model.info.causal:
        show_info(
            f"{state.model.info.name} is an encoder: it sees the whole sentence at once and has "
            "no next-token head. Choose a decoder (GPT-2 or Llama family) under Model."
        )
        return
    st.markdown(summary_sentence(state.trace.ranks, state.model.info.vocab_size))
    position = state.query
    where = state.encoded.labels[position]
    names = state.model.token_names(state.trace.top_ids[position])
    real = position + 1 < len(state.encoded)
    actual = (
        state.model.token_names(state.encoded.ids[position + 1 : position + 2])[0] if real else None
    )
    rank = int(state.trace.ranks[position]) if real else None
    probabilities = [float(p) for p in state.trace.top_probs[position]]
    st.caption(
        f"After “{escape_markdown(where)}” (position {position}, the query token above) the "
        f"model has seen tokens 0–{position} only."
    )
    chart(
        next_token_bar(
            names, probabilities, actual, f"Next-token guesses after “{where}”", state.style
        ),
        key="next_token",
        alt=next_token_alt(names, probabilities, f"“{where}”", actual, rank),
    )
    st.dataframe(predictions_frame(state), hide_index=True, width="stretch")
