"""Plotly figure builders: arrays and labels in, a ``go.Figure`` out; no Streamlit.

Importing this package sets three process-wide defaults for the figure JSON
(benchmarks/bytes_per_cell.py counts the bytes sent, benchmarks/class_pages.py a run's cost):

- no plotly template: Streamlit's chart theme styles every figure in the browser, so
  plotly's own default template (kilobytes of JSON per figure) would be sent for nothing;
- "/" is written as itself. Plotly's JSON escapes ``<``, ``>`` and ``/`` so that it can sit
  inside an HTML ``<script>``; Streamlit sends it as data, and ``<`` escaped alone already
  keeps ``</script>`` out. A masked cell is a NaN, whose base64 holds a "/" one time in
  three: "\\u002f" in its place made a causal 64 × 64 heatmap 15 % larger;
- a shared figure's JSON is written once: ``st.plotly_chart`` writes a figure's JSON with
  ``plotly.io.to_json`` on every draw, and a :class:`ui.figures.build.SentSpec` (the dict
  of a figure built once and shared, never changed) keeps the JSON written the first time.
"""

from typing import Any

import plotly.io as _plotly_io
from plotly.io import _json as _plotly_json

from ui.figures.build import SentFigure, SentSpec

_plotly_io.templates.default = None
_plotly_json._swap_json = tuple(swap for swap in _plotly_json._swap_json if swap[0] != "/")
_plotly_json._swap_orjson = tuple(swap for swap in _plotly_json._swap_orjson if swap[0] != "/")


_write_json = _plotly_io.to_json


def _to_json(
    fig: Any, validate: bool = True, pretty: bool = False, remove_uids: bool = True,
    engine: str | None = None,
) -> str:  # fmt: skip
    """``plotly.io.to_json``, which writes a sent figure's JSON only once (in the default
    form Streamlit asks for)."""
    fig = fig.to_dict() if isinstance(fig, SentFigure) else fig
    if not isinstance(fig, SentSpec) or pretty or not remove_uids or engine is not None:
        return _write_json(fig, validate, pretty, remove_uids, engine)
    if fig.json is None:
        fig.json = _write_json(fig, validate=False)
    return fig.json


_plotly_io.to_json = _to_json
