"""The trained model's answer to a typed probe, and every head's attention on it (NumPy only).

Reverse and induction read the answer off one forward pass; sort writes its
output one token at a time (greedy), as minGPT's demo does, and the attention
shown is that of the last pass, over the input and the model's own output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.learning.config import TinyTransformerConfig
from attention_core.learning.forward import ForwardTrace, ModelArrays, forward
from attention_core.learning.tasks import IGNORE, SORT_N, get_task
from attention_core.maths.ablation import Ablation


@dataclass(frozen=True)
class Prediction:
    """What the model makes of one probe.

    ``trace`` is the forward pass over ``tokens (T,)``; ``answer (T,)`` holds the
    model's token wherever the task asks one (``expected != IGNORE``), ``IGNORE``
    elsewhere.
    """

    trace: ForwardTrace
    tokens: np.ndarray  #: (T,) what the model read
    expected: np.ndarray  #: (T,) the right answer where one is asked, else IGNORE
    answer: np.ndarray  #: (T,) the model's answer where one is asked, else IGNORE

    @property
    def correct(self) -> int:
        asked = self.expected != IGNORE
        return int(np.sum(self.answer[asked] == self.expected[asked]))

    @property
    def asked(self) -> int:
        return int(np.sum(self.expected != IGNORE))


def predict(
    arrays: ModelArrays,
    config: TinyTransformerConfig,
    probe: np.ndarray,
    ablation: Ablation | None = None,
) -> Prediction:
    """Run the trained model on ``probe (n,)`` token ids (already parsed by the task).

    ``ablation``: the heads turned off in every pass (checked by the caller), None: all on.
    """
    task = get_task(config.task)
    if config.task == "sort":
        return _generate_sorted(arrays, config, probe, ablation)
    batch = task.expand(probe)
    trace = forward(arrays, config, batch.tokens[0], ablation)
    expected = batch.targets[0]
    answer = np.where(expected != IGNORE, trace.predictions, IGNORE)
    return Prediction(trace, batch.tokens[0], expected, answer)


def _generate_sorted(
    arrays: ModelArrays,
    config: TinyTransformerConfig,
    probe: np.ndarray,
    ablation: Ablation | None,
) -> Prediction:
    """Greedy decoding: the input, then each output token fed back; causal, so padding is unseen."""
    tokens = np.concatenate([probe, np.zeros(SORT_N - 1, dtype=np.int64)])  # (2n-1,)
    for k in range(SORT_N):
        trace = forward(arrays, config, tokens, ablation)
        token = trace.predictions[SORT_N - 1 + k]
        if k < SORT_N - 1:
            tokens[SORT_N + k] = token
    expected = get_task("sort").expand(probe).targets[0]
    answer = np.where(expected != IGNORE, trace.predictions, IGNORE)
    return Prediction(trace, tokens, expected, answer)
