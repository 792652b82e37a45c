r"""Questions about whole heads of a model: which head does what, from its measures.

The measures themselves (Clark et al. 2019) are computed by the model's domain
(``attention_core.pretrained.head_measures``); a question takes their values.
"""

from __future__ import annotations

import zlib

import numpy as np

from attention_core.teaching.attention_questions import TIE
from attention_core.teaching.questions import CHOICE, Question, number, view_rng

N_HEADS_OFFERED = 4  #: the strongest previous-token head and three others


def head_name(layer: int, head: int) -> str:
    """Layer and head as the pretrained page names them (``"layer 4 · head 2"``): 1-based."""
    return f"layer {layer + 1} · head {head + 1}"


def previous_token_head_question(previous: np.ndarray, view: str) -> Question | None:
    r"""Which offered head puts most weight on the previous token :math:`\mathrm{mean}_i A_{i,i-1}`?

    ``view`` names the text (its tokens). ``previous (L, H)``: each head's mean
    weight on the previous token (NaN for a one-token text: no question, None).
    Offered: the strongest head and three others drawn from the view; every
    offered head within :data:`TIE` of the best counts.
    """
    if previous.size == 0 or np.isnan(previous).any():
        return None
    flat = previous.ravel()  # (L*H,)
    best = int(np.argmax(flat))
    others = [i for i in range(flat.size) if i != best]
    n_others = min(len(others), N_HEADS_OFFERED - 1)
    drawn = view_rng("previous", view).choice(others, size=n_others, replace=False)
    offered = sorted([best, *(int(i) for i in drawn)])
    n_heads = previous.shape[1]
    names = {i: head_name(*divmod(i, n_heads)) for i in offered}
    correct = tuple(names[i] for i in offered if flat[best] - flat[i] <= TIE)
    shares = "; ".join(f"{names[i]}: {number(flat[i])}" for i in offered)
    return Question(
        id=f"previous-token-head/{zlib.crc32(view.encode()):08x}",  # the text, short
        prompt="Which of these heads is a previous-token head (each token looks mostly at the "
        "one just before it)?",
        kind=CHOICE,
        choices=tuple(names[i] for i in offered),
        correct=correct,
        explanation=f"Mean weight on the previous token: {shares}.",
    )
