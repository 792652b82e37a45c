"""Plotly figure builders: arrays and labels in, a ``go.Figure`` out; no Streamlit.

Importing this package sets two process-wide defaults for the figure JSON
(benchmarks/bytes_per_cell.py counts the bytes sent):

- no plotly template: Streamlit's chart theme styles every figure in the browser, so
  plotly's own default template (kilobytes of JSON per figure) would be sent for nothing;
- "/" is written as itself. Plotly's JSON escapes ``<``, ``>`` and ``/`` so that it can sit
  inside an HTML ``<script>``; Streamlit sends it as data, and ``<`` escaped alone already
  keeps ``</script>`` out. A masked cell is a NaN, whose base64 holds a "/" one time in
  three: "\\u002f" in its place made a causal 64 × 64 heatmap 15 % larger.
"""

import plotly.io as _plotly_io
from plotly.io import _json as _plotly_json

_plotly_io.templates.default = None
_plotly_json._swap_json = tuple(swap for swap in _plotly_json._swap_json if swap[0] != "/")
_plotly_json._swap_orjson = tuple(swap for swap in _plotly_json._swap_orjson if swap[0] != "/")
