"""Readable numbers on coloured cells: pick black or white text per cell (WCAG contrast).

WCAG 2.x contrast ratio of two colours: ``(L1 + 0.05) / (L2 + 0.05)`` with ``L`` the
relative luminance (sRGB channels linearised, weighted 0.2126 R + 0.7152 G + 0.0722 B)
and ``L1`` the lighter. For any background, black or white text reaches at least
≈ 4.58:1 (the worst background has ``L`` ≈ 0.179), so choosing the better of the two
always meets AA's 4.5:1 for normal text.
"""

from __future__ import annotations

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale, unlabel_rgb

DARK_TEXT = "#000000"
LIGHT_TEXT = "#ffffff"


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG relative luminance of an sRGB colour given as 0..255 channels."""
    channels = np.asarray(rgb, dtype=float) / 255.0
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast_ratio(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """WCAG contrast ratio (1..21) of two sRGB colours given as 0..255 channels."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def hex_to_rgb(colour: str) -> tuple[float, float, float]:
    """``"#rrggbb"`` as 0..255 channels."""
    digits = colour.lstrip("#")
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


def cell_colours(z: np.ndarray, scale: str, zmin: float, zmax: float) -> list[tuple]:
    """The fill of each cell of ``z (R, C)`` on the named plotly colour ``scale`` (row-major).

    Values are clipped to ``[zmin, zmax]`` as plotly draws them; NaN cells give None.
    """
    flat = np.asarray(z, dtype=float).ravel()
    span = (zmax - zmin) or 1.0
    finite = np.isfinite(flat)
    positions = np.clip((np.where(finite, flat, zmin) - zmin) / span, 0.0, 1.0)
    sampled = sample_colorscale(get_colorscale(scale), positions.tolist(), colortype="rgb")
    return [unlabel_rgb(c) if ok else None for c, ok in zip(sampled, finite, strict=True)]


def text_colour_on(background: tuple[float, float, float]) -> str:
    """Black or white, whichever contrasts more with ``background`` (always >= 4.5:1)."""
    dark = contrast_ratio(hex_to_rgb(DARK_TEXT), background)
    light = contrast_ratio(hex_to_rgb(LIGHT_TEXT), background)
    return DARK_TEXT if dark >= light else LIGHT_TEXT


def cell_text_colours(z: np.ndarray, scale: str, zmin: float, zmax: float) -> np.ndarray:
    """Per-cell text colour for numbers drawn on the heatmap ``z (R, C)``; shape ``(R, C)``.

    NaN (masked) cells get the dark colour; they are drawn on the light grey mask.
    """
    fills = cell_colours(z, scale, zmin, zmax)
    colours = [DARK_TEXT if fill is None else text_colour_on(fill) for fill in fills]
    return np.array(colours, dtype=object).reshape(np.shape(z))
