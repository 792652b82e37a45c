"""Plotly figure builders: arrays and labels in, a ``go.Figure`` out; no Streamlit.

Importing this package sets one process-wide default: no plotly template in the
figure JSON. Streamlit's chart theme styles every figure in the browser, so
plotly's own default template (kilobytes of JSON per figure) would be sent for
nothing (benchmarks/bytes_per_cell.py counts the bytes sent).
"""

import plotly.io as _plotly_io

_plotly_io.templates.default = None
