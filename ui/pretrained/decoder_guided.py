"""The guided example's decoder chapter: a sentence read twice, and the heads that copy it.

A decoder reading a sentence for the second time can predict each next token by
looking back: find the earlier copy of the current token (duplicate), step to the token
after it (induction), and predict that. The chapter measures it on :data:`DECODER_TEXT`:
where copying would give the right next token, how often the model's first guess is
right, against everywhere else; and it opens the model's strongest induction head on
the last token. Every number is computed from the forward pass; nothing is claimed.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.pretrained.circuits import strongest
from attention_core.teaching.head_questions import head_name
from ui.pretrained.cache import induction_drawn, induction_weights_drawn
from ui.pretrained.cell_view import cell_lines
from ui.pretrained.state import PretrainedState
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown

SENTENCE = "The quick brown fox jumps over the lazy dog near the old mill."
DECODER_TEXT = f"{SENTENCE} {SENTENCE}"


def copyable(ids: np.ndarray) -> np.ndarray:
    """``(T-1,)`` bool: position t's next token is what followed an earlier copy of token t.

    True where some j < t has ``ids[j] == ids[t]`` and ``ids[j + 1] == ids[t + 1]``: there
    looking back (duplicate, then induction) predicts the next token exactly.
    """
    length = len(ids)
    found = np.zeros(max(0, length - 1), dtype=bool)
    for t in range(1, length - 1):
        earlier = np.flatnonzero(ids[:t] == ids[t])
        found[t] = bool(np.any(ids[earlier + 1] == ids[t + 1]))
    return found


def accuracy_sentence(ranks: np.ndarray, looks_back: np.ndarray) -> str:
    """First-guess accuracy where copying works, and elsewhere."""

    def rate(where: np.ndarray) -> str:
        count = int(where.sum())
        right = int(np.sum(ranks[where] == 1))
        return f"{right} of {count}" if count else "no positions"

    return (
        f"Where looking back gives the real next token, the model's first guess is right at "
        f"{rate(looks_back)}; at the other positions at {rate(~looks_back)}."
    )


def decoder_guided_section(state: PretrainedState) -> None:
    """Always on :data:`DECODER_TEXT` (the page's own text may differ)."""
    tokens, run = state.model.guided_run(DECODER_TEXT)
    ids, labels = tokens.ids, list(tokens.labels)
    looks_back = copyable(ids)
    st.markdown(
        f"**“{DECODER_TEXT}”** — the same sentence twice. Reading the second copy, a model "
        "can predict each next token by looking back: find where the current token appeared "
        "before, and copy what came after it. Heads that do the second step are called "
        "**induction heads** (Olsson et al. 2022). Measured on this text with our NumPy "
        f"forward pass of {state.model.info.name}:"
    )
    st.markdown(accuracy_sentence(run.ranks, looks_back))
    scores = state.model.copying_scores()["induction"]
    layer, head, _ = strongest(scores, 1)[0]
    query = len(ids) - 2  # the second copy's last word: its next token was seen once
    shown = induction_drawn(
        key=state.model.key,
        folder=state.model.folder,
        text=DECODER_TEXT,
        style=state.style,
        _state=state,
    )
    chart(shown, key="guided_induction")
    st.caption(
        f"Its weights as a matrix: row “{escape_markdown(labels[query])}” holds the lines above. "
        "Walk it cell by cell with the arrow keys; select a cell to see its softmax."
    )
    matrix = induction_weights_drawn(
        key=state.model.key,
        folder=state.model.folder,
        text=DECODER_TEXT,
        style=state.style,
        _state=state,
    )
    cells = cell_lines(lambda: state.model.steps(run, layer), state.model.info, "weights", (head,))
    chart(matrix, key="guided_induction_matrix", cells=cells)
    word = escape_markdown(labels[query])  # a token's name is text, never Markdown
    name = head_name(layer, head)
    st.markdown(
        f"{name[:1].upper()}{name[1:]} has the model's highest induction score on "
        "random repeated tokens (the Heads that copy tab). Above, its lines from the second "
        f"copy's “{word}”: an induction head draws its strongest line to the token *after* the "
        f"first “{word}”. **What this shows:** which earlier tokens this head reads. "
        "**What it does not prove:** that this head alone makes the prediction: other heads, "
        "the values and the feed-forward layers all add to the next-token scores."
    )
