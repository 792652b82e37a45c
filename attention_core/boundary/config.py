"""One frozen, validated description of an attention run.

Every page builds an :class:`AttentionConfig` from its widgets and hands it to
the core; all checks of combinations live in ``__post_init__``, so an invalid
choice fails in one place with one clear message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import (
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEMPERATURE,
    MAX_TOKENS,
    MIN_TEMPERATURE,
)
from attention_core.boundary.options import (
    COMBINATIONS,
    EMBEDDINGS,
    MASKS,
    NORMALISERS,
    POSITIONAL_ENCODINGS,
    SCALINGS,
)
from attention_core.boundary.registry import choose
from attention_core.boundary.validation import check_heads_divide, check_positive_int
from attention_core.maths.projections import Projections


@dataclass(frozen=True)
class AttentionConfig:
    """Hyper-parameters of one attention view (hashable: a cache key).

    ``d_k``/``d_v`` default to ``d_model // n_heads`` (the usual split, which
    then needs ``n_heads`` to divide ``d_model``); set them to choose the
    per-head widths freely.
    """

    d_model: int = 16
    n_heads: int = 2
    d_k: int | None = None
    d_v: int | None = None
    embedding: str = "random"
    positional: str = "sinusoidal"
    mask: str = "none"
    window: int = 3
    scaling: str = "sqrt_dk"
    temperature: float = 1.0
    normaliser: str = "softmax"
    combine: str = "concat"
    seed: int = 0

    def __post_init__(self) -> None:
        # Store the checked ints (12.0 becomes 12), so derived widths are ints too.
        self._set("d_model", check_positive_int(self.d_model, "d_model", MAX_D_MODEL))
        self._set("n_heads", check_positive_int(self.n_heads, "The number of heads", MAX_HEADS))
        if self.d_k is None or self.d_v is None:
            per_head = check_heads_divide(self.d_model, self.n_heads, "d_model")
            if self.d_k is None:
                self._set("d_k", per_head)
            if self.d_v is None:
                self._set("d_v", per_head)
        self._set("d_k", check_positive_int(self.d_k, "d_k (query/key width)", MAX_D_MODEL))
        self._set("d_v", check_positive_int(self.d_v, "d_v (value width)", MAX_D_MODEL))
        choose(EMBEDDINGS, self.embedding, "embedding")
        choose(POSITIONAL_ENCODINGS, self.positional, "positional encoding")
        choose(MASKS, self.mask, "mask")
        self._set("window", check_positive_int(self.window, "The window", MAX_TOKENS))
        choose(SCALINGS, self.scaling, "scaling")
        if not (
            isinstance(self.temperature, (int, float))
            and not isinstance(self.temperature, bool)
            and MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE
        ):
            raise InputError(
                f"The temperature must be between {MIN_TEMPERATURE} and {MAX_TEMPERATURE}, "
                f"got {self.temperature!r}."
            )
        choose(NORMALISERS, self.normaliser, "normaliser")
        choose(COMBINATIONS, self.combine, "head combination")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InputError(f"The seed must be a whole number, got {self.seed!r}.")
        if not 0 <= self.seed <= MAX_SEED:
            raise InputError(f"The seed must be between 0 and {MAX_SEED}, got {self.seed}.")

    def _set(self, name: str, value: object) -> None:
        """Store a normalised field on the frozen instance (only during validation)."""
        object.__setattr__(self, name, value)

    @property
    def scale(self) -> float:
        r"""Factor on :math:`QK^\top`: :math:`1/\sqrt{d_k}`, 1, or :math:`1/(\tau\sqrt{d_k})`."""
        return SCALINGS[self.scaling].build(self.d_k, self.temperature)

    @property
    def normaliser_function(self) -> Callable[[np.ndarray], np.ndarray]:
        """The function ``normaliser`` names: masked scores to weights (softmax or hardmax).

        ``normaliser`` is the registry key (what a link holds), this its function
        (what :func:`attention_core.maths.attention.multi_head_attention` takes as ``normaliser``).
        """
        return NORMALISERS[self.normaliser].build

    @property
    def combine_heads(self) -> Callable[[np.ndarray, Projections], np.ndarray]:
        """The function that merges the heads' context vectors into the output."""
        return COMBINATIONS[self.combine].build
