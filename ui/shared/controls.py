"""Sidebar controls shared by the attention pages, each bound to the URL.

:func:`attention_controls` draws the model controls and returns a validated
:class:`attention_core.AttentionConfig`. Every widget has a stable key that is
also its URL parameter (with a page prefix where pages must not share state).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import attention_core as ac
from attention_core.boundary import limits
from attention_core.boundary.registry import GRID, PADDING, TEMPERATURE, WINDOW, Registry
from ui.shared import page_mode
from ui.shared.control_source import Controls
from ui.shared.url import warn_refused

D_MODEL_DEFAULT = 16


@dataclass(frozen=True)
class ControlOptions:
    """Which choices a page offers (the time-series page offers fewer).

    ``None`` offers every registered choice. ``mask_inputs`` are the inputs the
    page can give a mask: it offers every mask that needs nothing else.
    """

    embeddings: Sequence[str] | None = None
    positional: Sequence[str] | None = None
    mask_inputs: frozenset[str] = frozenset({WINDOW, PADDING, GRID})
    default_positional: str = "sinusoidal"
    default_mask: str = "none"
    d_model_default: int = D_MODEL_DEFAULT
    show_embedding: bool = True
    show_combine: bool = True


# Help for the widgets that are not a choice of an option table (those read the table).
HELP = {
    "d_model": "Width of every token vector (columns of X).",
    "heads": "How many attention heads run side by side; only counts that divide d_model "
    "are offered, so each head gets d_model / heads columns.",
    "window": "Sliding window: each token sees itself and this many minus one before it.",
    "temperature": "τ < 1 sharpens the weights, τ > 1 flattens them.",
    "seed": "Seed of the random weights: the same seed gives the same numbers for everyone.",
}


# URL keys that were renamed: a link with the old key still sets the value.
# old name -> (new name, the table its values come from)
RENAMED_KEYS: dict[str, tuple[str, Mapping[str, ac.Option]]] = {
    "activation": ("normaliser", ac.NORMALISERS),
}


def _key(prefix: str, name: str) -> str:
    return f"{prefix}{name}"


def adopt_renamed_keys(prefix: str = "") -> None:
    """Give a link's value under a renamed key to the widget of the new name, before it is drawn.

    ``?activation=hardmax`` (the old name) sets the normaliser to hardmax and the
    link then reads ``?normaliser=hardmax``; a link that carries both keeps the
    new one. A bound widget takes a link's value only at its first run, so the
    value goes through session state (as any value set in code), checked first.
    """
    for old, (new, table) in RENAMED_KEYS.items():
        old_key, new_key = _key(prefix, old), _key(prefix, new)
        if old_key not in st.query_params:
            continue
        value = st.query_params[old_key]
        del st.query_params[old_key]
        if new_key in st.query_params:
            continue
        if value in table:
            st.session_state[new_key] = value
            st.query_params[new_key] = value
        else:
            warn_refused({old_key: value})


def control_keys(prefix: str = "") -> list[str]:
    """Every URL-bound key :func:`attention_controls` may create."""
    names = [
        "embedding",
        "d_model",
        "heads",
        "custom_widths",
        "dk",
        "dv",
        "pe",
        "mask",
        "window",
        "scale",
        "temperature",
        "normaliser",
        "combine",
        "seed",
    ]
    return [_key(prefix, name) for name in names]


def _label(option: ac.Option, name: str) -> str:
    """`` (÷ √dₖ)`` when the option's label says more than its name, else nothing."""
    return "" if option.label == name else f" ({option.label})"


def choices_help(intro: str, table: Mapping[str, ac.Option], names: Sequence[str]) -> str:
    """``intro``, then one line per offered choice: its name, label and help."""
    lines = "\n".join(
        f"- **{name}**{_label(table[name], name)}: {table[name].help}" for name in names
    )
    return f"{intro}\n\n{lines}"


def select_option(
    source: Controls,
    label: str,
    intro: str,
    table: Mapping[str, ac.Option],
    offered: Sequence[str] | None,
    default: str,
    key: str,
) -> str:
    """A choice over the ``offered`` names of an option table (all when None).

    Its help is ``intro`` and each choice's own help. The names themselves are
    shown (not the table's labels): a bound widget writes what it shows into the
    link, and links keep the names.
    """
    names = [name for name in table if offered is None or name in offered]
    index = names.index(default) if default in names else 0
    return source.selectbox(label, names, index, key, choices_help(intro, table, names))


def _select(
    source: Controls, table: Registry, offered: Sequence[str] | None, default: str, key: str
) -> str:
    """:func:`select_option` labelled and introduced by the registry itself."""
    return select_option(source, table.label, table.help, table, offered, default, key)


def _head_widths(
    source: Controls, prefix: str, d_model: int, n_heads: int
) -> tuple[int | None, int | None]:
    """Advanced per-head widths; None means d_model / heads."""
    with source.expander("Advanced: per-head widths dₖ and d_v"):
        custom = source.toggle("Choose dₖ and d_v myself", _key(prefix, "custom_widths"))
        if not custom:
            source.caption(f"dₖ = d_v = d_model / heads = {d_model // n_heads}")
            return None, None
        d_k = source.number_input(
            "dₖ (query/key width per head)",
            1,
            limits.MAX_D_MODEL,
            d_model // n_heads,
            _key(prefix, "dk"),
        )
        d_v = source.number_input(
            "d_v (value width per head)",
            1,
            limits.MAX_D_MODEL,
            d_model // n_heads,
            _key(prefix, "dv"),
        )
        return d_k, d_v


def attention_controls(
    prefix: str = "", options: ControlOptions | None = None, source: Controls | None = None
) -> ac.AttentionConfig:
    """The model controls in the sidebar; return the validated config.

    Read from the source the page's mode gives (:mod:`ui.shared.page_mode`: the widgets,
    or the link's settings listed); ``source`` forces one.
    Raises :class:`attention_core.InputError` for a combination the core
    refuses (e.g. one-hot embeddings narrower than the vocabulary are checked
    later, by the core, with the tokens).
    """
    options = options or ControlOptions()
    adopt_renamed_keys(prefix)
    with st.sidebar:
        if source is not None:
            return model_settings(source, prefix, options)
        return page_mode.current().read_settings(
            lambda chosen: model_settings(chosen, prefix, options)
        )


def model_settings(source: Controls, prefix: str, options: ControlOptions) -> ac.AttentionConfig:
    """Every model setting read from ``source``, in the sidebar's order; the config."""
    source.header("Model")
    embedding = "random"
    if options.show_embedding:
        embedding = _select(
            source, ac.EMBEDDINGS, options.embeddings, "random", _key(prefix, "embedding")
        )
    d_model = source.number_input(
        "d_model",
        2,
        limits.MAX_D_MODEL,
        options.d_model_default,
        _key(prefix, "d_model"),
        HELP["d_model"],
    )
    head_choices = ac.valid_head_counts(d_model, limits.MAX_HEADS)
    default_heads = 2 if 2 in head_choices else 1
    n_heads = source.selectbox(
        "Heads",
        head_choices,
        head_choices.index(default_heads),
        _key(prefix, "heads"),
        HELP["heads"],
    )
    d_k, d_v = _head_widths(source, prefix, d_model, n_heads)
    positional = _select(
        source,
        ac.POSITIONAL_ENCODINGS,
        options.positional,
        options.default_positional,
        _key(prefix, "pe"),
    )
    source.header("Attention")
    offered_masks = ac.MASKS.taking(options.mask_inputs)
    mask = _select(source, ac.MASKS, offered_masks, options.default_mask, _key(prefix, "mask"))
    window = 3
    if WINDOW in ac.MASKS[mask].needs:
        window = int(
            source.slider("Window", 1, limits.MAX_TOKENS, 3, _key(prefix, "window"), HELP["window"])
        )
    scaling = _select(source, ac.SCALINGS, None, "sqrt_dk", _key(prefix, "scale"))
    temperature = 1.0
    if TEMPERATURE in ac.SCALINGS[scaling].needs:
        temperature = source.slider(
            "Temperature τ",
            limits.MIN_TEMPERATURE,
            limits.MAX_TEMPERATURE,
            1.0,
            _key(prefix, "temperature"),
            HELP["temperature"],
            step=0.05,
        )
    normaliser = _select(source, ac.NORMALISERS, None, "softmax", _key(prefix, "normaliser"))
    combine = "concat"
    if options.show_combine:
        combine = _select(source, ac.COMBINATIONS, None, "concat", _key(prefix, "combine"))
    seed = source.number_input("Seed", 0, limits.MAX_SEED, 0, _key(prefix, "seed"), HELP["seed"])
    source.done()
    return ac.AttentionConfig(
        d_model=d_model,
        n_heads=n_heads,
        d_k=d_k,
        d_v=d_v,
        embedding=embedding,
        positional=positional,
        mask=mask,
        window=window,
        scaling=scaling,
        temperature=float(temperature),
        normaliser=normaliser,
        combine=combine,
        seed=seed,
    )


def slider_or_only_value(
    place: DeltaGenerator, label: str, low: int, high: int, value: int, **kwargs: Any
) -> int:
    """A slider over ``low .. high`` whose range comes from data; text when only one value fits.

    Streamlit refuses a slider whose minimum equals its maximum (a file exactly
    one window long has one possible window), so that case shows the value.
    """
    if high <= low:
        place.markdown(f"{label}: **{low}** — the only possible value for this data.")
        return low
    return int(place.slider(label, low, high, min(max(value, low), high), **kwargs))
