"""Look and feel: the normal style and presentation mode for projectors.

Presentation mode (sidebar toggle, URL ``present=1``) makes fonts and axis
labels larger, shows fewer decimals and uses a high-contrast colour-blind-safe
palette. Colour scales everywhere are colour-blind safe: a sequential scale for
weights (viridis, or cividis when presenting) and a diverging scale centred on
zero for scores. No view relies on colour alone: numbers are on hover, on small
heatmaps' cells (black or white per cell, >= 4.5:1, see ``contrast``) and in tables;
heads also differ by line style and name; masked cells are labelled.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FigureStyle:
    """Sizes, decimals and colour scales for every figure of a session."""

    font_size: int = 13
    title_size: int = 16
    tick_size: int = 12
    decimals: int = 4
    weights_scale: str = "Viridis"
    scores_scale: str = "RdBu_r"
    masked_colour: str = "#bdbdbd"
    cell_px: int = 28
    head_palette: tuple[str, ...] = (
        # Okabe-Ito: distinguishable with every common colour-vision deficiency. Its orange,
        # sky blue and yellow are darkened (same hue) to reach 3:1 against the white page, as
        # lines and markers must (WCAG 1.4.11); the yellow was 1.3:1, nearly invisible.
        "#0072B2",
        "#BF8400",
        "#009E73",
        "#CC79A7",
        "#4897C4",
        "#D55E00",
        "#9A922A",
        "#000000",
    )

    # Colour is never the only cue: heads also differ by line style (and are named).
    head_dashes: tuple[str, ...] = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

    def head_colour(self, head: int) -> str:
        """A distinct colour per head (cycling after eight)."""
        return self.head_palette[head % len(self.head_palette)]

    def head_dash(self, head: int) -> str:
        """A line style per head (cycling after six), so heads differ without colour too."""
        return self.head_dashes[head % len(self.head_dashes)]

    @property
    def number_format(self) -> str:
        """A d3 format for hover and cell text, e.g. ``.4f``."""
        return f".{self.decimals}f"


NORMAL = FigureStyle()
PRESENTATION = FigureStyle(
    font_size=20,
    title_size=24,
    tick_size=18,
    decimals=2,
    weights_scale="Cividis",
    scores_scale="RdBu_r",
    masked_colour="#9e9e9e",
    cell_px=40,
)


def style_for(presenting: bool) -> FigureStyle:
    """The figure style for presentation mode on or off."""
    return PRESENTATION if presenting else NORMAL
