"""Bytes sent to the browser per heatmap cell on the text page.

The text page at T = 64 tokens, d_model 64, 8 heads, causal mask, on the
weights tab with the all-heads view: the total size of every figure spec and
walkable-matrix message it sends divided by the number of heatmap cells drawn.
Target: at most 6 bytes per cell (float32 in base64 alone is 5.33).
"""

from __future__ import annotations

from benchmarks.common import Result, emit
from benchmarks.pages import chart_specs, heatmap_cells, matrix_components, sentence, text_page

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "The text page through AppTest at T = 64 tokens, d_model 64, 8 heads, causal mask, on the "
    "weights tab (four single-head matrices and the all-heads grid): the total length of the "
    "figure specs and walkable-matrix messages (data and the lines that load the "
    "matrix code and style, which the browser fetches once per page and are not counted) "
    "Streamlit sends, divided by the number of heatmap cells drawn. Target: at most 6 bytes "
    "a cell."
)

TARGET = 6.0


def main() -> None:
    at = text_page(text=sentence(64), d_model="64", heads="8", mask="causal", view="4 Weights")
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    specs = chart_specs(at)
    walkable = matrix_components(at)
    total_bytes = sum(len(spec.encode()) for spec in specs) + sum(size for size, _ in walkable)
    cells = sum(heatmap_cells(spec) for spec in specs) + sum(cells for _, cells in walkable)
    emit(
        [
            Result(
                name="bytes per heatmap cell, text page, T=64, 8 heads, weights tab",
                figure=round(total_bytes / cells, 2),
                target=TARGET,
                unit="B/cell",
                details={
                    "figures": len(specs),
                    "walkable matrices": len(walkable),
                    "cells": cells,
                    "bytes": total_bytes,
                },
            )
        ]
    )


if __name__ == "__main__":
    main()
